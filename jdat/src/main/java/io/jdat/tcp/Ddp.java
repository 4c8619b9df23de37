package io.jdat.tcp;

/**
 * DDP (RFC 5041) and RDMAP (RFC 5040) header layout, as it sits inside an FPDU after the 2-byte
 * ULPDU_Length. Offsets are from the start of the FPDU. All multi-byte fields are big-endian.
 *
 * <pre>
 *  0  ULPDU_Length (2)
 *  2  DDP control: T 0x80, L 0x40, DV 0x03 (= 1)
 *  3  RDMAP control: RV 0xC0 (= 1), opcode 0x0F
 *  tagged:   4 STag (4)      8 TO (8)                               = 14-byte DDP header
 *  untagged: 4 RsvdULP (4)   8 QN (4)  12 MSN (4)  16 MO (4)        = 18-byte DDP header
 *  Read Request, after the untagged header:
 *           20 sink STag (4) 24 sink TO (8) 32 size (4) 36 source STag (4) 40 source TO (8)
 * </pre>
 */
final class Ddp {
    /** The ULPDU_Length field. */
    static final int LENGTH_FIELD = 2;
    /** The CRC field that ends every FPDU (zero when CRC is off). */
    static final int CRC_FIELD = 4;

    /** DDP header of a tagged segment (control bytes included). */
    static final int TAGGED_HEADER = 14;
    /** DDP header of an untagged segment (control bytes included). */
    static final int UNTAGGED_HEADER = 18;
    /** The RDMA Read Request header that follows the untagged header. */
    static final int READ_REQUEST_HEADER = 28;
    /** The Terminate control word and the optional copied lengths/headers are this long at most. */
    static final int TERMINATE_MAX = 4 + 2 + UNTAGGED_HEADER + READ_REQUEST_HEADER;
    /** The longest header a receiver must see before the payload: a Read Request. */
    static final int MAX_HEADER = LENGTH_FIELD + UNTAGGED_HEADER + READ_REQUEST_HEADER;

    // Field offsets from the start of the FPDU (the table above), in Aeron's *_OFFSET style.
    /** The 16-bit ULPDU_Length. */
    static final int LENGTH_OFFSET = 0;
    /** The DDP control byte (T, L, DV). */
    static final int DDP_CONTROL_OFFSET = 2;
    /** The RDMAP control byte (RV, opcode). */
    static final int RDMAP_CONTROL_OFFSET = 3;
    /** Tagged: the 32-bit data sink STag. */
    static final int STAG_OFFSET = 4;
    /** Tagged: the 64-bit tagged offset. */
    static final int TO_OFFSET = 8;
    /** Tagged: the first payload byte. */
    static final int TAGGED_PAYLOAD_OFFSET = LENGTH_FIELD + TAGGED_HEADER;
    /** Untagged: the 32-bit RsvdULP field (zero). */
    static final int RSVD_ULP_OFFSET = 4;
    /** Untagged: the 32-bit queue number. */
    static final int QN_OFFSET = 8;
    /** Untagged: the 32-bit message sequence number. */
    static final int MSN_OFFSET = 12;
    /** Untagged: the 32-bit message offset. */
    static final int MO_OFFSET = 16;
    /** Untagged: the first payload byte (a Read Request's header, a Terminate's control word). */
    static final int UNTAGGED_PAYLOAD_OFFSET = LENGTH_FIELD + UNTAGGED_HEADER;
    /** Read Request: the 32-bit data sink STag of the Read Responses. */
    static final int RR_SINK_STAG_OFFSET = UNTAGGED_PAYLOAD_OFFSET;
    /** Read Request: the 64-bit data sink tagged offset. */
    static final int RR_SINK_TO_OFFSET = UNTAGGED_PAYLOAD_OFFSET + 4;
    /** Read Request: the 32-bit RDMA Read message size. */
    static final int RR_SIZE_OFFSET = UNTAGGED_PAYLOAD_OFFSET + 12;
    /** Read Request: the 32-bit data source STag. */
    static final int RR_SOURCE_STAG_OFFSET = UNTAGGED_PAYLOAD_OFFSET + 16;
    /** Read Request: the 64-bit data source tagged offset. */
    static final int RR_SOURCE_TO_OFFSET = UNTAGGED_PAYLOAD_OFFSET + 20;

