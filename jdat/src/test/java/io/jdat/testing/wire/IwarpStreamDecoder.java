package io.jdat.testing.wire;

import java.util.ArrayList;
import java.util.List;

/**
 * An independent reference decoder for iWARP over TCP, for tests: splits the two byte streams of a connection
 * into the MPA Request and Reply (RFC 5044, RFC 6581) and the FPDUs that follow (RFC 5044 framing, RFC 5041
 * DDP, RFC 5040 RDMAP). It is written from the RFCs and checked against captures of Linux {@code siw}; it
 * shares no code with the production transport on purpose.
 *
 * <p>It never throws for what a stream contains: bytes it cannot frame are counted as undecoded. FPDUs are
 * decoded only after a Reply without flag R, and only in a direction without markers (markers are reported as
 * undecoded bytes; neither {@code siw} nor jdat uses them).
 */
public final class IwarpStreamDecoder {
    private IwarpStreamDecoder() {}

    /**
     * Decodes a captured TCP connection. The side whose stream starts with the Request key is the initiator.
     *
     * @param stream a reassembled connection
     * @return the decoded connection; {@link IwarpConnection#isMpa()} is false when neither direction starts
     *     with a Request
     */
    public static IwarpConnection decode(TcpStream stream) {
        byte[] up = stream.clientToServer();
        byte[] down = stream.serverToClient();
        if (!MpaFrame.isRequestAt(up, 0) && MpaFrame.isRequestAt(down, 0)) {
            return decode(down, up, false);
        }
        return decode(up, down, true);
    }

    /**
     * Decodes the two directions of a connection.
     *
     * @param initiatorToResponder the bytes the initiator sent, starting with its MPA Request
     * @param responderToInitiator the bytes the responder sent, starting with its MPA Reply
     * @return the decoded connection, with {@link IwarpConnection#initiatorIsClient()} true
     */
    public static IwarpConnection decode(byte[] initiatorToResponder, byte[] responderToInitiator) {
        return decode(initiatorToResponder, responderToInitiator, true);
    }

    private static IwarpConnection decode(byte[] ini, byte[] resp, boolean initiatorIsClient) {
        MpaFrame request = frame(ini, true);
        if (request == null) {
            return new IwarpConnection(null, null, List.of(), List.of(), ini.length, resp.length, initiatorIsClient);
        }
        MpaFrame reply = frame(resp, false);
        List<Fpdu> iniFpdus = new ArrayList<>();
        List<Fpdu> respFpdus = new ArrayList<>();
        int iniEnd = request.length();
        int respEnd = reply == null ? 0 : reply.length();
        if (reply != null && !reply.reject()) {
            // M in the Request: the initiator wants markers from the responder; M in the Reply: the converse.
            if (!reply.markers()) {
                iniEnd = fpdus(ini, iniEnd, iniFpdus);
            }
            if (!request.markers()) {
                respEnd = fpdus(resp, respEnd, respFpdus);
            }
        }
        return new IwarpConnection(request, reply, iniFpdus, respFpdus, ini.length - iniEnd, resp.length - respEnd,
                initiatorIsClient);
    }

    /**
     * Splits the FPDUs of one direction.
     *
     * @param bytes a stream direction
     * @param offset where the first FPDU starts (just after the MPA Request or Reply)
     * @return the whole FPDUs from {@code offset} on; a partial FPDU at the end is left out
     */
    public static List<Fpdu> fpdus(byte[] bytes, int offset) {
        List<Fpdu> out = new ArrayList<>();
        fpdus(bytes, offset, out);
        return out;
    }

    private static int fpdus(byte[] bytes, int offset, List<Fpdu> out) {
        int pos = offset;
        while (bytes.length - pos >= 2) {
            int ulpdu = (bytes[pos] & 0xFF) << 8 | bytes[pos + 1] & 0xFF;
            if (bytes.length - pos < 2 + ulpdu + Fpdu.pad(ulpdu) + 4) {
                break;
            }
            Fpdu f = Fpdu.parse(bytes, pos);
            out.add(f);
            pos += f.length();
        }
        return pos;
    }

    private static MpaFrame frame(byte[] bytes, boolean request) {
        if (!(request ? MpaFrame.isRequestAt(bytes, 0) : MpaFrame.isReplyAt(bytes, 0))) {
            return null;
        }
        try {
            return MpaFrame.parse(bytes, 0);
        } catch (IllegalArgumentException truncated) {
            return null;
        }
    }
}
