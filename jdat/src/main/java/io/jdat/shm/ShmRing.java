package io.jdat.shm;

import static io.jdat.shm.RingDescriptor.ACK_FIELD;
import static io.jdat.shm.RingDescriptor.CAPACITY_OFFSET;
import static io.jdat.shm.RingDescriptor.HEADER_LENGTH;
import static io.jdat.shm.RingDescriptor.HEAD_OFFSET;
import static io.jdat.shm.RingDescriptor.MAGIC;
import static io.jdat.shm.RingDescriptor.MAGIC_OFFSET;
import static io.jdat.shm.RingDescriptor.MAX_RECORD_OFFSET;
import static io.jdat.shm.RingDescriptor.PADDING_TYPE;
import static io.jdat.shm.RingDescriptor.RECORD_HEADER;
import static io.jdat.shm.RingDescriptor.SLEEPING_OFFSET;
import static io.jdat.shm.RingDescriptor.TAIL_OFFSET;
import static io.jdat.shm.RingDescriptor.TYPE_FIELD;
import static io.jdat.shm.RingDescriptor.VERSION;
import static io.jdat.shm.RingDescriptor.VERSION_OFFSET;
import static io.jdat.shm.RingDescriptor.align;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A single-producer single-consumer record ring in shared memory, laid out as {@link RingDescriptor}
 * documents. {@link #format} lays a ring out once; each side then attaches its own object, a {@link Producer}
 * or a {@link Consumer} (separate objects, so that two sides in one JVM do not share a Java cache line).
 * Each side is used by one thread at a time.
 *
 * <h2>Ordering</h2>
 * <ul>
 *   <li>Publication is per record: the producer writes type and payload with plain stores and then the
 *       length with a release store; the consumer reads the length with an acquire load, so a non-zero
 *       length it sees comes with the whole record.</li>
 *   <li>The next length reads 0: before it publishes a record (or a padding record), the producer zeroes the
 *       header word where the <em>next</em> record will start, the end of this one (a plain store, published
 *       by the same release of the length). A consumer reaches a position only through the record that ends
 *       there, so the length it reads at a position it reached is 0 until the record there is published, never
 *       a length left by a record of an earlier lap. That word must be free: a claim keeps one line of slack
 *       ({@code tail - head <= capacity - }{@link RingDescriptor#ALIGNMENT}). The consumer writes nothing in
 *       the data area (it zeroed the header word of every line it consumed before ring version 3: stores into
 *       lines the producer's core owned, which made the consumer's next fence wait for them; issue 18).</li>
 *   <li>Reuse: the consumer publishes head with a release store once it has handled the records below it;
 *       the producer reads head with an acquire load before it writes over those bytes, so the consumer's
 *       reads of a payload always come before the producer's new record there.</li>
 *   <li>Paired rings ({@link #pair}): the consumer's position rides on its side's next record in the other ring
 *       instead. The consumer stores its position in a Java field with a release store after it handled the
 *       records below it; its side's producer reads it with an acquire load at {@link Producer#commit} and writes
 *       it into the record's acknowledgement (a plain store, published by the release of the length); the
 *       peer's consumer reads it after the acquire of that length and hands it to its side's producer through a
 *       Java field (release store / acquire load), before the record's handler runs. Each link is a
 *       release/acquire pair, so the producer that reuses space on an acknowledgement sees whatever the
 *       consumer did while handling the records below it, as with head. Head is stored only when no record
 *       carried the position ({@link Consumer#publish}).</li>
 *   <li>Tail is informative (the consumer never derives an address from it): the producer stores it
 *       (opaque: atomic, no fence) <em>before</em> the record it covers, so a consumer that has read a record
 *       through the acquire of its length also sees a tail at least that far, and
 *       {@code 0 <= tail - head <= capacity} holds in every consumer check.</li>
 *   <li>Doorbell: a consumer about to block sets the sleeping flag (volatile store) and then re-reads the
 *       length at head (volatile load); a producer that must wake it publishes, issues a full fence and reads
 *       the flag ({@link Producer#consumerSleeping()}). It is Dekker's pattern: at least one of them sees the
 *       other's store, so a record is never left unseen by a consumer that went to sleep. The same holds for a
 *       paired consumer's head: its side stores it ({@link Consumer#publish}) and then looks at the peer's flag
 *       the same way; an acknowledgement travels in a record, covered by that record's doorbell.</li>
 * </ul>
 *
 * <h2>A hostile peer</h2>
 * The peer may write anything anywhere in the mapping. Each side keeps its own position and the capacity in
 * Java fields, works on a slice of exactly the ring's size, and validates what it reads from the peer
 * (record headers; the head the producer sees; the tail the consumer sees) before using it. A violation
 * throws {@link RingCorruptException}, and the side stays unusable afterwards. A consumer call handles at
 * most {@code limit} records and at most one capacity of bytes, so it always returns.
 *
 * <h2>Cache lines</h2>
 * A small record's latency is the number of cache lines that change cores on its way (some 65 ns each on the
 * 2-core VMs measured). Records start at line boundaries; the consumer waiting on an empty ring reads the line
 * after the head as well, so the second line of a two-line record (a 64-byte message with its headers) travels
 * with the first instead of after it; the producer stores the type and the length, the first line's words, at
 * {@link Producer#commit} (and {@link ShmTransmitter} writes a record's later lines before its first), so the
 * line the consumer polls is written in one burst and changes hands once; and the consumer writes nothing in
 * the data area. A two-line ping-pong through two rings costs about 230 ns one-way there, against 160 ns for
 * one line and for a bare spin on one word.
 *
 * <p>The hot paths allocate nothing.
 */
public final class ShmRing {
    /** int access with (MemorySegment, long offset) coordinates; the segment checks bounds and alignment. */
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    /** long access with (MemorySegment, long offset) coordinates. */
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** A cache line. */
    private static final int LINE_BYTES = 64;

    private ShmRing() {
    }

    /**
     * Lays out an empty ring of {@code capacity} at the start of {@code segment}: zeroes header and data area,
     * writes version and sizes, and the magic last with a release store (an attacher reads it with an
     * acquire load, so a valid magic comes with valid sizes). Call it before the peer attaches.
     *
     * @throws IllegalArgumentException if the capacity is not valid or the segment is too small, not native or
     *         not 8-byte aligned
     */
    public static void format(MemorySegment segment, int capacity) {
        format(segment, capacity, true);
    }

    /**
     * {@link #format} for a segment that is all zero already, a new file's mapping: writes only the header
     * fields, so that the data area's pages stay unbacked until records reach them (zeroing them made every
     * idle connection's two 1 MiB rings resident, issue 18).
     *
     * @throws IllegalArgumentException as {@link #format}
     */
    static void formatZeroed(MemorySegment segment, int capacity) {
        format(segment, capacity, false);
    }

    private static void format(MemorySegment segment, int capacity, boolean zero) {
        long total = RingDescriptor.totalLength(capacity);
        if (segment.byteSize() < total) {
            throw new IllegalArgumentException("segment of " + segment.byteSize() + " bytes, need " + total);
        }
        if (!segment.isNative() || (segment.address() & (Long.BYTES - 1)) != 0) {
            throw new IllegalArgumentException("need a native segment at an 8-byte aligned address");
        }
        MemorySegment ring = segment.asSlice(0, total);
        if (zero) {
            ring.fill((byte) 0);
        }
        ring.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
        ring.set(ValueLayout.JAVA_INT, CAPACITY_OFFSET, capacity);
        ring.set(ValueLayout.JAVA_INT, MAX_RECORD_OFFSET, RingDescriptor.maxRecordLength(capacity));
        INT.setRelease(ring, (long) MAGIC_OFFSET, MAGIC);
    }

    /** Attaches the producer side of the ring formatted at the start of {@code segment}. */
    public static Producer producer(MemorySegment segment) throws RingCorruptException {
        return new Producer(ringSlice(segment));
    }

    /**
     * Attaches the consumer side of the ring formatted at the start of {@code segment}; record types
     * outside {@code 1 .. maxType} are corruption.
     */
    public static Consumer consumer(MemorySegment segment, int maxType) throws RingCorruptException {
        if (maxType < 1) {
            throw new IllegalArgumentException("maxType < 1: " + maxType);
        }
        return new Consumer(ringSlice(segment), maxType);
    }

    /** Validates the header at the start of {@code segment} and returns a slice of exactly the ring. */
    private static MemorySegment ringSlice(MemorySegment segment) throws RingCorruptException {
        if (!segment.isNative() || (segment.address() & (Long.BYTES - 1)) != 0) {
            throw new IllegalArgumentException("need a native segment at an 8-byte aligned address");
        }
        if (segment.byteSize() < HEADER_LENGTH) {
            throw new RingCorruptException("segment of " + segment.byteSize() + " bytes holds no ring header");
        }
        // acquire: pairs with format's release of the magic, so the fields below are the formatted ones
        int magic = (int) INT.getAcquire(segment, (long) MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new RingCorruptException("no ring: magic 0x" + Integer.toHexString(magic));
        }
        int version = segment.get(ValueLayout.JAVA_INT, VERSION_OFFSET);
        if (version != VERSION) {
            throw new RingCorruptException("ring layout version " + version + ", expected " + VERSION);
        }
        int capacity = segment.get(ValueLayout.JAVA_INT, CAPACITY_OFFSET);
        if (!RingDescriptor.isValidCapacity(capacity)) {
            throw new RingCorruptException("invalid ring capacity " + capacity);
        }
        int maxRecord = segment.get(ValueLayout.JAVA_INT, MAX_RECORD_OFFSET);
        if (maxRecord != RingDescriptor.maxRecordLength(capacity)) {
            throw new RingCorruptException("max record " + maxRecord + " for capacity " + capacity);
        }
        long total = HEADER_LENGTH + (long) capacity;
        if (segment.byteSize() < total) {
            throw new RingCorruptException("ring of capacity " + capacity + " in a segment of "
                    + segment.byteSize() + " bytes");
        }
        return segment.asSlice(0, total);
    }

    /** What the two sides share: the ring's slice and its sizes, all read once at attach. */
    abstract static sealed class Side permits Producer, Consumer {
        final MemorySegment ring;
        final int capacity;
        final int mask;
        final int maxRecord;
        /** Set once the ring was found corrupt; every later call throws. */
        String corruption;

        Side(MemorySegment ring) {
            this.ring = ring;
            this.capacity = (int) (ring.byteSize() - HEADER_LENGTH);
            this.mask = capacity - 1;
            this.maxRecord = RingDescriptor.maxRecordLength(capacity);
        }

        /** The ring's segment: header and data area. Payload offsets are into this. */
        public MemorySegment segment() {
            return ring;
        }

        /** The data-area capacity in bytes. */
        public int capacity() {
            return capacity;
        }

        /** The largest payload one record can carry. */
        public int maxPayload() {
            return maxRecord - RECORD_HEADER;
        }

        /** Whether this side has found the ring corrupt (and stopped). */
        public boolean isCorrupt() {
            return corruption != null;
        }

        final RingCorruptException corrupt(String what) {
            if (corruption == null) {
                corruption = what;
            }
            return new RingCorruptException(what);
        }

        final void checkNotCorrupt() throws RingCorruptException {
            if (corruption != null) {
                throw new RingCorruptException("ring already found corrupt: " + corruption);
            }
        }
    }

    /** The producer side: writes records. One thread at a time. */
    public static final class Producer extends Side {
        /** {@link #acked}: release store by the partner consumer, acquire load here. */
        static final VarHandle ACKED = field(Producer.class, "acked");

        /** Our position: bytes ever claimed. Only this object writes the shared tail. */
        private long tail;
        /**
         * The consumer position last known (the larger of head and the last acknowledgement); space up to
         * {@code headCache + capacity} is known free.
         */
        private long headCache;
        /** The head last read from the ring header (it only grows). */
        private long headerHead;
        /** The consumer of the other ring of the pair ({@link #pair}), or null. */
        private Consumer partner;
        /**
         * The latest acknowledgement of this ring that the partner consumer found in the peer's records, as the
         * peer wrote it (validated when used); {@link #ACKED} release store by the partner, acquire load here.
         */
        @SuppressWarnings("unused") // through ACKED
        private long acked;
        /** Offset of the claimed, uncommitted record, or -1. */
        private long claimRecord = -1;
        private int claimLength;
        private int claimType;

        Producer(MemorySegment ring) throws RingCorruptException {
            super(ring);
            // opaque/acquire: a formatted ring is quiescent here; the modes only keep the loads atomic
            long t = (long) LONG.getOpaque(ring, (long) TAIL_OFFSET);
            long h = (long) LONG.getAcquire(ring, (long) HEAD_OFFSET);
            if (((t | h) & (RingDescriptor.ALIGNMENT - 1)) != 0 || h < 0 || t - h < 0 || t - h > capacity) {
                throw corrupt("positions at attach: tail " + t + ", head " + h);
            }
            tail = t;
            headCache = h;
            headerHead = h;
        }

        /**
         * Claims a record of {@code type} with {@code length} payload bytes and returns the offset of its
         * payload in {@link #segment()}, or -1 if the ring has no room now. Fill the payload, then
         * {@link #commit} it; until then the consumer sees nothing of it, and no other claim may be made.
         *
         * @throws IllegalArgumentException if {@code type < 1} or the length is outside
         *         {@code 0 .. maxPayload()}
         * @throws IllegalStateException if a claim is pending
         * @throws RingCorruptException if the head read from the ring breaks the invariants
         */
        public long tryClaim(int type, int length) throws RingCorruptException {
            checkNotCorrupt();
            if (claimRecord >= 0) {
                throw new IllegalStateException("a claim is pending");
            }
            if (type < 1) {
                throw new IllegalArgumentException("type < 1: " + type);
            }
            if (length < 0 || length > maxRecord - RECORD_HEADER) {
                throw new IllegalArgumentException("payload length " + length + " outside 0.."
                        + (maxRecord - RECORD_HEADER));
            }
            int recordLength = RECORD_HEADER + length;
            int aligned = align(recordLength);
            long t = tail;
            int index = (int) t & mask;
            int toEnd = capacity - index;
            int padding = aligned > toEnd ? toEnd : 0;
            long newTail = t + padding + aligned;
            // one line of slack: the header word at newTail, which commit zeroes, must not be unconsumed data
            if (newTail - headCache > capacity - RingDescriptor.ALIGNMENT
                    && newTail - refreshConsumerPosition() > capacity - RingDescriptor.ALIGNMENT) {
                return -1;
            }
            // opaque: tail is informative; the release of the length below orders this store before the
            // record for any consumer that reads the record (see the class comment)
            LONG.setOpaque(ring, (long) TAIL_OFFSET, newTail);
            if (padding != 0) {
                long pad = HEADER_LENGTH + index;
                // plain: the padding ends where the claimed record starts, at index 0; its header word must read
                // 0 (not a length of the last lap) to a consumer that passes the padding before the commit
                ring.set(ValueLayout.JAVA_LONG, (long) HEADER_LENGTH, 0L);
                ring.set(ValueLayout.JAVA_INT, pad + TYPE_FIELD, PADDING_TYPE);
                // release: the zero and the type above are visible with the length
                INT.setRelease(ring, pad, padding);
                index = 0;
            }
            long record = HEADER_LENGTH + index;
            claimType = type;
            tail = newTail;
            claimRecord = record;
            claimLength = recordLength;
            return record + RECORD_HEADER;
        }

        /**
         * Publishes the claimed record whose payload starts at {@code payloadOffset} (the value
         * {@link #tryClaim} returned).
         *
         * @throws IllegalStateException if that is not the pending claim
         */
        public void commit(long payloadOffset) {
            if (claimRecord < 0 || payloadOffset != claimRecord + RECORD_HEADER) {
                throw new IllegalStateException("no pending claim at " + payloadOffset);
            }
            // The type is stored here, next to the length, rather than at the claim: the record's first line,
            // which a waiting consumer keeps reading, is then written in one burst at the end.
            Consumer c = partner;
            // acquire: pairs with the partner's release of its position after it handled the records below it
            long ack = c == null ? 0 : (long) Consumer.HEAD.getAcquire(c);
            // plain: published by the release of the length below
            ring.set(ValueLayout.JAVA_LONG, claimRecord + ACK_FIELD, ack);
            // plain: the next record's header word (see the class comment: free, the claim kept a line of
            // slack); published by the release of the length below, so a consumer that reads this record and
            // moves on finds 0 there until the next record is published
            ring.set(ValueLayout.JAVA_LONG, HEADER_LENGTH + ((int) tail & mask), 0L);
            // plain: published by the release of the length below
            ring.set(ValueLayout.JAVA_INT, claimRecord + TYPE_FIELD, claimType);
            // release: type and payload (plain stores) become visible no later than the length; the consumer
            // reads the length with an acquire load
            INT.setRelease(ring, claimRecord, claimLength);
            claimRecord = -1;
            if (c != null) {
                // opaque: the partner only skips a store of head it no longer needs (a stale value costs a store)
                Consumer.CARRIED.setOpaque(c, ack);
            }
        }

        /**
         * Writes one record of {@code type} with the {@code length} bytes of {@code src} at {@code offset}.
         *
         * @return false if the ring has no room now (nothing written)
         * @throws RingCorruptException if the head read from the ring breaks the invariants
         */
        public boolean tryWrite(int type, MemorySegment src, long offset, int length) throws RingCorruptException {
            Objects.checkFromIndexSize(offset, length, src.byteSize()); // before the claim: no dangling claim
            long payload = tryClaim(type, length);
            if (payload < 0) {
                return false;
            }
            MemorySegment.copy(src, offset, ring, payload, length);
            commit(payload);
            return true;
        }

        /**
         * Writes one record of {@code type} whose payload is {@code headerLength} bytes of {@code header}
         * followed by {@code bodyLength} bytes of {@code body}, each copied once, straight into the ring.
         *
         * @return false if the ring has no room now (nothing written)
         * @throws RingCorruptException if the head read from the ring breaks the invariants
         */
        public boolean tryWrite(int type, MemorySegment header, long headerOffset, int headerLength,
                MemorySegment body, long bodyOffset, int bodyLength) throws RingCorruptException {
            Objects.checkFromIndexSize(headerOffset, headerLength, header.byteSize());
            Objects.checkFromIndexSize(bodyOffset, bodyLength, body.byteSize());
            int length = headerLength + bodyLength;
            if (length < 0) {
                throw new IllegalArgumentException("payload length overflows");
            }
            long payload = tryClaim(type, length);
            if (payload < 0) {
                return false;
            }
            MemorySegment.copy(header, headerOffset, ring, payload, headerLength);
            MemorySegment.copy(body, bodyOffset, ring, payload + headerLength, bodyLength);
            commit(payload);
            return true;
        }

        /**
         * Whether the consumer announced that it may block, so the producer must ring the doorbell (the
         * transport's wake-up mechanism) after publishing. Issues a full fence first: the StoreLoad barrier
         * between our release of the length and this load of the flag that Dekker's pattern needs.
         */
        public boolean consumerSleeping() {
            VarHandle.fullFence();
            return (int) INT.getVolatile(ring, (long) SLEEPING_OFFSET) != 0;
        }

        /** This side's position: bytes ever claimed, records and padding. */
        public long position() {
            return tail;
        }

        /**
         * The consumer's position (bytes it has consumed): the larger of head, read from the ring with an acquire
         * load, and the last acknowledgement of a paired ring. Every record that ends at or before it has been
         * handled by the consumer, and what the consumer did while handling it (its own stores) is visible to
         * this thread.
         *
         * @throws RingCorruptException if head goes back, or head or the acknowledgement passes the tail or is
         *         not a multiple of {@link RingDescriptor#ALIGNMENT}
         */
        public long consumerPosition() throws RingCorruptException {
            checkNotCorrupt();
            return refreshConsumerPosition();
        }

        /**
         * The larger of head and the last acknowledgement, each checked: head must not go back and neither may
         * pass the tail or leave the line grid. An acknowledgement older than what is known is ignored (head may
         * have passed it).
         */
        private long refreshConsumerPosition() throws RingCorruptException {
            long t = tail;
            // acquire: pairs with the partner consumer's release of the acknowledgement, itself after its acquire
            // of the record that carried it (see the class comment)
            long a = (long) ACKED.getAcquire(this);
            if (a > headCache) {
                if (a > t || (a & (RingDescriptor.ALIGNMENT - 1)) != 0) {
                    throw corrupt("acknowledged position " + a + " with tail " + t + " and last position "
                            + headCache);
                }
                headCache = a;
            }
            // acquire: pairs with the consumer's release of head after it handled the records below it
            long h = (long) LONG.getAcquire(ring, (long) HEAD_OFFSET);
            if (h < headerHead || h > t || (h & (RingDescriptor.ALIGNMENT - 1)) != 0) {
                throw corrupt("head " + h + " with tail " + t + " and last head " + headerHead);
            }
            headerHead = h;
            if (h > headCache) {
                headCache = h;
            }
            return headCache;
        }
    }

    /**
     * Pairs the two rings of a connection on one side: {@code in}, the ring this side consumes, and {@code out},
     * the ring it produces into. From then on every record {@code out} publishes acknowledges {@code in}'s
     * consumer position, {@code in}'s consumer stores head only in {@link Consumer#publish}, and the
     * acknowledgements {@code in} reads in the peer's records count as {@code out}'s consumer position. Both
     * sides of a connection pair their rings, before either uses them.
     *
     * @throws IllegalStateException if either is paired already
     */
    public static void pair(Consumer in, Producer out) {
        if (in.partner != null || out.partner != null) {
            throw new IllegalStateException("already paired");
        }
        in.partner = out;
        out.partner = in;
    }

    private static VarHandle field(Class<?> owner, String name) {
        try {
            return MethodHandles.lookup().findVarHandle(owner, name, long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The consumer side: reads records. One thread at a time. */
    public static final class Consumer extends Side {
        /** {@link #head}: release store here, acquire load by the partner producer. */
        static final VarHandle HEAD = field(Consumer.class, "head");
        /** {@link #carried}: opaque store by the partner producer, opaque load here. */
        static final VarHandle CARRIED = field(Consumer.class, "carried");

        private final int maxType;
        /**
         * Our position: bytes ever consumed. Only this object writes the shared head; the partner producer reads
         * this field ({@link #HEAD}) for its acknowledgements.
         */
        private long head;
        /** The position last stored in the ring header, or known to the peer from an acknowledgement. */
        private long published;
        /** The position the partner producer last acknowledged in a published record ({@link #CARRIED}). */
        @SuppressWarnings("unused") // through CARRIED
        private long carried;
        /** The largest acknowledgement read from the records (handed to the partner when it grows). */
        private long lastAck;
        /** Where {@link #scanAcknowledgements} stopped: a record boundary at or after head. */
        private long scanned;
        /** The producer of the other ring of the pair ({@link #pair}), or null: head is stored after every read. */
        private Producer partner;
        /** Sink of the look-ahead loads (a field, so that the compiler keeps them). */
        private long lookAhead;
        /**
         * During {@link #read}, before each handler call: the position after the records this call consumed so far
         * (head is stored in {@link #head} only when the call returns); 0 outside a read. A handler that ends the
         * connection calls {@link #publish} from inside the read, and the records consumed before its own must
         * count as handled: their requests complete at the peer, the failing one is the oldest unfinished one.
         */
        private long reading;

        Consumer(MemorySegment ring, int maxType) throws RingCorruptException {
            super(ring);
            this.maxType = maxType;
            long h = (long) LONG.getAcquire(ring, (long) HEAD_OFFSET);
            if (h < 0 || (h & (RingDescriptor.ALIGNMENT - 1)) != 0) {
                throw corrupt("head at attach: " + h);
            }
            head = h;
            published = h;
        }

        /**
         * Hands up to {@code limit} published records to {@code handler}, in order, and consumes each that
         * it accepts (also one whose handler call throws). A record the handler declines ({@code false}) stays
         * at the head, unconsumed, and ends the call: the next call offers it again. Returns at once when the
         * ring is empty; never handles more than one capacity of bytes per call.
         *
         * @return the number of records consumed (padding is not counted)
         * @throws RingCorruptException if a record header is invalid; the records before it are consumed
         */
        public int read(RecordHandler handler, int limit) throws RingCorruptException {
            checkNotCorrupt();
            final MemorySegment r = ring;
            final int cap = capacity;
            final long h = head;
            int count = 0;
            int bytes = 0;
            try {
                while (count < limit && bytes < cap) {
                    int index = (int) (h + bytes) & mask;
                    long record = HEADER_LENGTH + index;
                    // acquire: pairs with the producer's release of the length; type and payload are visible
                    int length = (int) INT.getAcquire(r, record);
                    if (length == 0) {
                        if (count == 0 && index + LINE_BYTES < cap) {
                            // Look ahead: an empty ring's consumer also reads the line after the head, so a
                            // record longer than one line reaches this core while it waits, in parallel, not
                            // miss after miss once the length is seen (a 64-byte payload spans two lines).
                            // plain: the value is not used; a torn or stale read is harmless
                            lookAhead += r.get(ValueLayout.JAVA_LONG, record + LINE_BYTES);
                        }
                        break;
                    }
                    int type = r.get(ValueLayout.JAVA_INT, record + TYPE_FIELD);
                    int toEnd = cap - index;
                    int aligned;
                    if (type == PADDING_TYPE) {
                        // only the exact rest of the data area, shorter than a maximum record
                        if (length != toEnd || length >= maxRecord) {
                            throw corrupt("padding of " + length + " at index " + index);
                        }
                        aligned = length;
                    } else {
                        if (type < 1 || type > maxType || length < RECORD_HEADER || length > maxRecord) {
                            throw corrupt("record type " + type + " length " + length + " at index " + index);
                        }
                        aligned = align(length);
                        if (aligned > toEnd) {
                            throw corrupt("record of " + length + " wraps at index " + index);
                        }
                        Producer p = partner;
                        if (p != null) {
                            // plain: published with the length read above; validated by the producer when used
                            long ack = r.get(ValueLayout.JAVA_LONG, record + ACK_FIELD);
                            if (ack > lastAck) {
                                lastAck = ack;
                                // release: after the acquire of the length, before the handler (which may complete
                                // the producer's requests on it: ShmTransmitter#completeHandled)
                                Producer.ACKED.setRelease(p, ack);
                            }
                        }
                        boolean consumed = true;
                        try {
                            reading = h + bytes;
                            consumed = handler.onRecord(type, r, record + RECORD_HEADER, length - RECORD_HEADER);
                        } finally {
                            if (consumed) {
                                bytes += aligned;
                                count++;
                            }
                        }
                        if (!consumed) {
                            if (partner != null) {
                                scanAcknowledgements(h + bytes);
                            }
                            break;
                        }
                        continue;
                    }
                    bytes += aligned;
                }
            } finally {
                reading = 0;
                if (bytes != 0) {
                    long newHead = h + bytes;
                    // release: our reads of the records (and what the handler did) come before the partner's
                    // acknowledgement of them
                    HEAD.setRelease(this, newHead);
                    if (partner == null) {
                        // release: as above, before the producer may reuse the bytes
                        LONG.setRelease(r, (long) HEAD_OFFSET, newHead);
                        published = newHead;
                    }
                }
            }
            return count;
        }

        /**
         * After the record at {@code from} was declined (no receive buffer, the EP no longer accepts): reads the
         * acknowledgements of the published records behind it without consuming them, so that the partner
         * producer learns what the peer handled although this side cannot handle the record yet. The peer relies
         * on it: it stores no head for a position one of its records acknowledged (a requester waiting for the
         * completion of an RDMA Write before it posts the receive buffer would otherwise wait for the receive
         * timeout). Goes on from where the last scan stopped; stops at the first unpublished or invalid header
         * (the read that reaches it reports an invalid one) and after one capacity of bytes.
         */
        private void scanAcknowledgements(long from) {
            final MemorySegment r = ring;
            final int cap = capacity;
            long at = Math.max(from, scanned);
            for (long end = from + cap; at < end; ) {
                int index = (int) at & mask;
                long record = HEADER_LENGTH + index;
                // acquire: pairs with the producer's release of the length, as in read
                int length = (int) INT.getAcquire(r, record);
                if (length == 0) {
                    break;
                }
                int type = r.get(ValueLayout.JAVA_INT, record + TYPE_FIELD);
                int toEnd = cap - index;
                if (type == PADDING_TYPE) {
                    if (length != toEnd || length >= maxRecord) {
                        break;
                    }
                    at += length;
                    continue;
                }
                if (type < 1 || type > maxType || length < RECORD_HEADER || length > maxRecord
                        || align(length) > toEnd) {
                    break;
                }
                long ack = r.get(ValueLayout.JAVA_LONG, record + ACK_FIELD);
                if (ack > lastAck) {
                    lastAck = ack;
                    Producer.ACKED.setRelease(partner, ack); // release: as in read
                }
                at += align(length);
            }
            scanned = at;
        }

        /**
         * Of a paired ring: stores head in the ring header (release store) if it moved since it was last stored
         * and no record of the partner has acknowledged it. The caller then looks at the peer's doorbell, as
         * after publishing a record: the peer's producer may be waiting for this position (completions, room).
         *
         * @return true if head was stored
         */
        public boolean publish() {
            // inside a read (a handler that ends the connection): what this read consumed before the handler's
            // record counts, else the peer would fail its oldest handled request instead of the one at fault
            long h = Math.max(head, reading);
            if (h == published) {
                return false;
            }
            // opaque: an acknowledgement written and published by the partner (see CARRIED)
            if ((long) CARRIED.getOpaque(this) >= h) {
                published = h;
                return false;
            }
            // release: our reads of the records (and what the handler did) come before the producer may reuse the
            // bytes
            LONG.setRelease(ring, (long) HEAD_OFFSET, h);
            published = h;
            return true;
        }

        /**
         * Bytes claimed by the producer and not yet consumed (some may be unpublished claims), from the
         * shared tail.
         *
         * @throws RingCorruptException if the tail breaks {@code 0 <= tail - head <= capacity}
         */
        public long available() throws RingCorruptException {
            checkNotCorrupt();
            // acquire: a tail no older than the records we have consumed (see the class comment)
            long t = (long) LONG.getAcquire(ring, (long) TAIL_OFFSET);
            long d = t - head;
            if (d < 0 || d > capacity || (t & (RingDescriptor.ALIGNMENT - 1)) != 0) {
                throw corrupt("tail " + t + " with head " + head);
            }
            return d;
        }

        /**
         * Announces that this consumer may block: sets the sleeping flag, then checks once more for a
         * published record. Returns true if the ring is still empty (the consumer may now wait for the
         * producer's doorbell), false if a record arrived (the flag is cleared again: read it).
         */
        public boolean prepareToSleep() throws RingCorruptException {
            checkNotCorrupt();
            // volatile store then volatile load: no StoreLoad reordering (Dekker, see the class comment)
            INT.setVolatile(ring, (long) SLEEPING_OFFSET, 1);
            int length = (int) INT.getVolatile(ring, HEADER_LENGTH + ((int) head & mask));
            if (length != 0) {
                awake();
                return false;
            }
            available(); // validates the tail while idle, off the hot path
            return true;
        }

        /**
         * Clears the sleeping flag (opaque: the producer merely rings a doorbell it did not need to). Unlike the
         * other consumer methods it may run concurrently with {@link #read} on another thread: it touches only
         * the flag.
         */
        public void awake() {
            INT.setOpaque(ring, (long) SLEEPING_OFFSET, 0);
        }

        /** This side's position: bytes ever consumed. */
        public long position() {
            return head;
        }
    }
}
