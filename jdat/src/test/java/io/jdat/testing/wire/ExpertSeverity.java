package io.jdat.testing.wire;

/** The severity of a Wireshark expert info item, lowest first. */
public enum ExpertSeverity {
    /** A packet comment ({@code PI_COMMENT}). */
    COMMENT(0x0010_0000),
    /** Usual workflow, e.g. a TCP SYN ({@code PI_CHAT}). */
    CHAT(0x0020_0000),
    /** Notable but normal, e.g. a retransmission ({@code PI_NOTE}). */
    NOTE(0x0040_0000),
    /** Unusual, possibly a problem ({@code PI_WARN}). */
    WARN(0x0060_0000),
    /** A serious problem, e.g. a malformed packet ({@code PI_ERROR}). */
    ERROR(0x0080_0000);

    private final int code;

    ExpertSeverity(int code) {
        this.code = code;
    }

    /**
     * The numeric value tshark prints for {@code _ws.expert.severity}.
     *
     * @return the {@code PI_*} constant
     */
    public int code() {
        return code;
    }

    /**
     * Maps tshark's numeric severity.
     *
     * @param code a {@code _ws.expert.severity} value
     * @return the severity
     * @throws IllegalArgumentException for an unknown value
     */
    public static ExpertSeverity ofCode(int code) {
        for (ExpertSeverity s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException(String.format("unknown expert severity 0x%08x", code));
    }

    /**
     * Maps the heading of a section of {@code tshark -z expert}.
     *
     * @param heading {@code Errors}, {@code Warns}, {@code Notes}, {@code Chats} or {@code Comments}
     * @return the severity
     * @throws IllegalArgumentException for another heading
     */
    public static ExpertSeverity ofHeading(String heading) {
        return switch (heading) {
            case "Errors" -> ERROR;
            case "Warns" -> WARN;
            case "Notes" -> NOTE;
            case "Chats" -> CHAT;
            case "Comments" -> COMMENT;
            default -> throw new IllegalArgumentException("unknown expert heading " + heading);
        };
    }
}
