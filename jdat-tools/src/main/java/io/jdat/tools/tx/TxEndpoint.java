package io.jdat.tools.tx;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.RmrTriplet;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.session.CompletionText;
import java.lang.foreign.MemorySegment;

/**
 * One endpoint of one side of {@code jdat tx}, in the manner of dapltest's transaction test: its own
 * receive, request and connection EVDs, a control region (the control messages of {@link TxWire}) and,
 * once the run is known, a data region with one buffer per operation. Both sides lay the data region out
 * the same way, so an operation's remote buffer is the peer's region plus the same offset.
 *
 * <p>A buffer an operation gathers from or scatters into has its segments {@link #stride} apart (a gap
 * after each, so a shifted segment does not match); a buffer the peer reads from or writes into with RDMA
 * is the contiguous first {@code segments * size} bytes (DAT 1.2 RDMA has one remote segment).
 *
 * <p>Cookies are {@code iteration << 8 | slot}; every completion is checked for status, cookie, length and
 * duplication, as dapltest does.
 */
final class TxEndpoint {
    // Control region layout.
    private static final long MSG_SEND = 0;
    private static final long MSG_RECV = 2048;
    private static final long MSG_SIZE = 2048;
    private static final long READY_SEND = 4096;
    private static final long READY_RECV = 4160; // two: by iteration parity
    private static final long DONE_SEND = 4288;
    private static final long DONE_RECV = 4352;
    private static final long SMALL_SIZE = 64;
    private static final long CONTROL_SIZE = 4416;
    private static final long ALIGN = 256;

    // Slots (low 8 bits of a cookie).
    static final int SLOT_MSG = 1;
    static final int SLOT_READY = 2;
    static final int SLOT_DONE = 3;
    static final int SLOT_OP = 16;

    final TxSide side;
    final boolean server;
    final int thread;
    final int index;
    final String name;
    final EventDispatcher recvEvd;
    final EventDispatcher reqEvd;
    final EventDispatcher connEvd;
    final Endpoint ep;
    final MemorySegment ctrl;
    final Lmr ctrlLmr;
    private final DatEvent ev = new DatEvent();
    private final long timeoutNanos;
    private final boolean poll;
    private final TxAbort abort;

    // Known once the run is (client: from the start; server: after CONFIG).
    TxConfig config;
    TxStats stats;
    MemorySegment data;
    Lmr dataLmr;
    private long[] opOffset;
    private long[] stride;
    private LmrTriplet[][] opIov;
    private RmrTriplet[] remote;
    /** The last iteration + 1 each request / receive slot completed for. */
    private long[] reqMark;
    private long[] recvMark;
    private long lastMsgLength;

