package io.jdat.testing.wire;

import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * One TCP connection decoded as iWARP by {@link IwarpStreamDecoder}. The initiator is the sender of the MPA
 * Request, the responder the sender of the Reply.
 *
 * @param request the MPA Request, or null when the connection carries none (not MPA)
 * @param reply the MPA Reply, or null when the responder sent none
 * @param initiatorFpdus the FPDUs the initiator sent after its Request, in order
 * @param responderFpdus the FPDUs the responder sent after its Reply, in order
 * @param initiatorUndecoded how many bytes at the end of the initiator's direction are not part of a whole
 *     Request or FPDU (0 for a clean stream)
 * @param responderUndecoded the same for the responder's direction
 * @param initiatorIsClient whether the initiator is the TCP client (the usual case)
 */
public record IwarpConnection(MpaFrame request, MpaFrame reply, List<Fpdu> initiatorFpdus,
        List<Fpdu> responderFpdus, int initiatorUndecoded, int responderUndecoded, boolean initiatorIsClient) {
    /**
     * Copies the lists.
     *
     * @throws NullPointerException if a list is null
     */
    public IwarpConnection {
        initiatorFpdus = List.copyOf(Objects.requireNonNull(initiatorFpdus, "initiatorFpdus"));
        responderFpdus = List.copyOf(Objects.requireNonNull(responderFpdus, "responderFpdus"));
    }

    /**
     * Whether the connection starts with an MPA Request.
     *
     * @return true for an iWARP connection
     */
    public boolean isMpa() {
        return request != null;
    }

    /**
     * Whether the FPDUs carry CRCs: flag C in the Request or in the Reply (RFC 5044: CRCs in both directions
     * as soon as one side asks).
     *
     * @return true when CRCs are in use
     */
    public boolean crcInUse() {
        return request != null && request.crc() || reply != null && reply.crc();
    }

    /**
     * Whether the responder accepted: a Reply without flag R.
     *
     * @return true when the connection reached full operation
     */
    public boolean accepted() {
        return reply != null && !reply.reject();
    }

    /**
     * Every FPDU of both directions.
     *
     * @return the initiator's then the responder's
     */
    public List<Fpdu> allFpdus() {
        return Stream.concat(initiatorFpdus.stream(), responderFpdus.stream()).toList();
    }
}
