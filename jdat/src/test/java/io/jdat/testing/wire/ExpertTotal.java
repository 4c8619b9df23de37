package io.jdat.testing.wire;

import java.util.Objects;

/**
 * One line of {@code tshark -z expert}: how often an expert info item was raised in a capture. Unlike
 * {@link ExpertInfo}, this includes the items a dissector raises without attaching them to a frame's tree;
 * the MPA dissector raises its start-up warnings this way (e.g. "Rev field is NOT set to one as required by
 * RFC 5044" for every revision 2 Request), so they appear only here.
 *
 * @param severity how bad it is
 * @param group the group name, e.g. {@code Request}
 * @param protocol the protocol's short name as tshark prints it, e.g. {@code IWARP_MPA}
 * @param summary the text
 * @param count how many times tshark raised it
 */
public record ExpertTotal(ExpertSeverity severity, String group, String protocol, String summary, int count) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if a field is null
     */
    public ExpertTotal {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(summary, "summary");
    }

    /**
     * Whether this item reports an error or a malformed packet.
     *
     * @return true for severity {@link ExpertSeverity#ERROR} or group {@code Malformed}
     */
    public boolean isProblem() {
        return severity == ExpertSeverity.ERROR || group.equals("Malformed");
    }
}
