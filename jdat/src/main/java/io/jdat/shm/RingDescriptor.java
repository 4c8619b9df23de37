package io.jdat.shm;

/**
 * Layout of one single-producer single-consumer record ring inside a {@link java.lang.foreign.MemorySegment}
 * (normally a region of a memory-mapped file shared by two processes). All offsets are from the start of the
 * ring's segment; every multi-byte field is in the platform's native byte order (both sides run on one host).
 *
 * <h2>Header ({@value #HEADER_LENGTH} bytes)</h2>
 * Each counter has a {@value #LINE}-byte block to itself: x86 prefetches adjacent 64-byte lines in pairs, so
 * 64-byte spacing would still let the producer's and the consumer's stores disturb each other.
 * <table>
 *   <caption>Ring header</caption>
 *   <tr><th>Offset</th><th>Size</th><th>Field</th><th>Written by</th><th>Access</th></tr>
 *   <tr><td>{@value #MAGIC_OFFSET}</td><td>4</td><td>magic {@code 0x4A445352} ("JDSR" read as a big-endian
 *       int)</td><td>{@link ShmRing#format format}, last</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #VERSION_OFFSET}</td><td>4</td><td>layout version ({@value #VERSION})</td>
 *       <td>format</td><td>plain, read once at attach</td></tr>
 *   <tr><td>{@value #CAPACITY_OFFSET}</td><td>4</td><td>capacity of the data area in bytes: a power of two
 *       in [{@value #MIN_CAPACITY}, {@value #MAX_CAPACITY}]</td><td>format</td><td>plain, read once</td></tr>
 *   <tr><td>{@value #MAX_RECORD_OFFSET}</td><td>4</td><td>maximum record length = capacity / 8 (checked
 *       against the capacity at attach)</td><td>format</td><td>plain, read once</td></tr>
 *   <tr><td>16 .. 127</td><td>112</td><td>reserved, zero</td><td>format</td><td>-</td></tr>
 *   <tr><td>{@value #TAIL_OFFSET}</td><td>8</td><td>tail: producer position, bytes ever claimed (records
 *       and padding); rest of the block unused</td><td>producer</td><td>opaque store; acquire load</td></tr>
 *   <tr><td>{@value #HEAD_OFFSET}</td><td>8</td><td>head: consumer position, bytes ever consumed</td>
 *       <td>consumer</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #SLEEPING_OFFSET}</td><td>4</td><td>consumer-sleeping flag for a doorbell protocol
 *       (0 awake, 1 may block: the producer must ring its doorbell)</td><td>consumer</td>
 *       <td>volatile store; read by the producer after a full fence</td></tr>
 *   <tr><td>{@value #HEADER_LENGTH}</td><td>capacity</td><td>data area</td><td>the producer (records, and
 *       the zeroed header word of the next record); the consumer only reads</td><td>see below</td></tr>
 * </table>
 * The producer's cached copy of head lives in a Java field of the producer, not in the mapping: nothing else
 * reads it, and a peer can then not corrupt it.
 * Positions (head, tail) are byte counts that only grow; the index in the data area is
 * {@code position & (capacity - 1)}. Invariant: {@code 0 <= tail - head <= capacity}, both multiples of
 * {@value #ALIGNMENT}; the producer claims no record that would leave less than one
 * {@value #ALIGNMENT}-byte line free ({@code tail - head <= capacity - }{@value #ALIGNMENT}).
 *
 * <h2>Records</h2>
 * <table>
 *   <caption>Record layout, at a {@value #ALIGNMENT}-byte aligned index of the data area</caption>
 *   <tr><th>Offset</th><th>Size</th><th>Field</th></tr>
 *   <tr><td>{@value #LENGTH_FIELD}</td><td>4</td><td>length: header + payload bytes (not padded), published
 *       last with a release store; 0 = nothing published here yet</td></tr>
 *   <tr><td>{@value #TYPE_FIELD}</td><td>4</td><td>type: 1 .. the consumer's maximum type, or
 *       {@value #PADDING_TYPE} (padding)</td></tr>
 *   <tr><td>{@value #ACK_FIELD}</td><td>8</td><td>acknowledgement: the producing side's consumer position of the
 *       <em>other</em> ring of the pair ({@link ShmRing#pair}), 0 when the ring is not paired; not read in
 *       padding</td></tr>
 *   <tr><td>{@value #RECORD_HEADER}</td><td>length - {@value #RECORD_HEADER}</td><td>payload, then unspecified
 *       bytes up to the next multiple of {@value #ALIGNMENT}</td></tr>
 * </table>
 * A record never wraps. When one does not fit between the tail index and the end of the data area, the
 * producer first fills that rest with one {@link #PADDING_TYPE} record whose length is exactly the rest; a
 * padding record anywhere else is corruption. The maximum record length (header included) is
 * {@code capacity / 8}, so padding wastes at most an eighth of the ring and an empty ring always has room.
 * Before it publishes a record (or padding), the producer zeroes the first 8 bytes (length and type) where the
 * next record will start, the record's end, so that a length the consumer reads at a position it reached is 0
 * until the record there is published; every other byte of the data area keeps whatever an earlier record left
 * there (the consumer writes nothing in it).
 *
 * <h2>Paired rings: the head rides on the answer</h2>
 * The two rings of a connection are a pair: each side consumes one and produces into the other. A paired
 * consumer does not store head after every read: its position rides in the {@value #ACK_FIELD} field of the next
 * record its side produces into the other ring (the answer, which the peer reads anyway), and head is stored
 * only when no record carried the position ({@link ShmRing.Consumer#publish}). The peer's producer takes the
 * larger of head and the last acknowledgement as the consumer position.
 */
