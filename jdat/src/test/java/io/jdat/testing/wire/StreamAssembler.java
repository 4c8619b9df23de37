package io.jdat.testing.wire;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Rebuilds the byte stream of one direction of a TCP connection from its segments, in sequence order.
 * The first captured copy of a byte wins: a retransmission (whole or partial, even with other content) adds
 * only bytes not captured before. Sequence numbers wrap modulo 2^32. The stream ends at the first hole (bytes
 * never captured).
 */
final class StreamAssembler {
    /** One captured piece of data: its sequence number and bytes. */
    private record Piece(long seq, byte[] data) {}

    private final List<Piece> pieces = new ArrayList<>();
    private long firstByteSeq = -1;

    /**
     * Records the SYN of this direction: the first data byte has sequence number {@code isn + 1}.
     *
     * @param isn the initial sequence number carried by the SYN
     */
    void syn(long isn) {
        firstByteSeq = (isn + 1) & 0xFFFF_FFFFL;
    }

    /**
     * Adds the payload of one segment.
     *
     * @param seq the sequence number of {@code data[0]}
     * @param data the payload bytes (may be empty)
     */
    void add(long seq, byte[] data) {
        if (data.length > 0) {
            pieces.add(new Piece(seq, data));
        }
    }

    /**
     * The assembled stream.
     *
     * @return the bytes from the first byte after the SYN (or, without a SYN, from the lowest sequence number
     *     seen) up to the first hole or the end, and whether a hole cut it short
     */
    Assembled assemble() {
        if (pieces.isEmpty()) {
            return new Assembled(new byte[0], false);
        }
        long reference = firstByteSeq >= 0 ? firstByteSeq : pieces.get(0).seq();
        long[] offsets = new long[pieces.size()];
        long lowest = 0;
        long highest = 0;
        for (int i = 0; i < pieces.size(); i++) {
            offsets[i] = (int) (pieces.get(i).seq() - reference); // signed distance: handles the wrap
            lowest = Math.min(lowest, offsets[i]);
            highest = Math.max(highest, offsets[i] + pieces.get(i).data().length);
        }
        long base = firstByteSeq >= 0 ? 0 : lowest;
        if (highest - base > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("stream spans " + (highest - base) + " bytes");
        }
        int size = (int) Math.max(0, highest - base);
        byte[] bytes = new byte[size];
        BitSet placed = new BitSet(size);
        for (int i = 0; i < pieces.size(); i++) { // capture order: the first copy of a byte wins
            byte[] data = pieces.get(i).data();
            for (int j = 0; j < data.length; j++) {
                long at = offsets[i] - base + j;
                if (at >= 0 && !placed.get((int) at)) {
                    bytes[(int) at] = data[j];
                    placed.set((int) at);
                }
            }
        }
        int prefix = placed.nextClearBit(0);
        boolean hole = prefix < size;
        return new Assembled(prefix == size ? bytes : Arrays.copyOf(bytes, prefix), hole);
    }

    /**
     * An assembled direction.
     *
     * @param bytes the stream bytes in order
     * @param hole whether bytes after {@code bytes} were captured but could not be placed because of a hole
     */
    record Assembled(byte[] bytes, boolean hole) {}
}
