package io.jdat.testing.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One MPA FPDU (RFC 5044 section 7.2) without markers, and the DDP segment (RFC 5041) and RDMAP header
 * (RFC 5040) it carries. Layout: ULPDU_Length (2 bytes), ULPDU, pad to a multiple of 4, CRC field (4 bytes).
 *
 * <p>The framing fields are always available. The DDP and RDMAP accessors decode the ULPDU when called and
 * throw {@link IllegalStateException} when the ULPDU is too short for the field or the field does not exist
 * in this buffer model (e.g. {@link #stag()} of an untagged segment).
 */
public final class Fpdu {
    /** Length of a tagged DDP header (control, RDMAP control, STag, TO). */
    public static final int TAGGED_HEADER = 14;
    /** Length of an untagged DDP header (control, RDMAP control, RsvdULP, QN, MSN, MO). */
    public static final int UNTAGGED_HEADER = 18;

    private static final String[] OPCODES = {"Write", "Read Request", "Read Response", "Send",
        "Send with Invalidate", "Send with SE", "Send with SE and Invalidate", "Terminate", "Immediate Data",
        "Immediate Data with SE", "Atomic Request", "Atomic Response"};

    private final int offset;
    private final byte[] wire;

    private Fpdu(int offset, byte[] wire) {
        this.offset = offset;
        this.wire = wire;
    }

    /**
     * Decodes the FPDU framing at {@code offset}.
     *
     * @param bytes a stream direction after the MPA start-up
     * @param offset where the ULPDU_Length field is
     * @return the FPDU
     * @throws IllegalArgumentException if the whole FPDU (length, ULPDU, pad and CRC) is not there
     */
    public static Fpdu parse(byte[] bytes, int offset) {
        int available = bytes.length - offset;
        if (offset < 0 || available < 2) {
            throw new IllegalArgumentException("no ULPDU_Length at " + offset + " of " + bytes.length);
        }
        int ulpdu = (bytes[offset] & 0xFF) << 8 | bytes[offset + 1] & 0xFF;
        int total = 2 + ulpdu + pad(ulpdu) + 4;
        if (available < total) {
            throw new IllegalArgumentException("FPDU at " + offset + " needs " + total + " bytes, " + available
                    + " left");
        }
        return new Fpdu(offset, Arrays.copyOfRange(bytes, offset, offset + total));
    }

    /**
     * The number of pad bytes after a ULPDU of the given length.
     *
     * @param ulpduLength the ULPDU_Length field
     * @return 0 to 3, so that 2 + ULPDU + pad is a multiple of 4
     */
    public static int pad(int ulpduLength) {
        return (4 - (2 + ulpduLength) % 4) % 4;
    }

    /**
     * Where this FPDU starts in its stream direction.
     *
     * @return the offset of the ULPDU_Length field
     */
    public int offset() {
        return offset;
    }

    /**
     * The length of the whole FPDU on the wire.
     *
     * @return 2 + ULPDU_Length + pad + 4
     */
    public int length() {
        return wire.length;
    }

    /**
     * The ULPDU_Length field.
     *
     * @return the length of the DDP segment
     */
    public int ulpduLength() {
        return (wire[0] & 0xFF) << 8 | wire[1] & 0xFF;
    }

    /**
     * The ULPDU: the whole DDP segment, headers included.
     *
     * @return a fresh copy
     */
    public byte[] ulpdu() {
        return Arrays.copyOfRange(wire, 2, 2 + ulpduLength());
    }

    /**
     * The number of pad bytes.
     *
     * @return 0 to 3
     */
    public int padLength() {
        return pad(ulpduLength());
    }

    /**
     * The pad bytes as sent.
     *
     * @return a fresh copy (RFC 5044 wants zeros)
     */
    public byte[] padBytes() {
        int start = 2 + ulpduLength();
        return Arrays.copyOfRange(wire, start, start + padLength());
    }

    /**
     * The bytes the MPA CRC covers when there are no markers: ULPDU_Length, ULPDU and pad, as sent.
     *
     * @return a fresh copy
     */
    public byte[] crcInput() {
        return Arrays.copyOf(wire, wire.length - 4);
    }

    /**
     * The 4 bytes of the CRC field, in wire order.
     *
     * @return a fresh copy (zeros when the connection did not negotiate CRC, for {@code siw})
     */
    public byte[] crcField() {
        return Arrays.copyOfRange(wire, wire.length - 4, wire.length);
    }

    /**
     * The CRC-32C of {@link #crcInput()}, computed with {@link CRC32C}.
     *
     * @return the CRC value
     */
    public int computedCrc() {
        CRC32C crc = new CRC32C();
        crc.update(wire, 0, wire.length - 4);
        return (int) crc.getValue();
    }

    /**
     * Whether the CRC field holds {@link #computedCrc()} least-significant byte first, the byte order that
     * Linux {@code siw} and Wireshark use.
     *
     * @return true for a valid CRC
     */
    public boolean crcValid() {
        return ByteBuffer.wrap(wire, wire.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() == computedCrc();
    }

    /**
     * The DDP control byte.
     *
     * @return byte 0 of the ULPDU: T 0x80, L 0x40, reserved 0x3C, DV 0x03
     */
    public int ddpControl() {
        return u8(0);
    }

    /**
     * Flag T.
     *
     * @return true for a tagged segment
     */
    public boolean tagged() {
        return (ddpControl() & 0x80) != 0;
    }

    /**
     * Flag L.
     *
     * @return true for the last segment of a message
     */
    public boolean last() {
        return (ddpControl() & 0x40) != 0;
    }

    /**
     * The DDP version.
     *
     * @return the DV field (1 for RFC 5041)
     */
    public int ddpVersion() {
        return ddpControl() & 0x03;
    }

    /**
     * The RDMAP control byte (RsvdULP[0..7] of the DDP header).
     *
     * @return byte 1 of the ULPDU: RV 0xC0, reserved 0x30, opcode 0x0F
     */
    public int rdmapControl() {
        return u8(1);
    }

    /**
     * The RDMAP version.
     *
     * @return the RV field (1 for RFC 5040)
     */
    public int rdmapVersion() {
        return rdmapControl() >>> 6;
    }

    /**
     * The RDMAP opcode.
     *
     * @return 0 Write, 1 Read Request, 2 Read Response, 3 Send, 4 Send with Invalidate, 5 Send with SE,
     *     6 Send with SE and Invalidate, 7 Terminate, 8 to 0xB the RFC 7306 extensions
     */
    public int opcode() {
        return rdmapControl() & 0x0F;
    }

    /**
     * The name of the RDMAP opcode.
     *
     * @return e.g. {@code "Read Request"}, or {@code "opcode 0xc"} for an undefined one
     */
    public String opcodeName() {
        int op = opcode();
        return op < OPCODES.length ? OPCODES[op] : String.format("opcode 0x%x", op);
    }

    /**
     * The length of the DDP header.
     *
     * @return 14 for a tagged segment, 18 for an untagged one
     */
    public int headerLength() {
        return tagged() ? TAGGED_HEADER : UNTAGGED_HEADER;
    }

    /**
     * The STag of a tagged segment.
     *
     * @return the sink STag
     * @throws IllegalStateException if the segment is untagged or too short
     */
    public int stag() {
        requireTagged(true);
        return u32(2);
    }

    /**
     * The Tagged Offset of a tagged segment.
     *
     * @return the TO
     * @throws IllegalStateException if the segment is untagged or too short
     */
    public long to() {
        requireTagged(true);
        return (long) u32(6) << 32 | u32(10) & 0xFFFF_FFFFL;
    }

    /**
     * RsvdULP[8..39] of an untagged segment: the STag to invalidate for the Send-with-Invalidate opcodes,
     * 0 otherwise.
     *
     * @return the 32-bit field
     * @throws IllegalStateException if the segment is tagged or too short
     */
    public int invalidateStag() {
        requireTagged(false);
        return u32(2);
    }

    /**
     * The queue number of an untagged segment.
     *
     * @return QN: 0 Send, 1 Read Request, 2 Terminate
     * @throws IllegalStateException if the segment is tagged or too short
     */
    public int qn() {
        requireTagged(false);
        return u32(6);
    }

    /**
     * The message sequence number of an untagged segment.
     *
     * @return MSN, 1 for a queue's first message
     * @throws IllegalStateException if the segment is tagged or too short
     */
    public int msn() {
        requireTagged(false);
        return u32(10);
    }

    /**
     * The message offset of an untagged segment.
     *
     * @return MO, the position of this segment's payload in its message
     * @throws IllegalStateException if the segment is tagged or too short
     */
    public int mo() {
        requireTagged(false);
        return u32(14);
    }

    /**
     * The bytes after the DDP header: the ULP payload, or for a Read Request or Terminate the rest of the
     * RDMAP header and what follows.
     *
     * @return a fresh copy
     * @throws IllegalStateException if the ULPDU is shorter than its DDP header
     */
    public byte[] payload() {
        int header = headerLength();
        require(header);
        return Arrays.copyOfRange(wire, 2 + header, 2 + ulpduLength());
    }

    /**
     * The RDMAP header of a Read Request.
     *
     * @return the decoded header
     * @throws IllegalStateException if this is not an untagged Read Request with the whole 28-byte header
     */
    public ReadRequest readRequest() {
        if (tagged() || opcode() != 1) {
            throw new IllegalStateException("not a Read Request: " + this);
        }
        int h = UNTAGGED_HEADER;
        require(h + ReadRequest.LENGTH);
        return new ReadRequest(u32(h), (long) u32(h + 4) << 32 | u32(h + 8) & 0xFFFF_FFFFL, u32(h + 12),
                u32(h + 16), (long) u32(h + 20) << 32 | u32(h + 24) & 0xFFFF_FFFFL);
    }

    /**
     * A one-line summary such as {@code Send untagged L qn=0 msn=1 mo=0 payload=16} or
     * {@code Write tagged stag=0x80b9a800 to=0x56334c5e6620 payload=64}.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        if (ulpduLength() < 2) {
            return "FPDU@" + offset + " ulpdu=" + ulpduLength();
        }
        StringBuilder s = new StringBuilder(opcodeName()).append(tagged() ? " tagged" : " untagged")
                .append(last() ? " L" : " -");
        if (ulpduLength() >= headerLength()) {
            if (tagged()) {
                s.append(String.format(" stag=0x%08x to=0x%x", stag(), to()));
            } else {
                s.append(" qn=").append(qn()).append(" msn=").append(msn()).append(" mo=").append(mo());
            }
            s.append(" payload=").append(ulpduLength() - headerLength());
        }
        return s.toString();
    }

    private void requireTagged(boolean tagged) {
        if (tagged() != tagged) {
            throw new IllegalStateException((tagged ? "untagged" : "tagged") + " segment has no such field: "
                    + opcodeName());
        }
        require(headerLength());
    }

    private void require(int ulpduBytes) {
        if (ulpduLength() < ulpduBytes) {
            throw new IllegalStateException("ULPDU of " + ulpduLength() + " bytes, field needs " + ulpduBytes);
        }
    }

    private int u8(int ulpduOffset) {
        require(ulpduOffset + 1);
        return wire[2 + ulpduOffset] & 0xFF;
    }

    private int u32(int ulpduOffset) {
        return ByteBuffer.wrap(wire, 2 + ulpduOffset, 4).getInt();
    }
}
