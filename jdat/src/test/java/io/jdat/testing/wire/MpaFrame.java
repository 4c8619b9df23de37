package io.jdat.testing.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * An MPA Request or Reply frame (RFC 5044 section 7.1, RFC 6581): a 16-byte key, a flags byte, a revision
 * byte, a 16-bit private data length and the private data.
 *
 * @param request true for a Request ({@code MPA ID Req Frame}), false for a Reply ({@code MPA ID Rep Frame})
 * @param flags the whole flags byte (M 0x80, C 0x40, R 0x20, enhanced 0x10, reserved 0x0F)
 * @param revision the revision byte
 * @param privateData the private data, including the RFC 6581 block when there is one (not copied)
 */
public record MpaFrame(boolean request, int flags, int revision, byte[] privateData) {
    /** The key of a Request. */
    public static final String REQUEST_KEY = "MPA ID Req Frame";
    /** The key of a Reply. */
    public static final String REPLY_KEY = "MPA ID Rep Frame";
    /** The length of the fixed part: key, flags, revision, private data length. */
    public static final int HEADER_LENGTH = 20;
    /** Flag M: markers wanted. */
    public static final int MARKERS = 0x80;
    /** Flag C: CRC wanted. */
    public static final int CRC = 0x40;
    /** Flag R: rejected (Reply only). */
    public static final int REJECT = 0x20;
    /** The RFC 6581 enhanced-startup flag (H). */
    public static final int ENHANCED = 0x10;

    /**
     * Decodes the frame starting at {@code offset}.
     *
     * @param bytes a stream direction
     * @param offset where the key starts
     * @return the frame
     * @throws IllegalArgumentException if the bytes there are not a whole Request or Reply (the message says
     *     what is wrong)
     */
    public static MpaFrame parse(byte[] bytes, int offset) {
        if (offset < 0 || bytes.length - offset < HEADER_LENGTH) {
            throw new IllegalArgumentException("MPA frame needs 20 bytes at " + offset + ", has "
                    + Math.max(0, bytes.length - offset));
        }
        String key = new String(bytes, offset, 16, StandardCharsets.ISO_8859_1);
        boolean request = key.equals(REQUEST_KEY);
        if (!request && !key.equals(REPLY_KEY)) {
            throw new IllegalArgumentException("no MPA key at " + offset + ": "
                    + HexFormat.of().formatHex(bytes, offset, offset + 16));
        }
        int pdLength = (bytes[offset + 18] & 0xFF) << 8 | bytes[offset + 19] & 0xFF;
        int start = offset + HEADER_LENGTH;
        if (bytes.length - start < pdLength) {
            throw new IllegalArgumentException("MPA " + (request ? "Request" : "Reply") + " announces " + pdLength
                    + " bytes of private data, only " + (bytes.length - start) + " follow");
        }
        return new MpaFrame(request, bytes[offset + 16] & 0xFF, bytes[offset + 17] & 0xFF,
                Arrays.copyOfRange(bytes, start, start + pdLength));
    }

    /**
     * Whether {@code bytes} has an MPA Request key at {@code offset}.
     *
     * @param bytes a stream direction
     * @param offset a position in it
     * @return true if the 16 bytes there spell {@value #REQUEST_KEY}
     */
    public static boolean isRequestAt(byte[] bytes, int offset) {
        return keyAt(bytes, offset, REQUEST_KEY);
    }

    /**
     * Whether {@code bytes} has an MPA Reply key at {@code offset}.
     *
     * @param bytes a stream direction
     * @param offset a position in it
     * @return true if the 16 bytes there spell {@value #REPLY_KEY}
     */
    public static boolean isReplyAt(byte[] bytes, int offset) {
        return keyAt(bytes, offset, REPLY_KEY);
    }

    private static boolean keyAt(byte[] bytes, int offset, String key) {
        return offset >= 0 && bytes.length - offset >= 16
                && new String(bytes, offset, 16, StandardCharsets.ISO_8859_1).equals(key);
    }

    /**
     * The key text.
     *
     * @return {@value #REQUEST_KEY} or {@value #REPLY_KEY}
     */
    public String key() {
        return request ? REQUEST_KEY : REPLY_KEY;
    }

    /**
     * Flag M.
     *
     * @return whether the sender wants markers in the FPDUs sent to it
     */
    public boolean markers() {
        return (flags & MARKERS) != 0;
    }

    /**
     * Flag C.
     *
     * @return whether the sender wants CRCs (then both directions use them)
     */
    public boolean crc() {
        return (flags & CRC) != 0;
    }

    /**
     * Flag R.
     *
     * @return whether this Reply rejects the connection
     */
    public boolean reject() {
        return (flags & REJECT) != 0;
    }

    /**
     * Whether this is an RFC 6581 enhanced frame: revision 2 with the enhanced flag 0x10 set. Then the private
     * data starts with the {@link IrdOrd} block.
     *
     * @return true for an enhanced frame
     */
    public boolean enhanced() {
        return revision == 2 && (flags & ENHANCED) != 0;
    }

    /**
     * The private data length field.
     *
     * @return the number of private data bytes, block included
     */
    public int pdLength() {
        return privateData.length;
    }

    /**
     * The length of the frame on the wire.
     *
     * @return 20 plus the private data length
     */
    public int length() {
        return HEADER_LENGTH + privateData.length;
    }

    /**
     * The RFC 6581 block.
     *
     * @return the block, or empty when the frame is not {@link #enhanced()} or has under 4 bytes of private
     *     data
     */
    public Optional<IrdOrd> irdOrd() {
        return enhanced() && privateData.length >= IrdOrd.LENGTH
                ? Optional.of(IrdOrd.parse(privateData, 0)) : Optional.empty();
    }

    /**
     * The private data meant for the ULP: what follows the RFC 6581 block, or all of it without a block.
     *
     * @return a fresh copy
     */
    public byte[] ulpPrivateData() {
        return irdOrd().isPresent() ? Arrays.copyOfRange(privateData, IrdOrd.LENGTH, privateData.length)
                : privateData.clone();
    }

    /**
     * A one-line summary such as {@code Request flags=0x10 rev=2 pd=00010001}.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        return (request ? "Request" : "Reply") + String.format(" flags=0x%02x rev=%d pd=", flags, revision)
                + HexFormat.of().formatHex(privateData);
    }
}
