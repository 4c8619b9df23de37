package io.jdat.shm;

import java.lang.foreign.MemorySegment;

/**
 * Receives the records of a {@link ShmRing.Consumer}, one call per record, in order.
 *
 * <p>The payload is handed over in place: {@code segment} is the ring's own segment and the bytes at
 * {@code [offset, offset + length)} are valid only during the call (the producer may write over them afterwards).
 * The ring is shared with another process that may be hostile: the bounds are checked, the bytes are not,
 * and they may change while they are read. Read each byte once (copy, then validate the copy).
 */
@FunctionalInterface
public interface RecordHandler {
    /**
     * One record.
     *
     * @param type the record type, in 1 .. the consumer's maximum type
     * @param segment the ring's segment
     * @param offset where the payload starts in {@code segment}
     * @param length payload bytes, {@code 0 <= length <= RingDescriptor.maxPayload(capacity)}
     * @return {@code true} when the record is handled and may be consumed; {@code false} to leave it at the
     *         head of the ring (for example until a receive buffer is posted) and stop reading
     */
    boolean onRecord(int type, MemorySegment segment, long offset, int length);
}