    /**
     * Creates the endpoint, its EVDs and its control region.
     *
     * @param side           the side
     * @param thread         the thread index
     * @param index          the endpoint's index in its thread
     * @param maxOps         the most operations the run may have (sizes the queues)
     * @param poll           busy-poll instead of waiting
     * @param timeoutSeconds the longest wait without progress
     * @param abort          the process's abort flag
     */
    TxEndpoint(TxSide side, int thread, int index, int maxOps, boolean poll, int timeoutSeconds, TxAbort abort) {
        this.side = side;
        this.server = "server".equals(side.role);
        this.thread = thread;
        this.index = index;
        this.name = side.role + " thread " + thread + " endpoint " + index;
        this.poll = poll;
        this.timeoutNanos = timeoutSeconds * 1_000_000_000L;
        this.abort = abort;
        int qlen = Math.min(maxOps + 8, Math.min(side.iaAttr.maxEvdQlen(), side.iaAttr.maxDtoPerEp()));
        recvEvd = side.session.evd(qlen, EvdFlags.DTO);
        reqEvd = side.session.evd(qlen, EvdFlags.DTO);
        connEvd = side.session.evd(4, EvdFlags.CONNECTION);
        EpAttr attr = side.ia.defaultEpAttr();
        int maxIov = Math.max(1, side.iaAttr.maxIovSegmentsPerDto());
        int iov = Math.min(TxOp.MAX_SEGMENTS, maxIov);
        int reads = Math.max(1, Math.min(maxOps, Math.min(side.iaAttr.maxRdmaReadPerEpIn(),
                side.iaAttr.maxRdmaReadPerEpOut())));
        attr.maxRecvDtos(Math.max(attr.maxRecvDtos(), qlen)).maxRequestDtos(Math.max(attr.maxRequestDtos(), qlen))
                .maxRecvIov(Math.max(attr.maxRecvIov(), iov)).maxRequestIov(Math.max(attr.maxRequestIov(), iov))
                .maxRdmaReadIn(reads).maxRdmaReadOut(reads);
        if (side.iaAttr.maxIovSegmentsPerRdmaRead() > 0) {
            attr.maxRdmaReadIov(Math.max(attr.maxRdmaReadIov(), Math.min(iov, side.iaAttr.maxIovSegmentsPerRdmaRead())));
        }
        if (side.iaAttr.maxIovSegmentsPerRdmaWrite() > 0) {
            attr.maxRdmaWriteIov(Math.max(attr.maxRdmaWriteIov(), Math.min(iov, side.iaAttr.maxIovSegmentsPerRdmaWrite())));
        }
        ep = side.session.endpoint(recvEvd, reqEvd, connEvd, attr);
        ctrl = side.session.allocate(CONTROL_SIZE, ALIGN);
        ctrlLmr = side.session.register(ctrl, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
        reqMark = new long[SLOT_OP + maxOps];
        recvMark = new long[SLOT_OP + maxOps];
        reqLength = new long[SLOT_OP + maxOps];
        recvLength = new long[SLOT_OP + maxOps];
    }

    /**
     * Lays out and registers the data region for the run.
     *
     * @param c the run
     */
    void configure(TxConfig c) {
        config = c;
        int n = c.ops().size();
        stats = new TxStats(n);
        opOffset = new long[n];
        stride = new long[n];
        opIov = new LmrTriplet[n][];
        remote = new RmrTriplet[n];
        long off = 0;
        for (int k = 0; k < n; k++) {
            TxOp op = c.ops().get(k);
            stride[k] = align(op.size()) + 64;
            opOffset[k] = off;
            off += align(op.segments() * stride[k]);
        }
        data = side.session.allocate(Math.max(off, ALIGN), ALIGN);
        dataLmr = side.session.register(data, MemPriv.ALL);
        for (int k = 0; k < n; k++) {
            TxOp op = c.ops().get(k);
            opIov[k] = new LmrTriplet[op.segments()];
            for (int j = 0; j < op.segments(); j++) {
                opIov[k][j] = dataLmr.triplet(opOffset[k] + j * stride[k], op.size());
            }
        }
    }

    /** This endpoint's data region, for the peer. */
    TxWire.Region region() {
        return new TxWire.Region(dataLmr.rmrContext(), dataLmr.registeredAddress(), dataLmr.registeredSize());
    }

    /**
     * Takes the peer's data region.
     *
     * @param r the peer's region
     * @throws ToolFailure when it is too small for the layout
     */
    void peer(TxWire.Region r) {
        if (r.length() < data.byteSize()) {
            throw new ToolFailure(name + ": the peer's data region has " + r.length() + " bytes, the run needs "
                    + data.byteSize());
        }
        for (int k = 0; k < remote.length; k++) {
            remote[k] = new RmrTriplet(r.rmrContext(), r.address() + opOffset[k], config.ops().get(k).bytes());
        }
    }

    private static long align(long n) {
        return (n + ALIGN - 1) / ALIGN * ALIGN;
    }

    private static long cookie(long iteration, int slot) {
        return iteration << 8 | slot;
    }

    // ------------------------------------------------------------------ setup messages

    /** Posts the receive for CONFIG or INFO. */
    void postMsgRecv(long iteration) {
        ep.postRecv(1, new LmrTriplet[] {ctrlLmr.triplet(MSG_RECV, MSG_SIZE)}, cookie(iteration, SLOT_MSG),
                CompletionFlags.DEFAULT);
    }

    /** Sends CONFIG (client). */
    void sendConfig() {
        int len = TxWire.writeConfig(ctrl, MSG_SEND, config, region());
        ep.postSend(1, new LmrTriplet[] {ctrlLmr.triplet(MSG_SEND, len)}, cookie(0, SLOT_MSG), CompletionFlags.DEFAULT);
    }

    /** Waits for CONFIG (server) and returns it. */
    TxWire.Config awaitConfig() {
        awaitRecv(0, SLOT_MSG, -1, "CONFIG");
        return TxWire.readConfig(ctrl, MSG_RECV, lastMsgLength, name);
    }

    /** Sends INFO (server). */
    void sendInfo() {
        int len = TxWire.writeInfo(ctrl, MSG_SEND, config.runId(), region());
        ep.postSend(1, new LmrTriplet[] {ctrlLmr.triplet(MSG_SEND, len)}, cookie(0, SLOT_MSG), CompletionFlags.DEFAULT);
    }

    /** Waits for INFO (client) and takes the server's region. */
    void awaitInfo() {
        awaitRecv(0, SLOT_MSG, -1, "INFO");
        peer(TxWire.readInfo(ctrl, MSG_RECV, lastMsgLength, config.runId(), name));
        awaitReq(0, SLOT_MSG, -1, "CONFIG send");
    }

    /** Waits for the INFO send's completion (server). */
    void awaitInfoSent() {
        awaitReq(0, SLOT_MSG, -1, "INFO send");
    }

    // ------------------------------------------------------------------ one iteration

    /**
     * Step 1: fills this side's sources, posts its data receives, the DONE receive and the receive for the
     * next READY (or FIN after the last iteration).
     *
     * @param i     the iteration
     * @param hooks test hooks
     */
    void prepare(long i, TxHooks hooks) {
        for (int k = 0; k < remote.length; k++) {
            TxOp op = config.ops().get(k);
            boolean mine = op.postedBy(server);
            if (mine && op.kind() != TxOp.Kind.RDMA_READ) {
                fillSegments(k, i);
            } else if (!mine && op.kind() == TxOp.Kind.RDMA_READ) {
                TxPattern.fill(data, opOffset[k], op.bytes(), seed(i, k), 0);
            }
            if (mine != (op.kind() == TxOp.Kind.RDMA_READ)) {
                hooks.sourceFilled(this, i, k, data.asSlice(opOffset[k], op.segments() * stride[k]));
            }
            if (!mine && op.kind() == TxOp.Kind.SEND) {
                ep.postRecv(op.segments(), opIov[k], cookie(i, SLOT_OP + k), CompletionFlags.DEFAULT);
            }
        }
        ep.postRecv(1, new LmrTriplet[] {ctrlLmr.triplet(DONE_RECV, SMALL_SIZE)}, cookie(i, SLOT_DONE),
                CompletionFlags.DEFAULT);
        if (i + 1 < config.iterations()) {
            ep.postRecv(1, new LmrTriplet[] {ctrlLmr.triplet(READY_RECV + ((i + 1) & 1) * SMALL_SIZE, SMALL_SIZE)},
                    cookie(i + 1, SLOT_READY), CompletionFlags.DEFAULT);
        } else {
            postMsgRecv(i + 1); // FIN
        }
    }

    /** The first READY receive (before the peer can send it). */
    void postFirstReadyRecv() {
        ep.postRecv(1, new LmrTriplet[] {ctrlLmr.triplet(READY_RECV, SMALL_SIZE)}, cookie(0, SLOT_READY),
                CompletionFlags.DEFAULT);
    }

    private void fillSegments(int k, long i) {
        TxOp op = config.ops().get(k);
        long seed = seed(i, k);
        for (int j = 0; j < op.segments(); j++) {
            TxPattern.fill(data, opOffset[k] + j * stride[k], op.size(), seed, j * op.size());
        }
    }

    private long seed(long i, int k) {
        return TxPattern.seed(config.runId(), thread, index, i, k);
    }

    /** Step 2: sends READY. */
    void sendReady(long i) {
        TxWire.writeSmall(ctrl, READY_SEND, TxWire.READY, i);
        ep.postSend(1, new LmrTriplet[] {ctrlLmr.triplet(READY_SEND, TxWire.SMALL)}, cookie(i, SLOT_READY),
                CompletionFlags.DEFAULT);
    }

    /** Step 3: waits for the peer's READY. */
    void awaitReady(long i) {
        awaitRecv(i, SLOT_READY, TxWire.SMALL, "READY");
        TxWire.readSmall(ctrl, READY_RECV + (i & 1) * SMALL_SIZE, TxWire.SMALL, TxWire.READY, i, name);
    }

    /** Step 4: posts this side's operations. */
    void postOps(long i) {
        for (int k = 0; k < remote.length; k++) {
            TxOp op = config.ops().get(k);
            if (!op.postedBy(server)) {
                continue;
            }
            long c = cookie(i, SLOT_OP + k);
            switch (op.kind()) {
                case SEND -> ep.postSend(op.segments(), opIov[k], c, CompletionFlags.DEFAULT);
                case RDMA_WRITE -> ep.postRdmaWrite(op.segments(), opIov[k], c, remote[k], CompletionFlags.DEFAULT);
                case RDMA_READ -> ep.postRdmaRead(op.segments(), opIov[k], c, remote[k], CompletionFlags.DEFAULT);
            }
        }
    }

    /** Step 5: waits for this side's operations and READY send, validates what its RDMA Reads brought. */
    void awaitOps(long i) {
        awaitReq(i, SLOT_READY, TxWire.SMALL, "READY send");
        for (int k = 0; k < remote.length; k++) {
            TxOp op = config.ops().get(k);
            if (op.postedBy(server)) {
                awaitReq(i, SLOT_OP + k, op.bytes(), op.toString());
                if (op.kind() == TxOp.Kind.RDMA_READ) {
                    validateSegments(k, i);
                }
            }
        }
    }

    /** Step 6: waits for the peer's Sends and validates them. */
    void awaitIncoming(long i) {
        for (int k = 0; k < remote.length; k++) {
            TxOp op = config.ops().get(k);
            if (!op.postedBy(server) && op.kind() == TxOp.Kind.SEND) {
                awaitRecv(i, SLOT_OP + k, op.bytes(), op.toString());
                validateSegments(k, i);
            }
        }
    }

    /** Step 7: sends DONE. */
    void sendDone(long i) {
        TxWire.writeSmall(ctrl, DONE_SEND, TxWire.DONE, i);
        ep.postSend(1, new LmrTriplet[] {ctrlLmr.triplet(DONE_SEND, TxWire.SMALL)}, cookie(i, SLOT_DONE),
                CompletionFlags.DEFAULT);
    }

    /** Step 8: waits for the peer's DONE, then validates what its RDMA Writes placed here. */
    void awaitDone(long i) {
        awaitRecv(i, SLOT_DONE, TxWire.SMALL, "DONE");
        TxWire.readSmall(ctrl, DONE_RECV, TxWire.SMALL, TxWire.DONE, i, name);
        for (int k = 0; k < remote.length; k++) {
            TxOp op = config.ops().get(k);
            if (!op.postedBy(server) && op.kind() == TxOp.Kind.RDMA_WRITE) {
                long at = TxPattern.mismatch(data, opOffset[k], op.bytes(), seed(i, k), 0);
                record(k, i, at, at, op);
            }
        }
        awaitReq(i, SLOT_DONE, TxWire.SMALL, "DONE send");
    }

    private void validateSegments(int k, long i) {
        TxOp op = config.ops().get(k);
        long seed = seed(i, k);
        for (int j = 0; j < op.segments(); j++) {
            long at = TxPattern.mismatch(data, opOffset[k] + j * stride[k], op.size(), seed, j * op.size());
            if (at >= 0) {
                record(k, i, at, j * op.size() + at, op);
                return;
            }
        }
        record(k, i, -1, -1, op);
    }

    private TxHooks.Errors errors;

    /** Where data errors are reported. */
    void errors(TxHooks.Errors e) {
        errors = e;
    }

    private void record(int k, long i, long at, long logical, TxOp op) {
        stats.validated[k]++;
        if (at >= 0) {
            stats.errors++;
            stats.wrong[k]++;
            errors.dataError(name + ": " + op + " iteration " + i + ": byte " + logical + " of " + op.bytes()
                    + " is wrong");
        }
    }

    /** After the last iteration: sends FIN with this endpoint's counts. */
    void sendFin() {
        int len = TxWire.writeFin(ctrl, MSG_SEND, stats);
        ep.postSend(1, new LmrTriplet[] {ctrlLmr.triplet(MSG_SEND, len)}, cookie(config.iterations(), SLOT_MSG),
                CompletionFlags.DEFAULT);
    }

    /** Waits for the peer's FIN and returns its counts. */
    TxStats awaitFin() {
        long n = config.iterations();
        awaitRecv(n, SLOT_MSG, -1, "FIN");
        TxStats peer = new TxStats(remote.length);
        TxWire.readFin(ctrl, MSG_RECV, lastMsgLength, peer, name);
        awaitReq(n, SLOT_MSG, -1, "FIN send");
        return peer;
    }

    // ------------------------------------------------------------------ completions

    private void awaitReq(long i, int slot, long length, String what) {
        while (reqMark[slot] <= i) {
            take(reqEvd, reqMark, false, what + " completion", i, slot);
        }
        checkLength(i, slot, length, what, false);
    }

    private void awaitRecv(long i, int slot, long length, String what) {
        while (recvMark[slot] <= i) {
            take(recvEvd, recvMark, true, what + " receive", i, slot);
        }
        checkLength(i, slot, length, what, true);
    }

    /** Lengths of the last completion of each slot. */
    private final long[] reqLength;
    private final long[] recvLength;

    private void checkLength(long i, int slot, long length, String what, boolean recv) {
        long got = recv ? recvLength[slot] : reqLength[slot];
        if (length >= 0 && got != length) {
            throw new ToolFailure(name + ": " + what + (recv ? " receive" : "") + " iteration " + i + ": "
                    + got + " bytes transferred, expected " + length);
        }
    }

    /** Takes one completion from an EVD, checks it and marks its slot. */
    private void take(EventDispatcher evd, long[] mark, boolean recv, String what, long i, int slot) {
        DatEvent e = next(evd, what + " (iteration " + i + ")");
        if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
            throw new ToolFailure(name + ": " + what + ": unexpected " + e.eventNumber());
        }
        long c = e.userCookie();
        int s = (int) (c & 0xFF);
        long it = c >>> 8;
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new ToolFailure(name + ": " + (recv ? "receive" : "request") + " #" + it + "/" + s
                    + " completed with " + CompletionText.statusName(e.status())
                    + (e.status() == DtoCompletionStatus.ERR_FLUSHED ? CompletionText.BROKE : ""),
                    e.status() == DtoCompletionStatus.ERR_FLUSHED);
        }
        if (s >= mark.length || s == 0 || (s >= SLOT_DONE + 1 && s < SLOT_OP)) {
            throw new ToolFailure(name + ": completion with a cookie this endpoint never posted: 0x"
                    + Long.toHexString(c));
        }
        // Each slot completes once per iteration, in order (the control message slot skips from the setup
        // to FIN): an older iteration is a duplicate, a newer one means one went missing.
        if (it < mark[s] || it > mark[s] && s != SLOT_MSG) {
            throw new ToolFailure(name + ": " + (it < mark[s] ? "duplicate" : "out-of-order") + " completion of "
                    + slotName(s) + " iteration " + it + " (last seen " + (mark[s] - 1) + ") while waiting for "
                    + what);
        }
        mark[s] = it + 1;
        if (recv) {
            recvLength[s] = e.transferredLength();
            if (s == SLOT_MSG) {
                lastMsgLength = e.transferredLength();
            }
        } else {
            reqLength[s] = e.transferredLength();
        }
    }

    private String slotName(int s) {
        return switch (s) {
            case SLOT_MSG -> "a control message";
            case SLOT_READY -> "READY";
            case SLOT_DONE -> "DONE";
            default -> config == null ? "op " + (s - SLOT_OP) : config.ops().get(s - SLOT_OP).toString();
        };
    }

    /**
     * The next event of an EVD: busy-polled with {@code dat_evd_dequeue} or waited for with
     * {@code dat_evd_wait} in slices; fails after the timeout without progress or when the run aborted.
     */
    DatEvent next(EventDispatcher evd, String what) {
        long start = System.nanoTime();
        if (poll) {
            long spins = 0;
            while (!evd.dequeue(ev)) {
                Thread.onSpinWait();
                if ((++spins & 1023) == 0) {
                    Thread.yield();
                    idle(start, what);
                }
            }
            return ev;
        }
        while (!evd.waitFor(50_000, 1, ev)) {
            idle(start, what);
        }
        return ev;
    }

    private void idle(long start, String what) {
        abort.check();
        if (System.nanoTime() - start > timeoutNanos) {
            throw new ToolFailure(name + ": " + what + ": nothing arrived within " + timeoutNanos / 1_000_000_000L
                    + " s");
        }
    }

    /** Waits for a connection event and checks it. */
    DatEvent awaitConnection(EventNumber expected, String what) {
        DatEvent e = next(connEvd, what);
        if (e.eventNumber() != expected) {
            throw new ToolFailure(name + ": " + what + ": expected " + expected + ", got " + e.eventNumber());
        }
        return e;
    }
}