    /** The RDMAP version bits of the RDMAP control byte. */
    static final int RDMAP_VERSION_SHIFT = 6;
    /** The opcode bits of the RDMAP control byte. */
    static final int RDMAP_OPCODE_MASK = 0x0F;


    static final int CTRL_TAGGED = 0x80;
    static final int CTRL_LAST = 0x40;
    static final int CTRL_RESERVED = 0x3C;
    static final int CTRL_VERSION_MASK = 0x03;
    static final int DDP_VERSION = 1;
    static final int RDMAP_VERSION = 1;
    static final int RDMAP_RESERVED = 0x30;

    /** Queue number of the Send family. */
    static final int QN_SEND = 0;
    /** Queue number of RDMA Read Requests. */
    static final int QN_READ_REQUEST = 1;
    /** Queue number of Terminate messages. */
    static final int QN_TERMINATE = 2;

    // RDMAP opcodes (RFC 5040 §4.5).
    static final int OP_WRITE = 0x0;
    static final int OP_READ_REQUEST = 0x1;
    static final int OP_READ_RESPONSE = 0x2;
    static final int OP_SEND = 0x3;
    static final int OP_SEND_INVALIDATE = 0x4;
    static final int OP_SEND_SE = 0x5;
    static final int OP_SEND_SE_INVALIDATE = 0x6;
    static final int OP_TERMINATE = 0x7;

    private Ddp() {
    }

    /** The RDMAP version in an RDMAP control byte. */
    static int rdmapVersion(int rdmapControl) {
        return (rdmapControl & 0xFF) >>> RDMAP_VERSION_SHIFT;
    }

    /** The opcode in an RDMAP control byte. */
    static int opcode(int rdmapControl) {
        return rdmapControl & RDMAP_OPCODE_MASK;
    }

    /** Pad bytes after a ULPDU of {@code ulpduLength} so that the FPDU is a multiple of 4. */
    static int pad(int ulpduLength) {
        return (-(LENGTH_FIELD + ulpduLength)) & 3;
    }

    /** The whole FPDU length for a ULPDU of {@code ulpduLength} bytes. */
    static int fpduLength(int ulpduLength) {
        return LENGTH_FIELD + ulpduLength + pad(ulpduLength) + CRC_FIELD;
    }

    /** The RDMAP control byte for {@code opcode}. */
    static byte rdmapControl(int opcode) {
        return (byte) ((RDMAP_VERSION << RDMAP_VERSION_SHIFT) | opcode);
    }

    /** The DDP control byte. */
    static byte ddpControl(boolean tagged, boolean last) {
        return (byte) ((tagged ? CTRL_TAGGED : 0) | (last ? CTRL_LAST : 0) | DDP_VERSION);
    }

    /** True for the untagged opcodes the Send queue carries. */
    static boolean isSend(int opcode) {
        return opcode == OP_SEND || opcode == OP_SEND_SE || opcode == OP_SEND_INVALIDATE
                || opcode == OP_SEND_SE_INVALIDATE;
    }

    /** The opcode's name, for messages. */
    static String opcodeName(int opcode) {
        return switch (opcode) {
            case OP_WRITE -> "RDMA Write";
            case OP_READ_REQUEST -> "RDMA Read Request";
            case OP_READ_RESPONSE -> "RDMA Read Response";
            case OP_SEND -> "Send";
            case OP_SEND_INVALIDATE -> "Send with Invalidate";
            case OP_SEND_SE -> "Send with Solicited Event";
            case OP_SEND_SE_INVALIDATE -> "Send with SE and Invalidate";
            case OP_TERMINATE -> "Terminate";
            default -> "opcode 0x" + Integer.toHexString(opcode);
        };
    }
}
