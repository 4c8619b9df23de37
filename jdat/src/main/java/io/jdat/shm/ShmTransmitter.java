package io.jdat.shm;

import io.jdat.DtoCompletionStatus;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.IoVector;
import io.jdat.spi.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The transmit path of one {@code shm} connection: turns this side's work requests into records of the
 * outgoing ring ({@link Records}), in posting order, and completes them in that order once the peer has
 * handled them. All state is guarded by the connection's {@code txLock}.
 *
 * <p>Choice of record: a Send or RDMA Write of at most the inline size travels in the ring (two copies, no
 * system call); a larger one names its memory for the peer to read with cross-memory attach (one copy by the
 * kernel) when the peer can reach this process, else goes in fragments through the ring. An RDMA Read names
 * the destination for the peer to write with cross-memory attach, else asks for the bytes through the peer's
 * staging area.
 *
 * <p>Completion: each request remembers the ring position after its last record; it is complete when the
 * peer's consumer position has passed it, which the peer publishes only after it handled the record (placed
 * the Send, checked and moved the RDMA bytes). A request the ring has no room for waits, with everything
 * behind it, and is written by a later {@link #progress} pass. Nothing allocates once the queue has grown to
 * the connection's depth.
 */
final class ShmTransmitter {
    private final ShmConnection conn;
    private final ShmRing.Producer out;
    private final MemorySegment ring;
    private final int inline;
    private final int fragPayload;
    private volatile boolean crossMemory;
    /** The peer may map this process's {@link ShmMemory}. */
    private volatile boolean shared;
    // The shared-memory ids and offsets of the request being written (sharedIov).
    private long[] sharedIds = new long[8];
    private long[] sharedOffsets = new long[8];
    private final long[] found = new long[1];

    // Outstanding requests, a growable ring buffer in submit order.
    private WorkRequest[] wrs = new WorkRequest[64];
    private long[] endPos = new long[64];
    private int head;
    private int count;
    /** How many requests from {@link #head} are completely written. */
    private int written;
    /** Bytes of the first unwritten request already written as fragments. */
    private long fragOffset;
    /**
     * Outstanding work (read without the lock by pollers to skip idle connections, volatile). Written under
     * {@code txLock} with release stores ({@link #BUSY}), not volatile ones: no reader needs the store ordered
     * before a later load of the writer (a full fence on x86, on every post and completion). A poller that
     * handled an answer of the peer reads it after its acquire of that record, which the peer wrote after it
     * handled ours, published after this store: it sees true.
     */
    private volatile boolean busy;
    private static final VarHandle BUSY;

    static {
        try {
            BUSY = MethodHandles.lookup().findVarHandle(ShmTransmitter.class, "busy", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // RDMA Reads served through the peer's staging area, in order, with the bytes received so far.
    private WorkRequest[] stagedReads = new WorkRequest[16];
    private int stagedHead;
    private int stagedCount;
    private long stagedFilled;

    private boolean stopped;
    /** Stores RDMA Writes into the peer's memory itself, when it can check them ({@code txLock}); or null. */
    private DirectStore direct;
    private long directWrites;
    /** Of those, the ones placed at once for the core ({@link #writeNow}), with no request kept here. */
    private long placedAtOnce;
    /** The peer's consumer position when the ring was last found full. */
    private long blockedAt = -1;

    ShmTransmitter(ShmConnection conn, ShmRing.Producer out, int inline) {
        this.conn = conn;
        this.out = out;
        this.ring = out.segment();
        this.inline = inline;
        int fp = out.maxPayload() - Records.MAX_HEADER;
        this.fragPayload = Math.min(fp & -8, 256 * 1024);
    }

    /** Sets the direct store into the peer's memory, or null for none ({@code txLock} held, before the start). */
    void setDirect(DirectStore d) {
        direct = d;
    }

    /** Unmaps the direct store's files ({@code txLock} held, the connection unmapping). */
    void closeDirect() {
        if (direct != null) {
            direct.close();
        }
    }

    /** Whether a target file the direct store mapped was truncated ({@code txLock} held). */
    boolean directTruncated() {
        return direct != null && direct.truncated();
    }

    /** Direct RDMA Writes placed at once for the core ({@code txLock}; tests read it to see the path taken). */
    long placedAtOnce() {
        return placedAtOnce;
    }

    /** RDMA Writes stored directly ({@code txLock}; tests read it to see the path taken). */
    long directWrites() {
        return directWrites;
    }

    void setPaths(boolean crossMemory, boolean shared) {
        this.crossMemory = crossMemory;
        this.shared = shared;
    }

    boolean busy() {
        return busy;
    }

    /** Called with the EP's posting lock held. */
    void submit(WorkRequest wr) {
        ShmConnection.lockSpinning(conn.txLock);
        try {
            if (stopped) {
                return;
            }
            if (count == wrs.length) {
                grow();
            }
            int i = (head + count) & (wrs.length - 1);
            wrs[i] = wr;
            endPos[i] = Long.MAX_VALUE;
            count++;
            BUSY.setRelease(this, true);
            if (written == count - 1) {
                if (direct != null && wr.op() == WorkRequest.Op.RDMA_WRITE
                        && out.consumerPosition() == out.position() && direct.write(wr)) {
                    // Stored by this thread into the target's memory (DirectStore), which is DAT's order: every
                    // earlier request of the EP is written and handled by the peer (its consumer position is
                    // our tail), so the bytes land after theirs; a later Send's record is published (release)
                    // after this copy, so the target sees these bytes when it sees the Send. It completes now,
                    // behind any earlier request still to be reaped.
                    endPos[i] = out.position();
                    written++;
                    directWrites++;
                    reap();
                } else {
                    writePending();
                }
            }
            if (wr.op() == WorkRequest.Op.RMR_BIND && written == count) {
                reap();
            }
        } catch (RingCorruptException | InternalError | IllegalStateException | IndexOutOfBoundsException e) {
            broken(e); // the request is flushed
        } finally {
            conn.txLock.unlock();
        }
    }

    /**
     * The core's {@code Channel.writeNow}: a {@code SUPPRESS}ed RDMA Write with nothing outstanding on the EP,
     * stored now by this thread into the target's memory ({@link DirectStore}) if it can check it; then it is
     * complete and this side keeps no trace of it. Same conditions as the direct store in {@link #submit}: no
     * request of this side is outstanding here either, and the peer handled every record this side wrote (its
     * consumer position is our tail), so the bytes land after those of every earlier request, and a later Send's
     * record is published (release) after this copy. False, with nothing done, otherwise: the core submits it.
     */
    boolean writeNow(WorkRequest wr) {
        if (direct == null) {
            return false; // no direct store on this connection: no lock either
        }
        ShmConnection.lockSpinning(conn.txLock);
        try {
            if (stopped || count != 0 || out.consumerPosition() != out.position() || !direct.write(wr)) {
                return false;
            }
            directWrites++;
            placedAtOnce++;
            return true;
        } catch (RingCorruptException | InternalError | IllegalStateException | IndexOutOfBoundsException e) {
            broken(e); // the core then submits it, and the ending flushes it
            return false;
        } finally {
            conn.txLock.unlock();
        }
    }

    /** Writes waiting requests and completes handled ones ({@code txLock} held). */
    boolean progress() {
        if (stopped) {
            return false;
        }
        try {
            boolean p = false;
            if (written < count) {
                p = writePending();
            }
            return reap() | p;
        } catch (RingCorruptException | InternalError | IllegalStateException | IndexOutOfBoundsException e) {
            broken(e);
            return false;
        }
    }

    /**
     * Whether a completion or a waiting request could go on now: for the last look before the connection goes cold
     * or the progress thread blocks, after the flag that makes the peer notify was set (the peer then notifies for
     * anything it does afterwards). Only tries the lock: its holder is posting or completing on this connection.
     *
     * @return {@link ShmConnection#SLEEP} (nothing), {@link ShmConnection#WORK} or {@link ShmConnection#BUSY} (the
     *         lock is held)
     */
    int sleepCheck() throws RingCorruptException {
        if (!conn.txLock.tryLock()) {
            return ShmConnection.BUSY;
        }
        try {
            if (stopped || count == 0) {
                return ShmConnection.SLEEP;
            }
            long pos = out.consumerPosition();
            return (written > 0 && endPos[head] <= pos) || (written < count && pos != blockedAt)
                    ? ShmConnection.WORK : ShmConnection.SLEEP;
        } catch (InternalError | IllegalStateException e) {
            broken(e);
            return ShmConnection.WORK;
        } finally {
            conn.txLock.unlock();
        }
    }

    /**
     * Completes the requests the peer has handled, before a receive completion of the connection is delivered
     * ({@code rxLock} held; takes {@code txLock}, the usual order). Nothing to do, and no lock, when no request
     * is outstanding ({@link #busy} is volatile: a request submitted after this load completes after the
     * receive anyway). A fault is left to the next {@link #progress}, which reports it.
     */
    void completeHandled() {
        if (!busy) {
            return;
        }
        ShmConnection.lockSpinning(conn.txLock);
        try {
            if (!stopped) {
                reap();
            }
        } catch (RingCorruptException | InternalError | IllegalStateException | IndexOutOfBoundsException e) {
            // reported by the pass's progress() right after the receive, as before
        } finally {
            conn.txLock.unlock();
        }
    }

    /** Completes the requests the peer has handled ({@code txLock} held). */
    private boolean reap() throws RingCorruptException {
        ChannelSink sink = conn.sink;
        if (written == 0 || sink == null) {
            return false;
        }
        long pos = out.consumerPosition();
        boolean any = false;
        while (written > 0 && endPos[head] <= pos) {
            WorkRequest wr = wrs[head];
            wrs[head] = null;
            head = (head + 1) & (wrs.length - 1);
            count--;
            written--;
            any = true;
            long len = switch (wr.op()) {
                case SEND, RDMA_WRITE -> wr.totalLength();
                case RDMA_READ -> wr.remoteLength();
                case RMR_BIND -> 0;
            };
            sink.requestCompleted(DtoCompletionStatus.SUCCESS, len);
        }
        BUSY.setRelease(this, count > 0);
        return any;
    }

    /**
     * The ring is corrupt ({@link RingCorruptException}), or its mapping faulted (the file was truncated: SIGBUS,
     * raised as an {@link InternalError}) or is gone: the connection fails as corrupted by the peer.
     */
    private void broken(Throwable e) {
        conn.rx.peerCorrupt(e instanceof RingCorruptException ? e.getMessage()
                : "the connection's mapping failed: " + e);
    }

    /**
     * The peer ended the connection: completes what it handled and, if it broke the connection because of
     * this side's oldest unfinished request, fails that one with {@code status}; nothing completes afterwards.
     */
    void peerEnded(DtoCompletionStatus status) {
        conn.txLock.lock();
        try {
            if (stopped) {
                return;
            }
            try {
                reap();
            } catch (RingCorruptException e) {
                // the peer is gone; what it handled is uncertain: the core flushes it
            }
            ChannelSink sink = conn.sink;
            if (status != null && count > 0 && sink != null) {
                wrs[head] = null;
                count = 0;
                sink.requestCompleted(status, 0);
            }
            stopped = true;
            busy = false;
        } finally {
            conn.txLock.unlock();
        }
    }

    /** The connection closes: no more writes or completions ({@code txLock} held). */
    void stop() {
        stopped = true;
        busy = false;
        for (int i = 0; i < wrs.length; i++) {
            wrs[i] = null;
        }
        for (int i = 0; i < stagedReads.length; i++) {
            stagedReads[i] = null;
        }
        count = 0;
        written = 0;
        stagedCount = 0;
    }

    private void grow() {
        int n = wrs.length * 2;
        WorkRequest[] w = new WorkRequest[n];
        long[] e = new long[n];
        for (int k = 0; k < count; k++) {
            int i = (head + k) & (wrs.length - 1);
            w[k] = wrs[i];
            e[k] = endPos[i];
        }
        wrs = w;
        endPos = e;
        head = 0;
    }

    private boolean writePending() throws RingCorruptException {
        boolean any = false;
        long published = out.position();
        while (written < count) {
            int i = (head + written) & (wrs.length - 1);
            if (!write(wrs[i])) {
                blockedAt = out.consumerPosition();
                break;
            }
            endPos[i] = out.position();
            written++;
            any = true;
        }
        if (out.position() == published) {
            return any;
        }
        // also the fragments of a request the full ring cut short: a peer that does not watch the connection
        // would not see them (a sleeping one looked for them only at its select's timeout before issue 18)
        conn.notifyPeer();
        return true;
    }

    /**
     * Whether the peer does not watch this connection (it set the consumer-sleeping flag of our outgoing ring,
     * the ring it consumes), read behind a full fence ({@link ShmRing.Producer#consumerSleeping()}); any
     * thread that published before.
     */
    boolean peerUnwatched() {
        return out.consumerSleeping();
    }

    /** Writes one request's records; false when the ring is full (fragments written so far are kept). */
    private boolean write(WorkRequest wr) throws RingCorruptException {
        return switch (wr.op()) {
            case SEND -> writeSend(wr);
            case RDMA_WRITE -> writeRdmaWrite(wr);
            case RDMA_READ -> writeRead(wr);
            case RMR_BIND -> true;
        };
    }

    private boolean writeSend(WorkRequest wr) throws RingCorruptException {
        long len = wr.totalLength();
        int flags = wr.solicited() ? Records.SOLICITED : 0;
        if (len <= inline) {
            long p = out.tryClaim(Records.SEND_INLINE, Records.SEND_INLINE_HEADER + (int) len);
            if (p < 0) {
                return false;
            }
            gatherLastLineFirst(wr, p, Records.SEND_INLINE_HEADER, len);
            ring.set(ValueLayout.JAVA_INT, p + Records.FLAGS_OFFSET, flags);
            ring.set(ValueLayout.JAVA_INT, p + Records.COUNT_OFFSET, 0);
            out.commit(p);
            return true;
        }
        int list = listKind(wr, Records.SEND_XMEM_HEADER);
        if (list != NO_LIST) {
            return writeList(list == SHARED ? Records.SEND_SHARED : Records.SEND_XMEM, Records.SEND_XMEM_HEADER, wr,
                    flags, len, 0, list == SHARED);
        }
        return writeFragments(wr, len, true, flags);
    }

    private boolean writeRdmaWrite(WorkRequest wr) throws RingCorruptException {
        long len = wr.totalLength();
        if (len <= inline) {
            long p = out.tryClaim(Records.WRITE_INLINE, Records.WRITE_INLINE_HEADER + (int) len);
            if (p < 0) {
                return false;
            }
            gatherLastLineFirst(wr, p, Records.WRITE_INLINE_HEADER, len);
            ring.set(ValueLayout.JAVA_INT, p + Records.CONTEXT_OFFSET, wr.remoteContext());
            ring.set(ValueLayout.JAVA_INT, p + Records.COUNT_OFFSET, 0);
            ring.set(ValueLayout.JAVA_LONG, p + Records.ADDRESS_OFFSET, wr.remoteAddress());
            out.commit(p);
            return true;
        }
        int list = listKind(wr, Records.WRITE_XMEM_HEADER);
        if (list != NO_LIST) {
            return writeList(list == SHARED ? Records.WRITE_SHARED : Records.WRITE_XMEM, Records.WRITE_XMEM_HEADER, wr,
                    wr.remoteContext(), wr.remoteAddress(), len, list == SHARED);
        }
        return writeFragments(wr, len, false, 0);
    }

    /**
     * Writes {@code wr}'s {@code len} bytes from {@link #fragOffset} on as Send fragments ({@code send}, with
     * {@code flags}) or RDMA Write fragments; false when the ring is full (the fragments written so far are
     * kept and the next call goes on from there).
     */
    private boolean writeFragments(WorkRequest wr, long len, boolean send, int flags) throws RingCorruptException {
        int header = send ? Records.SEND_FRAG_HEADER : Records.WRITE_FRAG_HEADER;
        while (fragOffset < len) {
            int n = (int) Math.min(fragPayload, len - fragOffset);
            long p = out.tryClaim(send ? Records.SEND_FRAG : Records.WRITE_FRAG, header + n);
            if (p < 0) {
                return false;
            }
            ring.set(ValueLayout.JAVA_INT, p + Records.COUNT_OFFSET, 0);
            if (send) {
                boolean last = fragOffset + n == len;
                ring.set(ValueLayout.JAVA_INT, p + Records.FLAGS_OFFSET, flags | (last ? Records.LAST : 0));
                ring.set(ValueLayout.JAVA_LONG, p + Records.SEND_TOTAL_OFFSET, len);
                ring.set(ValueLayout.JAVA_LONG, p + Records.SEND_FRAG_START_OFFSET, fragOffset);
            } else {
                ring.set(ValueLayout.JAVA_INT, p + Records.CONTEXT_OFFSET, wr.remoteContext());
                ring.set(ValueLayout.JAVA_LONG, p + Records.ADDRESS_OFFSET, wr.remoteAddress());
                ring.set(ValueLayout.JAVA_LONG, p + Records.TOTAL_OFFSET, len);
                ring.set(ValueLayout.JAVA_LONG, p + Records.WRITE_FRAG_START_OFFSET, fragOffset);
            }
            wr.gather(fragOffset, ring, p + header, n);
            out.commit(p);
            fragOffset += n;
        }
        fragOffset = 0;
        return true;
    }

    /**
     * Copies {@code wr}'s {@code len} bytes into the claimed record whose payload starts at {@code p}, after a
     * header of {@code header} bytes: first the part past the record's first cache line, then the part in it.
     * The caller then writes the header and commits, so the first line, the one the peer's consumer keeps
     * reading while it waits, is written in one burst at the end and changes hands once.
     */
    private void gatherLastLineFirst(WorkRequest wr, long p, int header, long len) {
        long firstLine = Math.min(len, Math.max(0, RingDescriptor.ALIGNMENT - RingDescriptor.RECORD_HEADER - header));
        if (len > firstLine) {
            wr.gather(firstLine, ring, p + header + firstLine, len - firstLine);
        }
        if (firstLine > 0) {
            wr.gather(0, ring, p + header, firstLine);
        }
    }

    private boolean writeRead(WorkRequest wr) throws RingCorruptException {
        int list = listKind(wr, Records.READ_HEADER);
        if (list != NO_LIST) {
            return writeList(list == SHARED ? Records.READ_SHARED : Records.READ, Records.READ_HEADER, wr,
                    wr.remoteContext(), wr.remoteAddress(), wr.remoteLength(), list == SHARED);
        }
        // An empty list: the peer passes the bytes through its staging area, in order, for this read.
        long p = out.tryClaim(Records.READ, Records.READ_HEADER);
        if (p < 0) {
            return false;
        }
        ring.set(ValueLayout.JAVA_INT, p + Records.CONTEXT_OFFSET, wr.remoteContext());
        ring.set(ValueLayout.JAVA_INT, p + Records.COUNT_OFFSET, 0);
        ring.set(ValueLayout.JAVA_LONG, p + Records.ADDRESS_OFFSET, wr.remoteAddress());
        ring.set(ValueLayout.JAVA_LONG, p + Records.TOTAL_OFFSET, wr.remoteLength());
        if (wr.remoteLength() > 0) {
            if (stagedCount == stagedReads.length) {
                growStaged();
            }
            stagedReads[(stagedHead + stagedCount) & (stagedReads.length - 1)] = wr;
            stagedCount++;
        }
        out.commit(p);
        return true;
    }

    private static final int NO_LIST = 0;
    private static final int SHARED = 1;
    private static final int CROSS_MEMORY = 2;

    /** How the peer can reach {@code wr}'s local memory: through its mapping, cross-memory attach, or neither. */
    private int listKind(WorkRequest wr, int header) {
        if (shared && sharedIov(wr, header)) {
            return SHARED;
        }
        return crossMemory && fitsIov(wr, header) ? CROSS_MEMORY : NO_LIST;
    }

    /**
     * Writes a record that lists {@code wr}'s local segments for the peer to copy: the header's first word
     * ({@code word0}: flags or context), the count, the long at offset 8 ({@code long8}: the Send's total or the
     * target address) and, in 24-byte headers, the long at 16 ({@code long16}: the transfer's total), then the
     * entries ({@link #putShared} or {@link #putIov}).
     */
    private boolean writeList(int type, int header, WorkRequest wr, int word0, long long8, long long16,
            boolean sharedList) throws RingCorruptException {
        int n = wr.count();
        long p = out.tryClaim(type, header + (sharedList ? Records.SHARED_ENTRY : Records.IOV_ENTRY) * n);
        if (p < 0) {
            return false;
        }
        // FLAGS_OFFSET == CONTEXT_OFFSET, SEND_TOTAL_OFFSET == ADDRESS_OFFSET: the list headers share one shape
        ring.set(ValueLayout.JAVA_INT, p + Records.CONTEXT_OFFSET, word0);
        ring.set(ValueLayout.JAVA_INT, p + Records.COUNT_OFFSET, n);
        ring.set(ValueLayout.JAVA_LONG, p + Records.ADDRESS_OFFSET, long8);
        if (header > Records.TOTAL_OFFSET) {
            ring.set(ValueLayout.JAVA_LONG, p + Records.TOTAL_OFFSET, long16);
        }
        if (sharedList) {
            putShared(wr, p + header);
        } else {
            putIov(wr, p + header);
        }
        out.commit(p);
        return true;
    }

    /** The local segments may be named to the peer: native, and few enough for one record. */
    private boolean fitsIov(IoVector v, int header) {
        if (header + (long) Records.IOV_ENTRY * v.count() > out.maxPayload()) {
            return false;
        }
        for (int i = 0; i < v.count(); i++) {
            if (!v.segment(i).isNative()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every segment of {@code v} lies in live {@link ShmMemory} and the list fits one record; if so,
     * {@link #sharedIds}/{@link #sharedOffsets} hold where.
     */
    private boolean sharedIov(IoVector v, int header) {
        int n = v.count();
        if (n == 0 || !ShmMemory.any() || header + (long) Records.SHARED_ENTRY * n > out.maxPayload()) {
            return false;
        }
        if (n > sharedIds.length) {
            sharedIds = new long[Integer.highestOneBit(n) * 2];
            sharedOffsets = new long[sharedIds.length];
        }
        for (int i = 0; i < n; i++) {
            MemorySegment s = v.segment(i);
            if (!s.isNative()) {
                return false;
            }
            long id = ShmMemory.find(s.address() + v.offset(i), v.length(i), found);
            if (id < 0) {
                return false;
            }
            sharedIds[i] = id;
            sharedOffsets[i] = found[0];
        }
        return true;
    }

    private void putShared(IoVector v, long at) {
        for (int i = 0; i < v.count(); i++) {
            long e = at + (long) Records.SHARED_ENTRY * i;
            ring.set(ValueLayout.JAVA_LONG, e + Records.SHARED_ID_OFFSET, sharedIds[i]);
            ring.set(ValueLayout.JAVA_LONG, e + Records.SHARED_AT_OFFSET, sharedOffsets[i]);
            ring.set(ValueLayout.JAVA_LONG, e + Records.SHARED_LENGTH_OFFSET, v.length(i));
        }
    }

    private void putIov(IoVector v, long at) {
        for (int i = 0; i < v.count(); i++) {
            long e = at + (long) Records.IOV_ENTRY * i;
            ring.set(ValueLayout.JAVA_LONG, e + Records.IOV_ADDRESS_OFFSET, v.segment(i).address() + v.offset(i));
            ring.set(ValueLayout.JAVA_LONG, e + Records.IOV_LENGTH_OFFSET, v.length(i));
        }
    }

    private void growStaged() {
        WorkRequest[] w = new WorkRequest[stagedReads.length * 2];
        for (int k = 0; k < stagedCount; k++) {
            w[k] = stagedReads[(stagedHead + k) & (stagedReads.length - 1)];
        }
        stagedReads = w;
        stagedHead = 0;
    }

    /**
     * Places one chunk of staged RDMA Read data into the oldest staged read ({@code txLock} held).
     *
     * @return false if no read expects {@code length} bytes now (the peer misbehaves)
     */
    boolean takeStaged(MemorySegment src, int length) {
        if (stopped || stagedCount == 0) {
            return false;
        }
        WorkRequest wr = stagedReads[stagedHead];
        long total = wr.remoteLength();
        if (length <= 0 || length > total - stagedFilled) {
            return false;
        }
        wr.scatter(stagedFilled, src, 0, length);
        stagedFilled += length;
        if (stagedFilled == total) {
            stagedReads[stagedHead] = null;
            stagedHead = (stagedHead + 1) & (stagedReads.length - 1);
            stagedCount--;
            stagedFilled = 0;
        }
        return true;
    }
}
