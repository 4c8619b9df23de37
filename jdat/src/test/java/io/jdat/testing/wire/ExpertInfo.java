package io.jdat.testing.wire;

import java.util.Locale;
import java.util.Objects;

/**
 * One expert info item that tshark attached to a frame's protocol tree.
 *
 * @param protocol the name of the protocol layer it sits in, e.g. {@code tcp}, {@code iwarp_mpa} or
 *     {@code _ws.malformed}
 * @param severity how bad it is
 * @param group the group name as tshark prints it, e.g. {@code Sequence}, {@code Malformed}, {@code Checksum}
 * @param message the text
 */
public record ExpertInfo(String protocol, ExpertSeverity severity, String group, String message) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if a field is null
     */
    public ExpertInfo {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(message, "message");
    }

    /**
     * Whether this item reports an error or a malformed packet.
     *
     * @return true for severity {@link ExpertSeverity#ERROR} or group {@code Malformed}
     */
    public boolean isProblem() {
        return severity == ExpertSeverity.ERROR || group.equals("Malformed");
    }

    /**
     * The item as {@code Warn/Sequence (tcp): message}.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        String s = severity.name();
        return s.charAt(0) + s.substring(1).toLowerCase(Locale.ROOT) + "/" + group + " (" + protocol + "): "
                + message;
    }
}