public final class RingDescriptor {
    /** Spacing of the counters: two 64-byte cache lines (the adjacent-line prefetcher's pair). */
    public static final int LINE = 128;
    /** Offset of the magic number. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the data-area capacity. */
    public static final int CAPACITY_OFFSET = 8;
    /** Offset of the maximum record length. */
    public static final int MAX_RECORD_OFFSET = 12;
    /** Offset of the producer position. */
    public static final int TAIL_OFFSET = LINE;
    /** Offset of the consumer position. */
    public static final int HEAD_OFFSET = 2 * LINE;
    /** Offset of the consumer-sleeping flag. */
    public static final int SLEEPING_OFFSET = 3 * LINE;
    /** Length of the header; the data area starts here. */
    public static final int HEADER_LENGTH = 4 * LINE;

    /** "JDSR" as a big-endian int. */
    public static final int MAGIC = 0x4A44_5352;
    /**
     * The layout described here (1: 8-byte record alignment, every consumed byte zeroed; 2: line-aligned records,
     * the consumer zeroes the header word of the lines it consumed; 3: the producer zeroes the next record's
     * header word, the consumer writes nothing in the data area; 4: a 16-byte record header with the
     * acknowledgement of the paired ring).
     */
    public static final int VERSION = 4;
    /** Smallest data area: its largest record is two lines. */
    public static final int MIN_CAPACITY = 1024;
    /** Largest data area (positions are longs, indexes ints). */
    public static final int MAX_CAPACITY = 1 << 30;

    /** Offset of a record's length within the record. */
    public static final int LENGTH_FIELD = 0;
    /** Offset of a record's type within the record. */
    public static final int TYPE_FIELD = 4;
    /** Offset of a record's acknowledgement (a consumer position of the paired ring) within the record. */
    public static final int ACK_FIELD = 8;
    /** Record header length; the payload starts here. */
    public static final int RECORD_HEADER = 16;
    /**
     * Records start at multiples of this: a cache line. A record's first line, where the length is, then holds
     * nothing of the record before it, and the consumer waits on a line that only the next record's
     * publication writes.
     */
    public static final int ALIGNMENT = 64;
    /** Type of a padding record. */
    public static final int PADDING_TYPE = -1;

    private RingDescriptor() {
    }

    /** Whether {@code capacity} is a legal data-area capacity. */
    public static boolean isValidCapacity(long capacity) {
        return capacity >= MIN_CAPACITY && capacity <= MAX_CAPACITY && Long.bitCount(capacity) == 1;
    }

    /** The maximum record length (header included) of a ring of {@code capacity}. */
    public static int maxRecordLength(int capacity) {
        return capacity / 8;
    }

    /** The maximum payload of a ring of {@code capacity}. */
    public static int maxPayload(int capacity) {
        return maxRecordLength(capacity) - RECORD_HEADER;
    }

    /** Bytes a ring of {@code capacity} occupies: header and data area. */
    public static long totalLength(int capacity) {
        checkCapacity(capacity);
        return HEADER_LENGTH + (long) capacity;
    }

    /** {@code length} rounded up to {@link #ALIGNMENT}. */
    static int align(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    static void checkCapacity(long capacity) {
        if (!isValidCapacity(capacity)) {
            throw new IllegalArgumentException("capacity must be a power of two in [" + MIN_CAPACITY + ", "
                    + MAX_CAPACITY + "]: " + capacity);
        }
    }
}
