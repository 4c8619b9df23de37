package io.jdat.tcp;

import io.jdat.DtoCompletionStatus;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.IoVector;
import io.jdat.spi.RemoteRegion;
import io.jdat.spi.WorkRequest;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * The transmit path of one connection: segments work requests, Read Responses and the odd Terminate into
 * FPDUs of at most the MULPDU, and writes them to the socket in gathering batches.
 *
 * <p>A posting thread writes straight to the socket when nothing is queued; a full socket leaves the rest
 * of the batch here, and the IA's progress thread (or a polling consumer) finishes it when the socket
 * drains. Small payloads are copied into a header slot, so a small FPDU is one buffer; a large one goes out
 * from a view of the registered segment, with no staging copy.
 *
 * <p>Completions are reported in submission order ({@link io.jdat.spi.Channel}): Sends and RDMA Writes
 * when their last byte is in the socket (RDMAP has no end-to-end acknowledgement), RDMA Reads when their
 * last Read Response arrives, RMR binds in turn. At most the negotiated ORD Reads are outstanding; a Read
 * beyond it waits, and the requests behind it wait with it.
 *
 * <p>The responder of a connection without an RTR (no RFC 6581 peer-to-peer mode) sends no FPDU before the
 * initiator's first one arrived (RFC 5044 §7.1.2): requests queue until {@link #peerFpduArrived}, RMR binds
 * at the head of the queue excepted (they send nothing).
 *
 * <p>The source of an incoming RDMA Read is read here, not by the receive path that admitted it, and only under
 * the core's hold ({@link ChannelSink#holdSource}), so that a {@code dat_lmr_free} or RMR unbind returns only once
 * no byte of it is read any more: a Read Response payload copied (into a header slot, or the CRC staging area) is
 * held for that copy; one sent from a view of the source is held for each non-blocking send of the batch (a
 * batch's views name one source), never across a wait for socket space. A source withdrawn in between ends the
 * connection (LMF-04: the Read in flight fails): with a Terminate after the FPDUs already built when a copy finds
 * it gone; when a send finds it gone, with a Terminate instead of the rest of the batch if no byte of an unsent
 * FPDU is in the socket yet, else with a reset.
 *
 * <p>Thread confinement: everything here runs under {@link #lock}. The RDMA Read queues are in
 * {@link ReadQueues}, shared with the receive path; the receive path calls in only to have something sent or
 * reported (Read Responses it queued, a Read completed, Terminates) with its own lock held, never the other
 * way round.
 */
final class TcpTransmitter {
    /** Payloads up to this many bytes are copied into the header slot. */
    static final int SMALL = 1024;
    /** How often at most the MSS is read again ({@link #followMss}). */
    static final long MSS_REFRESH_NANOS = 1_000_000L;
    /** FPDUs in one gathering write. */
    private static final int BATCH = 16;
    private static final int SLOT = Ddp.MAX_HEADER + SMALL + 8;
    /** Bytes of Read Response payload one batch may stage when CRC is on (at least one MULPDU). */
    private static final int STAGE = 128 * 1024;
    private static final int FPDU_DATA = 0;
    private static final int FPDU_RESPONSE_END = 1;
    private static final int FPDU_TERMINATE = 2;

    final ReentrantLock lock = new ReentrantLock();
    private final TcpConnection conn;
    private final GatheringByteChannel ch;
    /** Direct {@code send} on the socket ({@link TcpConnection#direct}), or null. */
    private final DirectSocket.Path direct;
    private final CRC32C crc;
    /** The largest ULPDU this side sends now (RFC 5044 MULPDU); follows the MSS when {@link #followMss}. */
    private int mulpdu;
    /**
     * The MULPDU was not configured: it is re-sized from the connection's MSS ({@code TCP_MAXSEG}) when a message
     * of several FPDUs starts, at most once per {@link #MSS_REFRESH_NANOS}. Linux bounds a connection's MSS by
     * half the largest window the peer advertised, so a fresh loopback connection reads about 32 KiB and the
     * MSS reaches the MTU's 65483 bytes once the windows grew: following it halves the FPDUs (and the
     * receiver's reads) per MiB, and every FPDU still fits one segment. A message keeps the MULPDU it started
     * with; the receiver takes any ULPDU length.
     */
    private final boolean followMss;
    /** When {@link #mulpdu} was last re-sized from the MSS. */
    private long mssReadAt;
    private final ByteBuffer[] slots = new ByteBuffer[BATCH];
    private final MemorySegment[] slotSegs = new MemorySegment[BATCH];
    private final ByteBuffer[] trailers = new ByteBuffer[BATCH];
    private final ByteBuffer zeros = ByteBuffer.allocateDirect(4);
    private final SegmentViews views = new SegmentViews();

    // The batch being written: iov[iovFirst, iovCount) is not written yet.
    private ByteBuffer[] iov = new ByteBuffer[BATCH + 8];
    /** The header slot's segment of each {@link #iov} entry that is one, else null (for {@link #writeOne}). */
    private MemorySegment[] iovSegs = new MemorySegment[BATCH + 8];
    private int iovFirst;
    private int iovCount;
    private final int[] fpduEnd = new int[BATCH];
    private final long[] fpduCompletes = new long[BATCH];
    private final long[] fpduLength = new long[BATCH];
    private final int[] fpduKind = new int[BATCH];
    private int fpduCount;
    private int fpduDone;
    /** Payload views in the batch: each takes its own copy number of {@link SegmentViews}. */
    private int pieces;

    // Requests submitted and not yet fully sent, with their completion-order index.
    private WorkRequest[] queue = new WorkRequest[16];
    private long[] queueOrder = new long[16];
    private long qHead;
    private long qTail;
    private long curOffset;

    // Completion order: every request from submission until reported.
    private byte[] oDone = new byte[16];
    private DtoCompletionStatus[] oStatus = new DtoCompletionStatus[16];
    private long[] oLength = new long[16];
    private long oHead;
    private long oTail;

    /** Outstanding RDMA Reads (added here) and incoming ones to answer (added by the receive path). */
    private final ReadQueues reads;
    /** Bytes of the oldest inbound Read already in Read Responses. */
    private long respOffset;
    /** Where the core resolves a Read's source under its hold ({@link ChannelSink#holdSource}). */
    private final RemoteRegion source = new RemoteRegion();
    /**
     * The views of a Read's source in the batch: {@code iov} entries below {@code viewEnd} (0: none), all of the
     * source {@code viewStag}, within its TOs {@code [viewLo, viewHi)}, held for each send ({@link #writeBatch}).
     */
    private int viewEnd;
    private int viewStag;
    private long viewLo;
    private long viewHi;

    private int sendMsn;
    private int readMsn;
    private boolean rtrPending;
    /** Responder without an RTR: nothing goes out until the initiator's first FPDU arrived. */
    private boolean holding;
    /** CRC on: copies of Read Response payload in the current batch ({@link #stageUsed} bytes used). */
    private MemorySegment stageSegment;
    private int stageUsed;
    private boolean terminatePending;
    private boolean terminateQueued;
    private int terminateWord;
    private boolean failed;
    private boolean closed;
    /** A graceful close: send what is held, then the FIN ({@link #finish}). */
    private boolean finishing;
    /** The FIN went out: nothing more is sent. */
    private boolean finSent;
    /** A liveness probe (a zero-length RDMA Read) is wanted ({@link #probe}). */
    private boolean probePending;
    /** The probe's place in the Read ring: it completes nothing. */
    private final WorkRequest probeRead = new WorkRequest(1);
    /** A thread found the lock held and left work for its holder. */
    private volatile boolean work;

    TcpTransmitter(TcpConnection conn, GatheringByteChannel ch, boolean crcOn, int mulpdu, ReadQueues reads,
            boolean rtr, boolean holdFirstFpdu, boolean followMss) {
        this.conn = conn;
        this.ch = ch;
        this.direct = conn.direct == null ? null : conn.direct.tx;
        this.crc = crcOn ? new CRC32C() : null;
        this.mulpdu = mulpdu;
        this.followMss = followMss && direct != null;
        this.mssReadAt = System.nanoTime() - MSS_REFRESH_NANOS;
        this.reads = reads;
        this.rtrPending = rtr;
        this.holding = holdFirstFpdu;
        ByteBuffer area = ByteBuffer.allocateDirect(BATCH * SLOT + 8);
        for (int i = 0; i < BATCH; i++) {
            slots[i] = area.slice(i * SLOT, SLOT).order(ByteOrder.BIG_ENDIAN);
            slotSegs[i] = MemorySegment.ofBuffer(slots[i]);
        }
        ByteBuffer tails = ByteBuffer.allocateDirect(BATCH * 8);
        for (int i = 0; i < BATCH; i++) {
            trailers[i] = tails.slice(i * 8, 8).order(ByteOrder.BIG_ENDIAN);
        }
        probeRead.set(WorkRequest.Op.RDMA_READ, 0, 0, 0, 0);
    }

    // ------------------------------------------------------------------ entry points

    /** Queues a consumer request and sends what the socket takes. */
    void submit(WorkRequest wr) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            long oi = oTail;
            ensureOrderRoom();
            oDone[(int) (oi & (oDone.length - 1))] = 0;
            oTail = oi + 1;
            if (failed) {
                markDone(oi, DtoCompletionStatus.ERR_FLUSHED, 0);
                reportCompletions();
                return;
            }
            ensureQueueRoom();
            int qi = (int) (qTail & (queue.length - 1));
            queue[qi] = wr;
            queueOrder[qi] = oi;
            qTail++;
            flushLocked();
        } finally {
            lock.unlock();
        }
        if (work) {
            kick();
        }
    }

    /**
     * Sends what is queued, if no other thread is doing it; the holder finishes the job otherwise.
     *
     * @return false when another thread held the lock at the first try and was left the job
     */
    boolean kick() {
        boolean ran = false;
        do {
            work = true;
            if (!lock.tryLock()) {
                return ran; // the holder reads `work` after unlocking
            }
            try {
                work = false;
                ran = true;
                if (!closed) {
                    flushLocked();
                }
            } finally {
                lock.unlock();
            }
        } while (work);
        return true;
    }

    /**
     * The sink is known: sends the ready-to-receive message first, unless a request already did, and
     * reports what requests submitted meanwhile finished.
     */
    void start() {
        flushIfOpen();
    }

    /** The receive path queued an incoming RDMA Read ({@link ReadQueues#addInbound}): sends its Read Responses. */
    void readRequestQueued() {
        flushIfOpen();
    }

    private void flushIfOpen() {
        lock.lock();
        try {
            if (!closed) {
                flushLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The initiator's first FPDU arrived (receive path): a responder that held its requests sends them now.
     */
    void peerFpduArrived() {
        lock.lock();
        try {
            if (holding) {
                holding = false;
                if (!closed) {
                    flushLocked();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** True while requests wait for the initiator's first FPDU. */
    boolean holding() {
        lock.lock();
        try {
            return holding;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The receive path removed the oldest outstanding Read ({@link ReadQueues#removeOutbound}): its last Read
     * Response arrived. Reports it (unless it was a probe, {@code order} -1) and sends a Read that waited for
     * the ORD slot.
     *
     * @param order  its completion-order index, -1 for a probe
     * @param length the bytes read (what the Read asked for, not the sink's size)
     */
    void readCompleted(long order, long length) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (order >= 0) {
                markDone(order, DtoCompletionStatus.SUCCESS, length);
            }
            flushLocked(); // reports it, and sends a Read that waited for an ORD slot
        } finally {
            lock.unlock();
        }
    }

    /**
     * The peer ended the connection with the Terminate {@code word} (receive path). It names a request of
     * ours only when it answers a Read Request (an RDMAP remote protection error): then the oldest
     * outstanding Read fails with the Terminate's status. Sends and Writes completed when their bytes were
     * in the socket, so the Terminate of one of them names nothing unreported. Every other unreported
     * request is flushed: the peer took nothing after the message it refused (DSC-05).
     */
    void peerTerminated(int word) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            failed = true;
            boolean readRefused = Terminate.layer(word) == Terminate.LAYER_RDMAP
                    && Terminate.errorType(word) == Terminate.RDMAP_REMOTE_PROTECTION;
            long culprit = readRefused ? reads.oldestOutboundOrder() : -1;
            failUnreported(culprit, Terminate.status(word));
            reportCompletions();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fails every request not reported yet, done or not: {@code culprit} with {@code status}, the others with
     * {@code DAT_DTO_ERR_FLUSHED} (DSC-05: once one fails, every later one fails, even if its bytes were
     * already written).
     */
    private void failUnreported(long culprit, DtoCompletionStatus status) {
        for (long i = oHead; i < oTail; i++) {
            markDone(i, i == culprit ? status : DtoCompletionStatus.ERR_FLUSHED, 0);
        }
    }

    /** Sends a Terminate after the FPDU in flight, then nothing more (receive path). */
    void sendTerminate(int word) {
        lock.lock();
        try {
            if (closed || terminateQueued) {
                return;
            }
            queueTerminate(word);
            flushLocked();
        } finally {
            lock.unlock();
        }
    }

    /** The next FPDU built is a Terminate with {@code word}, the last one (lock held, none queued yet). */
    private void queueTerminate(int word) {
        terminateQueued = true;
        terminatePending = true;
        terminateWord = word;
        failed = true;
    }

    /**
     * A graceful close (dat_ep_disconnect with nothing outstanding): sends what is still held (the rest of the
     * batch in flight, Read Responses owed to the peer), then the FIN. Nothing is reported or sent after it.
     */
    void finish() {
        lock.lock();
        try {
            if (!closed && !finishing) {
                finishing = true;
                flushLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks the peer for a sign of life: a zero-length RDMA Read (its response carries nothing), when no Read is
     * outstanding (the response to one is awaited anyway) and the stream may carry it (liveness, see
     * {@link TcpConnection#checkDeadlines}).
     */
    void probe() {
        lock.lock();
        try {
            if (!closed && !failed && !finishing && !terminateQueued && reads.outboundEmpty() && !probePending) {
                probePending = true;
                flushLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns once no send is in flight. A send and the report of its failure happen under one hold of the
     * lock, so a failure a send met before this call has been reported when it returns. Not for the hot path:
     * the receive path calls it at an end of stream.
     */
    void awaitSendInFlight() {
        lock.lock();
        lock.unlock();
    }

    /** True once a Terminate was queued: the stream must end with a FIN, not a reset. */
    boolean terminating() {
        return terminateQueued;
    }

    /**
     * Stops for good: no more completions, nothing more sent except, when {@code finish}, the rest of the
     * batch in flight if the socket takes it now. Drops every reference to consumer memory.
     */
    void close(boolean finish) {
        lock.lock();
        try {
            if (finish && !closed && iovFirst < iovCount) {
                try {
                    writeBatch();
                } catch (IOException | RuntimeException e) {
                    // closing anyway
                }
            }
            closed = true;
            java.util.Arrays.fill(queue, null);
            java.util.Arrays.fill(oStatus, null);
            reads.clear();
            java.util.Arrays.fill(iov, null);
            java.util.Arrays.fill(iovSegs, null);
            iovFirst = iovCount = 0;
            views.clear();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ the send loop (lock held)

    private void flushLocked() {
        if (finSent) {
            return; // a Read Request that came after our FIN goes unanswered: the peer flushes it at our FIN
        }
        try {
            for (;;) {
                if (iovFirst < iovCount) {
                    long n = writeBatch();
                    if (n < 0) {
                        if (!sourceWithdrawn()) {
                            break;
                        }
                        continue; // builds the Terminate
                    }
                    if (n > 0) {
                        conn.wrote();
                    }
                    while (iovFirst < iovCount && !iov[iovFirst].hasRemaining()) {
                        iovFirst++;
                    }
                    while (fpduDone < fpduCount && fpduEnd[fpduDone] <= iovFirst) {
                        written(fpduDone++);
                    }
                    if (iovFirst < iovCount) {
                        conn.writeInterest(true);
                        break;
                    }
                    resetBatch();
                }
                if (!buildBatch()) {
                    conn.writeInterest(false);
                    if (finishing && reads.inboundPending() == 0 && !terminateQueued) {
                        finSent = true;
                        conn.ch.shutdownOutput(); // everything is in the socket: the FIN follows it
                    }
                    break;
                }
            }
        } catch (IOException e) {
            transmitFailed("send failed: " + e.getMessage());
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            transmitFailed("source memory went away: " + e.getMessage());
        }
        reportCompletions();
    }

    /**
     * One non-blocking send of what is left of the batch, under the hold of the Read source its views show
     * ({@link #viewEnd}); the hold ends with the send, so it never spans a wait for socket space.
     *
     * @return the bytes written, or -1 (nothing written) when that source was withdrawn
     */
    private long writeBatch() throws IOException {
        boolean held = iovFirst < viewEnd;
        if (held && conn.sink.holdSource(viewStag, viewLo, viewHi - viewLo, source) != RemoteRegion.OK) {
            return -1;
        }
        try {
            if (iovCount - iovFirst == 1) {
                return writeOne(iovFirst); // one small FPDU: the plain write is cheaper than writev
            }
            return ch.write(iov, iovFirst, iovCount - iovFirst);
        } finally {
            if (held) {
                conn.sink.sourced();
            }
        }
    }

    /**
     * The Read source the batch's views show was withdrawn ({@link #writeBatch}): the Read in flight fails
     * (LMF-04). At an FPDU boundary (no byte of the next FPDU in the socket) the rest of the batch is dropped and
     * a Terminate of a refused Read ends the stream, so that the requester's Read fails with
     * {@code DAT_DTO_ERR_REMOTE_ACCESS}; within an FPDU the stream cannot carry one any more and is reset.
     *
     * @return true when a Terminate was queued
     */
    private boolean sourceWithdrawn() {
        int fpduStart = fpduDone == 0 ? 0 : fpduEnd[fpduDone - 1];
        // the first buffer of every FPDU is its header slot, from position 0
        if (iovFirst != fpduStart || iov[iovFirst].position() != 0) {
            transmitFailed(withdrawnReason(viewStag));
            return false;
        }
        resetBatch(); // every FPDU before fpduDone is in the socket and was accounted for; none after it goes
        if (terminateQueued) {
            // a Terminate queued meanwhile (a copy found the source gone, or the receive path refused something)
            // was built into the batch just dropped, or is still to be built: it goes now, nothing after it
            terminatePending = true;
        } else {
            terminateWithdrawnRead(viewStag);
        }
        return true;
    }

    /**
     * Ends the stream for a Read whose source {@code stag} was withdrawn: the next FPDU built is the Terminate of a
     * refused Read (RDMAP remote protection, invalid STag), and the connection breaks (lock held, none queued yet).
     */
    private void terminateWithdrawnRead(int stag) {
        queueTerminate(Terminate.controlWord(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION,
                Terminate.RDMAP_INVALID_STAG));
        conn.transmitterFailed(withdrawnReason(stag));
    }

    private static String withdrawnReason(int stag) {
        return String.format("the source of an incoming RDMA Read, STag 0x%08x, was withdrawn while its Read"
                + " Responses were sent (LMF-04)", stag);
    }

    /**
     * Writes the one buffer left in the batch, {@code iov[i]}: directly ({@code send}) when the connection has
     * {@link DirectSocket} and the buffer is a header slot (a small FPDU, the latency case), else through the
     * channel.
     */
    private long writeOne(int i) throws IOException {
        ByteBuffer b = iov[i];
        MemorySegment seg = iovSegs[i];
        if (direct == null || seg == null) {
            return ch.write(b);
        }
        int p = b.position();
        long n = direct.send(seg, p, b.limit() - p);
        b.position(p + (int) n);
        return n;
    }

    private void transmitFailed(String why) {
        if (!failed) {
            failed = true;
            long culprit = -1;
            for (long i = oHead; i < oTail && culprit < 0; i++) {
                if (oDone[(int) (i & (oDone.length - 1))] == 0) {
                    culprit = i;
                }
            }
            failUnreported(culprit, DtoCompletionStatus.ERR_TRANSPORT);
        }
        resetBatch();
        qHead = qTail;
        conn.transmitterFailed(why);
    }

    private void resetBatch() {
        for (int i = 0; i < iovCount; i++) {
            iov[i] = null;
            iovSegs[i] = null;
        }
        iovFirst = iovCount = 0;
        fpduCount = fpduDone = 0;
        pieces = 0;
        stageUsed = 0;
        viewEnd = 0;
    }

    /** The effects of FPDU {@code k} once its last byte is in the socket. */
    private void written(int k) {
        if (fpduCompletes[k] >= 0) {
            markDone(fpduCompletes[k], DtoCompletionStatus.SUCCESS, fpduLength[k]);
        }
        if (fpduKind[k] == FPDU_RESPONSE_END) {
            reads.inboundSent();
        } else if (fpduKind[k] == FPDU_TERMINATE) {
            conn.terminateWritten();
        }
    }

    /** Fills the next batch. @return false when there is nothing to send */
    private boolean buildBatch() {
        while (fpduCount < BATCH && pieces < SegmentViews.COPIES) {
            if (rtrPending) {
                rtrPending = false;
                // RFC 6581 ready-to-receive: a zero-length RDMA Write, the first FPDU of the stream.
                ByteBuffer b = slot();
                taggedHeader(b, Ddp.OP_WRITE, true, 0, 0, 0);
                finishSmall(b, Ddp.TAGGED_HEADER, -1, 0, FPDU_DATA);
                continue;
            }
            if (terminatePending) {
                terminatePending = false;
                ByteBuffer b = slot();
                untaggedHeader(b, Ddp.OP_TERMINATE, true, Ddp.QN_TERMINATE, 1, 0, Terminate.SENT_LENGTH);
                b.putInt(Ddp.UNTAGGED_PAYLOAD_OFFSET + Terminate.CONTROL_OFFSET, terminateWord);
                finishSmall(b, Ddp.UNTAGGED_HEADER + Terminate.SENT_LENGTH, -1, 0, FPDU_TERMINATE);
                return true; // nothing follows a Terminate
            }
            if (terminateQueued) {
                break;
            }
            if (holding) {
                completeLeadingBinds();
                break;
            }
            if (probePending) {
                probePending = false;
                if (reads.outboundEmpty() && !failed) {
                    addReadRequest(probeRead, -1);
                }
                continue;
            }
            // a failed stream (a Terminate, a broken socket, a withdrawn source) answers no more Reads
            if (!failed && (fpduCount > 0 ? pendingResponsesInBatch() : 0) < reads.inboundPending()) {
                if (!responseFits()) {
                    break; // the CRC staging area is full, or the batch's views name another source: it goes first
                }
                addResponse();
                continue;
            }
            if (qHead == qTail || failed) {
                break;
            }
            int qi = (int) (qHead & (queue.length - 1));
            WorkRequest wr = queue[qi];
            long oi = queueOrder[qi];
            switch (wr.op()) {
                case RMR_BIND -> {
                    markDone(oi, DtoCompletionStatus.SUCCESS, 0);
                    queue[qi] = null;
                    qHead++;
                }
                case SEND -> addData(wr, oi, qi, false);
                case RDMA_WRITE -> addData(wr, oi, qi, true);
                case RDMA_READ -> {
                    if (reads.outboundFull()) {
                        return fpduCount > 0; // waits for an ORD slot; what is batched goes
                    }
                    addReadRequest(wr, oi);
                    queue[qi] = null;
                    qHead++;
                }
                default -> throw new IllegalStateException("unknown op " + wr.op());
            }
        }
        return fpduCount > 0;
    }

    /** While holding: RMR binds at the head of the queue complete (they put nothing on the wire). */
    private void completeLeadingBinds() {
        while (qHead != qTail && !failed) {
            int qi = (int) (qHead & (queue.length - 1));
            WorkRequest wr = queue[qi];
            if (wr.op() != io.jdat.spi.WorkRequest.Op.RMR_BIND) {
                return;
            }
            markDone(queueOrder[qi], DtoCompletionStatus.SUCCESS, 0);
            queue[qi] = null;
            qHead++;
        }
    }

    /**
     * A message of several FPDUs starts: re-sizes the MULPDU from the connection's MSS now ({@link #followMss}),
     * if it was not read in the last {@link #MSS_REFRESH_NANOS}. One {@code getsockopt}, nothing allocated.
     */
    private void resizeFromMss() {
        if (!followMss) {
            return;
        }
        long now = System.nanoTime();
        if (now - mssReadAt < MSS_REFRESH_NANOS) {
            return;
        }
        mssReadAt = now;
        int mss = direct.maxSegment();
        if (mss > 0) {
            mulpdu = TcpConfig.mulpduOfMss(mss);
        }
    }

    /** Read Responses already started in this batch (so the ring head is not yet advanced for them). */
    private int pendingResponsesInBatch() {
        int n = 0;
        for (int k = fpduDone; k < fpduCount; k++) {
            if (fpduKind[k] == FPDU_RESPONSE_END) {
                n++;
            }
        }
        return n;
    }

    private void addData(WorkRequest wr, long oi, int qi, boolean tagged) {
        long total = wr.totalLength();
        int hdr = tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER;
        if (curOffset == 0 && total > mulpdu - hdr) {
            resizeFromMss();
        }
        long chunk = Math.min(total - curOffset, mulpdu - hdr);
        boolean last = curOffset + chunk == total;
        ByteBuffer b = slot();
        if (tagged) {
            taggedHeader(b, Ddp.OP_WRITE, last, wr.remoteContext(), wr.remoteAddress() + curOffset, (int) chunk);
        } else {
            if (curOffset == 0) {
                sendMsn++;
            }
            untaggedHeader(b, wr.solicited() ? Ddp.OP_SEND_SE : Ddp.OP_SEND, last, Ddp.QN_SEND, sendMsn, (int) curOffset,
                    (int) chunk);
        }
        long done = last ? oi : -1;
        if (chunk <= SMALL) {
            wr.gather(curOffset, slotSegs[fpduCount], Ddp.LENGTH_FIELD + hdr, chunk);
            finishSmall(b, hdr + (int) chunk, done, total, FPDU_DATA);
        } else {
            finishLarge(b, hdr, wr, curOffset, (int) chunk, done, total, FPDU_DATA);
        }
        if (last) {
            queue[qi] = null;
            qHead++;
            curOffset = 0;
        } else {
            curOffset += chunk;
        }
    }

    private void addReadRequest(WorkRequest wr, long oi) {
        int stag = reads.addOutbound(wr, oi); // the receive path may match Read Responses from now on
        ByteBuffer b = slot();
        readMsn++;
        untaggedHeader(b, Ddp.OP_READ_REQUEST, true, Ddp.QN_READ_REQUEST, readMsn, 0, Ddp.READ_REQUEST_HEADER);
        b.putInt(Ddp.RR_SINK_STAG_OFFSET, stag);
        b.putLong(Ddp.RR_SINK_TO_OFFSET, 0L); // sink TO: offsets into the sink's I/O vector
        b.putInt(Ddp.RR_SIZE_OFFSET, (int) wr.remoteLength());
        b.putInt(Ddp.RR_SOURCE_STAG_OFFSET, wr.remoteContext());
        b.putLong(Ddp.RR_SOURCE_TO_OFFSET, wr.remoteAddress());
        finishSmall(b, Ddp.UNTAGGED_HEADER + Ddp.READ_REQUEST_HEADER, -1, 0, FPDU_DATA);
    }

    /** The next Read Response FPDU; {@link #responseFits} ran just before (and sized the MULPDU). */
    private void addResponse() {
        ReadQueues.InboundRead r = reads.inbound(pendingResponsesInBatch());
        long chunk = Math.min(r.size - respOffset, mulpdu - Ddp.TAGGED_HEADER);
        boolean last = respOffset + chunk == r.size;
        ByteBuffer b = slot();
        taggedHeader(b, Ddp.OP_READ_RESPONSE, last, r.sinkStag, r.sinkTo + respOffset, (int) chunk);
        int kind = last ? FPDU_RESPONSE_END : FPDU_DATA;
        if (chunk <= SMALL) {
            if (chunk > 0 && !copySource(r, chunk, slotSegs[fpduCount], Ddp.TAGGED_PAYLOAD_OFFSET)) {
                return;
            }
            finishSmall(b, Ddp.TAGGED_HEADER + (int) chunk, -1, 0, kind);
        } else {
            ByteBuffer hdrBuf = b.limit(Ddp.TAGGED_PAYLOAD_OFFSET).position(0);
            int ulpdu = Ddp.TAGGED_HEADER + (int) chunk;
            ByteBuffer v;
            if (crc != null) {
                // The responder's memory belongs to its consumer, who knows nothing of the peer's Read and may
                // write it meanwhile: CRC and send one copy, so the CRC covers exactly the bytes on the wire
                // (sent straight from memory, a changed byte between the two passes broke the connection).
                if (!copySource(r, chunk, stage(), stageUsed)) {
                    return;
                }
                v = views.view(stageSegment, stageUsed, (int) chunk, pieces++);
                stageUsed += (int) chunk;
            } else {
                // read by the sends of the batch, each under the source's hold (writeBatch; responseFits made
                // sure that the batch's views name this source only)
                v = views.view(r.segment, r.offset + respOffset, (int) chunk, pieces++);
                long lo = r.sourceTo + respOffset;
                if (viewEnd == 0) {
                    viewStag = r.sourceStag;
                    viewLo = lo;
                    viewHi = lo + chunk;
                } else {
                    viewLo = Math.min(viewLo, lo);
                    viewHi = Math.max(viewHi, lo + chunk);
                }
            }
            startLarge(hdrBuf);
            addPayloadView(v);
            if (crc == null) {
                viewEnd = iovCount;
            }
            endLarge(ulpdu, -1, 0, kind);
        }
        respOffset = last ? 0 : respOffset + chunk;
    }

    /**
     * Called before each {@link #addResponse}: re-sizes the MULPDU when a Read Response of several FPDUs starts
     * (so the check below and the FPDU use the same one). False when the next Read Response FPDU must be staged
     * (CRC on, large) and the staging area is full, or must be sent from a view of another source than the views
     * already in the batch (one hold covers a send: {@link #writeBatch}).
     */
    private boolean responseFits() {
        ReadQueues.InboundRead r = reads.inbound(pendingResponsesInBatch());
        if (respOffset == 0 && r.size > mulpdu - Ddp.TAGGED_HEADER) {
            resizeFromMss();
        }
        long chunk = Math.min(r.size - respOffset, mulpdu - Ddp.TAGGED_HEADER);
        if (chunk <= SMALL) {
            return true;
        }
        if (crc == null) {
            return viewEnd == 0 || r.sourceStag == viewStag;
        }
        return stageUsed + chunk <= stageCapacity();
    }

    /**
     * Copies {@code chunk} bytes of Read {@code r}'s source from {@link #respOffset} on to {@code dst}, under the
     * source's hold ({@link ChannelSink#holdSource}). A source withdrawn since the Read was admitted is not read:
     * the connection ends with the Terminate of a refused Read (LMF-04: in flight, it may fail), the next FPDU
     * built, after what the batch holds.
     *
     * @return false when withdrawn
     */
    private boolean copySource(ReadQueues.InboundRead r, long chunk, MemorySegment dst, long dstOffset) {
        ChannelSink sink = conn.sink;
        if (sink.holdSource(r.sourceStag, r.sourceTo + respOffset, chunk, source) != RemoteRegion.OK) {
            terminateWithdrawnRead(r.sourceStag);
            return false;
        }
        try {
            MemorySegment.copy(source.segment(), source.offset(), dst, dstOffset, chunk);
        } finally {
            sink.sourced();
        }
        return true;
    }

    /** The staging area of CRC'd Read Responses, allocated on first use (a connection without CRC has none). */
    private MemorySegment stage() {
        if (stageSegment == null) {
            stageSegment = java.lang.foreign.Arena.ofAuto().allocate(stageCapacity(), 64);
        }
        return stageSegment;
    }

    private int stageCapacity() {
        return Math.max(STAGE, TcpConfig.LOOPBACK_MULPDU); // the largest MULPDU: it may grow ({@link #followMss})
    }

    // ------------------------------------------------------------------ FPDU building

    private ByteBuffer slot() {
        ByteBuffer b = slots[fpduCount];
        b.clear();
        return b;
    }

    private static void taggedHeader(ByteBuffer b, int opcode, boolean last, int stag, long to, int payload) {
        b.putShort(Ddp.LENGTH_OFFSET, (short) (Ddp.TAGGED_HEADER + payload));
        b.put(Ddp.DDP_CONTROL_OFFSET, Ddp.ddpControl(true, last));
        b.put(Ddp.RDMAP_CONTROL_OFFSET, Ddp.rdmapControl(opcode));
        b.putInt(Ddp.STAG_OFFSET, stag);
        b.putLong(Ddp.TO_OFFSET, to);
    }

    private static void untaggedHeader(ByteBuffer b, int opcode, boolean last, int qn, int msn, int mo, int payload) {
        // a Read Request's 28 bytes count as payload here
        b.putShort(Ddp.LENGTH_OFFSET, (short) (Ddp.UNTAGGED_HEADER + payload));
        b.put(Ddp.DDP_CONTROL_OFFSET, Ddp.ddpControl(false, last));
        b.put(Ddp.RDMAP_CONTROL_OFFSET, Ddp.rdmapControl(opcode));
        b.putInt(Ddp.RSVD_ULP_OFFSET, 0);
        b.putInt(Ddp.QN_OFFSET, qn);
        b.putInt(Ddp.MSN_OFFSET, msn);
        b.putInt(Ddp.MO_OFFSET, mo);
    }

    /** Pads, CRCs and queues a one-buffer FPDU whose ULPDU ({@code ulpdu} bytes) is in {@code b}. */
    private void finishSmall(ByteBuffer b, int ulpdu, long completes, long length, int kind) {
        int end = Ddp.LENGTH_FIELD + ulpdu;
        int pad = Ddp.pad(ulpdu);
        for (int i = 0; i < pad; i++) {
            b.put(end + i, (byte) 0);
        }
        end += pad;
        int value = 0;
        if (crc != null) {
            crc.reset();
            b.limit(end).position(0);
            crc.update(b);
            value = (int) crc.getValue();
        }
        b.limit(end + Ddp.CRC_FIELD).position(0); // the CRC pass above left the limit at the CRC field
        b.putInt(end, Integer.reverseBytes(value)); // least-significant byte first, as siw
        addIov(b);
        endFpdu(completes, length, kind);
    }

    private void finishLarge(ByteBuffer b, int hdr, IoVector v, long offset, int chunk, long completes, long length,
            int kind) {
        b.limit(Ddp.LENGTH_FIELD + hdr).position(0);
        startLarge(b);
        long skip = offset;
        long left = chunk;
        for (int i = 0; i < v.count() && left > 0; i++) {
            long len = v.length(i);
            if (skip >= len) {
                skip -= len;
                continue;
            }
            int n = (int) Math.min(len - skip, left);
            MemorySegment seg = v.segment(i);
            ByteBuffer view = pieces < SegmentViews.COPIES
                    ? views.view(seg, v.offset(i) + skip, n, pieces++)
                    : SegmentViews.freshView(seg, v.offset(i) + skip, n); // an FPDU of over 16 pieces
            addPayloadView(view);
            left -= n;
            skip = 0;
        }
        endLarge(hdr + chunk, completes, length, kind);
    }

    private void startLarge(ByteBuffer header) {
        if (crc != null) {
            crc.reset();
            crc.update(header);
            header.position(0);
        }
        addIov(header);
    }

    private void addPayloadView(ByteBuffer view) {
        if (crc != null) {
            int p = view.position();
            crc.update(view);
            view.position(p);
        }
        addIov(view);
    }

    private void endLarge(int ulpdu, long completes, long length, int kind) {
        int pad = Ddp.pad(ulpdu);
        ByteBuffer trailer = trailers[fpduCount];
        trailer.clear();
        for (int i = 0; i < pad; i++) {
            trailer.put(i, (byte) 0);
        }
        int value = 0;
        if (crc != null) {
            zeros.clear().limit(pad);
            crc.update(zeros);
            value = (int) crc.getValue();
        }
        trailer.putInt(pad, Integer.reverseBytes(value));
        trailer.limit(pad + Ddp.CRC_FIELD).position(0);
        addIov(trailer);
        endFpdu(completes, length, kind);
    }

    private void addIov(ByteBuffer b) {
        if (iovCount == iov.length) {
            iov = java.util.Arrays.copyOf(iov, iov.length * 2);
            iovSegs = java.util.Arrays.copyOf(iovSegs, iov.length);
        }
        iovSegs[iovCount] = b == slots[fpduCount] ? slotSegs[fpduCount] : null;
        iov[iovCount++] = b;
    }

    private void endFpdu(long completes, long length, int kind) {
        fpduEnd[fpduCount] = iovCount;
        fpduCompletes[fpduCount] = completes;
        fpduLength[fpduCount] = length;
        fpduKind[fpduCount] = kind;
        fpduCount++;
    }

    // ------------------------------------------------------------------ completion order

    private void markDone(long oi, DtoCompletionStatus status, long length) {
        int i = (int) (oi & (oDone.length - 1));
        oDone[i] = 1;
        oStatus[i] = status;
        oLength[i] = length;
    }

    /**
     * Reports finished requests from the oldest on, stopping at the first unfinished one. Nothing before
     * {@link TcpConnection#start} gave the sink: the core may submit as soon as it reported ESTABLISHED.
     */
    private void reportCompletions() {
        ChannelSink sink = conn.sink;
        if (sink == null) {
            return;
        }
        while (oHead < oTail && !closed) {
            int i = (int) (oHead & (oDone.length - 1));
            if (oDone[i] == 0) {
                return;
            }
            DtoCompletionStatus st = oStatus[i];
            oStatus[i] = null;
            oHead++;
            sink.requestCompleted(st, oLength[i]);
        }
    }

    private void ensureOrderRoom() {
        if (oTail - oHead < oDone.length) {
            return;
        }
        int n = oDone.length;
        byte[] d = new byte[n * 2];
        DtoCompletionStatus[] s = new DtoCompletionStatus[n * 2];
        long[] l = new long[n * 2];
        for (long i = oHead; i < oTail; i++) {
            int from = (int) (i & (n - 1));
            int to = (int) (i & (2 * n - 1));
            d[to] = oDone[from];
            s[to] = oStatus[from];
            l[to] = oLength[from];
        }
        oDone = d;
        oStatus = s;
        oLength = l;
    }

    private void ensureQueueRoom() {
        if (qTail - qHead < queue.length) {
            return;
        }
        int n = queue.length;
        WorkRequest[] q = new WorkRequest[n * 2];
        long[] o = new long[n * 2];
        for (long i = qHead; i < qTail; i++) {
            q[(int) (i & (2 * n - 1))] = queue[(int) (i & (n - 1))];
            o[(int) (i & (2 * n - 1))] = queueOrder[(int) (i & (n - 1))];
        }
        queue = q;
        queueOrder = o;
    }
}
