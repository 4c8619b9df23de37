package io.jdat.tcp;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * MPA connection start-up frames (RFC 5044 §7.1, RFC 6581 §5): the Request the active side sends right
 * after the TCP handshake and the Reply the passive side answers with. Neither is an FPDU: a 16-byte key,
 * a flags byte, the revision, a 16-bit private-data length and the private data. With revision 2 and the
 * enhanced flag, the first four private-data bytes are the IRD/ORD block; {@link Frame#privateData()} is
 * the consumer's part only, as {@code siw} and rdma_cm present it.
 */
final class Mpa {
    static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    /** Key, flags, revision and private-data length. */
    static final int HEADER_LENGTH = 20;

    /** Flags byte: markers wanted (we never accept them). */
    static final int FLAG_MARKERS = 0x80;
    /** Flags byte: CRC wanted; CRC is then used both ways. */
    static final int FLAG_CRC = 0x40;
    /** Flags byte (reply): the request is rejected. */
    static final int FLAG_REJECT = 0x20;
    /** Flags byte: RFC 6581 enhanced connection establishment (the IRD/ORD block follows). */
    static final int FLAG_ENHANCED = 0x10;

    /** RFC 5044's limit on private data, the IRD/ORD block included. */
    static final int MAX_PRIVATE_DATA = 512;
    /** Size of the RFC 6581 IRD/ORD block. */
    static final int V2_BLOCK = 4;
    /** IRD word: peer-to-peer mode (an RTR message follows the reply). */
    static final int V2_PEER_TO_PEER = 0x8000;
    /** IRD word: a zero-length Send is acceptable as the RTR message. */
    static final int V2_SEND_RTR = 0x4000;
    /** ORD word: a zero-length RDMA Write is acceptable as the RTR message. */
    static final int V2_WRITE_RTR = 0x8000;
    /** ORD word: a zero-length RDMA Read Request is acceptable as the RTR message. */
    static final int V2_READ_RTR = 0x4000;
    /** IRD / ORD value bits. */
    static final int V2_VALUE_MASK = 0x3FFF;

    private Mpa() {
    }

    /**
     * A decoded frame.
     *
     * @param reply       a Reply (else a Request)
     * @param flags       the flags byte
     * @param revision    1 or 2
     * @param enhanced    revision 2 with the IRD/ORD block
     * @param irdWord     the block's IRD word (flags and value), 0 without the block
     * @param ordWord     the block's ORD word (flags and value), 0 without the block
     * @param privateData the consumer's private data
     */
    record Frame(boolean reply, int flags, int revision, boolean enhanced, int irdWord, int ordWord,
            byte[] privateData) {
        boolean crc() {
            return (flags & FLAG_CRC) != 0;
        }

        boolean rejected() {
            return (flags & FLAG_REJECT) != 0;
        }

        boolean markers() {
            return (flags & FLAG_MARKERS) != 0;
        }

        int ird() {
            return irdWord & V2_VALUE_MASK;
        }

        int ord() {
            return ordWord & V2_VALUE_MASK;
        }

        boolean peerToPeer() {
            return enhanced && (irdWord & V2_PEER_TO_PEER) != 0;
        }
    }

    /** A frame that is not MPA start-up, or not one we take (LLP Terminate code 0x04). */
    static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }
    }

    /**
     * Encodes a frame.
     *
     * @param reply    Reply (else Request)
     * @param flags    flags byte ({@link #FLAG_ENHANCED} is added when {@code revision == 2})
     * @param revision 1 or 2
     * @param irdWord  the IRD word (revision 2)
     * @param ordWord  the ORD word (revision 2)
     * @param pd       the consumer's private data
     */
    static ByteBuffer encode(boolean reply, int flags, int revision, int irdWord, int ordWord, byte[] pd) {
        boolean v2 = revision == 2;
        int pdLen = pd.length + (v2 ? V2_BLOCK : 0);
        ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH + pdLen);
        b.put(reply ? REPLY_KEY : REQUEST_KEY);
        b.put((byte) (flags | (v2 ? FLAG_ENHANCED : 0)));
        b.put((byte) revision);
        b.putShort((short) pdLen);
        if (v2) {
            b.putShort((short) irdWord);
            b.putShort((short) ordWord);
        }
        b.put(pd);
        return b.flip();
    }

    /**
     * Reads one frame from a blocking stream, checking everything before trusting it.
     *
     * @param in    the stream
     * @param reply expect a Reply (else a Request)
     * @param maxPd the largest private data (block included) we take
     * @throws ProtocolException a wrong key, revision, length or block
     * @throws IOException       the stream failed or ended
     */
    static Frame read(DataInputStream in, boolean reply, int maxPd) throws IOException {
        byte[] h = new byte[HEADER_LENGTH];
        in.readFully(h);
        return decode(h, in, reply, maxPd);
    }

    /** Decodes a frame whose 20-byte header is {@code h}; the private data comes from {@code in}. */
    static Frame decode(byte[] h, DataInputStream in, boolean reply, int maxPd) throws IOException {
        if (!Arrays.equals(h, 0, 16, reply ? REPLY_KEY : REQUEST_KEY, 0, 16)) {
            throw new ProtocolException("not an MPA " + (reply ? "Reply" : "Request") + " key");
        }
        int flags = h[16] & 0xFF;
        int revision = h[17] & 0xFF;
        int pdLen = ((h[18] & 0xFF) << 8) | (h[19] & 0xFF);
        if (revision != 1 && revision != 2) {
            throw new ProtocolException("MPA revision " + revision + " (1 and 2 are taken)");
        }
        if (pdLen > Math.min(maxPd, MAX_PRIVATE_DATA)) {
            throw new ProtocolException("private data of " + pdLen + " bytes (at most " + maxPd + ")");
        }
        boolean enhanced = revision == 2 && (flags & FLAG_ENHANCED) != 0;
        if (enhanced && pdLen < V2_BLOCK) {
            throw new ProtocolException("MPA revision 2 frame without its IRD/ORD block");
        }
        byte[] raw = new byte[pdLen];
        in.readFully(raw);
        int ird = 0;
        int ord = 0;
        byte[] pd = raw;
        if (enhanced) {
            ird = ((raw[0] & 0xFF) << 8) | (raw[1] & 0xFF);
            ord = ((raw[2] & 0xFF) << 8) | (raw[3] & 0xFF);
            pd = Arrays.copyOfRange(raw, V2_BLOCK, pdLen);
        }
        return new Frame(reply, flags, revision, enhanced, ird, ord, pd);
    }
}
