package io.jdat.tcp;

import io.jdat.DtoCompletionStatus;

/**
 * RDMAP Terminate (RFC 5040 §6.10): the control word's layer, error type and code, and what a received
 * Terminate means for the request it ends. Sent once, on QN 2, after which the sender closes the stream.
 *
 * <pre>
 *  control word: layer (4 bits) | error type (4) | error code (8) | M | D | R | reserved (13)
 * </pre>
 */
final class Terminate {
    static final int LAYER_RDMAP = 0;
    static final int LAYER_DDP = 1;
    static final int LAYER_LLP = 2;

    // RDMAP error types.
    static final int RDMAP_LOCAL_CATASTROPHIC = 0;
    static final int RDMAP_REMOTE_PROTECTION = 1;
    static final int RDMAP_REMOTE_OPERATION = 2;
    // RDMAP codes.
    static final int RDMAP_INVALID_STAG = 0x00;
    static final int RDMAP_BASE_BOUNDS = 0x01;
    static final int RDMAP_ACCESS_RIGHTS = 0x02;
    static final int RDMAP_BAD_VERSION = 0x05;
    static final int RDMAP_UNEXPECTED_OPCODE = 0x06;
    static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    static final int RDMAP_UNSPECIFIED = 0xFF;

    // DDP error types.
    static final int DDP_LOCAL_CATASTROPHIC = 0;
    static final int DDP_TAGGED = 1;
    static final int DDP_UNTAGGED = 2;
    // DDP tagged codes.
    static final int DDP_T_INVALID_STAG = 0x00;
    static final int DDP_T_BASE_BOUNDS = 0x01;
    static final int DDP_T_BAD_VERSION = 0x04;
    // DDP untagged codes.
    static final int DDP_U_INVALID_QN = 0x01;
    static final int DDP_U_NO_BUFFER = 0x02;
    static final int DDP_U_MSN_RANGE = 0x03;
    static final int DDP_U_INVALID_MO = 0x04;
    static final int DDP_U_TOO_LONG = 0x05;
    static final int DDP_U_BAD_VERSION = 0x06;

    // LLP (MPA) codes, error type 0.
    static final int LLP_CRC = 0x02;
    static final int LLP_BAD_FRAME = 0x04;

    // The Terminate message: offsets from the start of its untagged payload (Ddp.UNTAGGED_PAYLOAD_OFFSET).
    /** The 32-bit control word. */
    static final int CONTROL_OFFSET = 0;
    /** With {@link #FLAG_M}: the 16-bit DDP segment length of the offending segment. */
    static final int SEGMENT_LENGTH_OFFSET = 4;
    /** The Terminate this side sends: the control word only. */
    static final int SENT_LENGTH = 4;
    /** The shortest Terminate a receiver takes: the control word. */
    static final int MIN_LENGTH = 4;

    // The control word's fields.
    private static final int LAYER_SHIFT = 28;
    private static final int ERROR_TYPE_SHIFT = 24;
    private static final int CODE_SHIFT = 16;
    private static final int NIBBLE = 0xF;
    private static final int BYTE = 0xFF;

    /** Control-word bit: the 2-byte DDP segment length of the offending segment follows. */
    static final int FLAG_M = 1 << 15;
    /** Control-word bit: a copy of the offending DDP header follows. */
    static final int FLAG_D = 1 << 14;

    private Terminate() {
    }

    /** The 32-bit control word. */
    static int controlWord(int layer, int errorType, int code) {
        return (layer & NIBBLE) << LAYER_SHIFT | (errorType & NIBBLE) << ERROR_TYPE_SHIFT | (code & BYTE) << CODE_SHIFT;
    }

    static int layer(int word) {
        return word >>> LAYER_SHIFT;
    }

    static int errorType(int word) {
        return (word >>> ERROR_TYPE_SHIFT) & NIBBLE;
    }

    static int code(int word) {
        return (word >>> CODE_SHIFT) & BYTE;
    }

    /**
     * The status of the request a received Terminate ends (IWARP.md §9): remote protection errors are
     * access errors, DDP untagged and RDMAP remote-operation errors are the responder's, LLP and everything
     * else is the transport's.
     */
    static DtoCompletionStatus status(int word) {
        int layer = layer(word);
        int type = errorType(word);
        if (layer == LAYER_RDMAP && type == RDMAP_REMOTE_PROTECTION) {
            return DtoCompletionStatus.ERR_REMOTE_ACCESS;
        }
        if (layer == LAYER_DDP && type == DDP_TAGGED) {
            return DtoCompletionStatus.ERR_REMOTE_ACCESS;
        }
        if ((layer == LAYER_RDMAP && type == RDMAP_REMOTE_OPERATION) || (layer == LAYER_DDP && type == DDP_UNTAGGED)) {
            return DtoCompletionStatus.ERR_REMOTE_RESPONDER;
        }
        return DtoCompletionStatus.ERR_TRANSPORT;
    }

    /** A readable description of a control word. */
    static String describe(int word) {
        String layer = switch (layer(word)) {
            case LAYER_RDMAP -> "RDMAP";
            case LAYER_DDP -> "DDP";
            case LAYER_LLP -> "LLP";
            default -> "layer " + layer(word);
        };
        return layer + " error type " + errorType(word) + " code 0x" + Integer.toHexString(code(word));
    }
}
