package io.jdat.shm;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * One side of a dense two-way stream of Sends, RDMA Writes and RDMA Reads, for the tests that end a connection in
 * its middle ({@link ShmStreamEndingTest}): it keeps {@link #WINDOW} requests and {@link #RECEIVES} receives
 * posted, checks the bytes of every successful completion, and records every completion by cookie, so that a
 * completion lost or delivered twice, out of posting order, or a success after a failure is found.
 *
 * <p>Memory ({@link #BYTES}, registered with every privilege): request slots (a Send's or Write's source, a Read's
 * sink), receive slots, the area the peer writes into ({@link #writeArea}) and the area the peer reads
 * ({@link #readSource}, a fixed pattern). Every Send and Write carries its sequence number in its first 8 bytes
 * and a pattern derived from it; the receiver expects the sender's Sends in sequence, each once.
 *
 * <p>One thread drives a stream ({@link #step}); the test reads its results after the stream ended.
 */
final class StreamEnd {
    /** Requests outstanding at most. */
    static final int WINDOW = 12;
    /** RDMA Reads outstanding at most (the EP's {@code max_rdma_read_out}). */
    static final int READS = 4;
    /** Receives kept posted. */
    static final int RECEIVES = 32;
    /** Slots of the write area (a Write goes to slot {@code seq % WRITE_SLOTS}). */
    static final int WRITE_SLOTS = 8;
    /** One slot: the largest transfer. */
    static final int SLOT = 24 * 1024;
    private static final long RECV_BASE = (long) WINDOW * SLOT;
    private static final long WRITE_BASE = RECV_BASE + (long) RECEIVES * SLOT;
    private static final long READ_BASE = WRITE_BASE + (long) WRITE_SLOTS * SLOT;
    /** The registered memory a side needs. */
    static final long BYTES = READ_BASE + SLOT;
    /** Request cookies start here; receive cookies are below it. */
    private static final long REQUEST_COOKIES = 1L << 40;
    private static final int READ_SEED = 99;

    enum Op { SEND, WRITE, READ }

    private final String name;
    private final Endpoint ep;
    private final EventDispatcher recvEvd;
    private final EventDispatcher reqEvd;
    private final EventDispatcher connEvd;
    private final Lmr lmr;
    private final MemorySegment buf;
    private RmrTriplet peerWrites;
    private RmrTriplet peerReads;
    private final DatEvent ev = new DatEvent();

    // requests: cookie = REQUEST_COOKIES + posting index
    private long nextRequest;
    private long nextOp;
    private long sendSeq;
    private long writeSeq;
    private long readSeq;
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    private final java.util.HashMap<Long, Posted> outstanding = new java.util.HashMap<>();
    private int readsOut;
    // receives: cookie = posting index
    private long nextRecv;
    private final java.util.HashMap<Long, Integer> recvSlot = new java.util.HashMap<>();
    /** The peer's next Send sequence expected. */
    private long expectSend;

    private long lastRequestCookie = -1;
    private long lastRecvCookie = -1;
    private boolean requestFailed;
    private boolean recvFailed;
    /** The connection event that ended the stream, or null. */
    EventNumber ended;
    /** Posting stopped: this side ends the connection, or it ended. */
    private boolean stopPosting;
    final List<String> errors = new ArrayList<>();
    /** Counts, for the report and the test's checks. */
    long requestsOk;
    long requestsFlushed;
    long receivesOk;
    long receivesFlushed;
    long completions;
    /** Sends of this side that completed successfully: 0 .. sendsOk - 1 (they complete in order). */
    long sendsOk;
    /** Per write-area slot of the peer: the sequence of the last Write posted to it, and whether it succeeded. */
    private final long[] lastWrite = new long[WRITE_SLOTS];
    private final boolean[] lastWriteOk = new boolean[WRITE_SLOTS];
    /** Other statuses seen ({@link #failAt}), by cookie: the tests say which they expect. */
    final java.util.TreeMap<Long, DtoCompletionStatus> failures = new java.util.TreeMap<>();
    /**
     * A Write to post with a wrong RMR context (the peer refuses it): the first Write from this posting index on,
     * once a receive completed on this side; -1 for none.
     */
    long badWriteAt = -1;
    long badWriteCookie = -1;
    /** The first request that did not succeed, or -1. */
    long firstFailedRequest = -1;

    private record Posted(Op op, long seq, int slot, long length) {
    }

    StreamEnd(String name, Endpoint ep, EventDispatcher recvEvd, EventDispatcher reqEvd, EventDispatcher connEvd,
            Lmr lmr, MemorySegment buf) {
        this.name = name;
        this.ep = ep;
        this.recvEvd = recvEvd;
        this.reqEvd = reqEvd;
        this.connEvd = connEvd;
        this.lmr = lmr;
        this.buf = buf;
        for (int i = 0; i < WINDOW; i++) {
            freeSlots.add(i);
        }
        for (long i = 0; i < SLOT; i++) {
            buf.set(ValueLayout.JAVA_BYTE, READ_BASE + i, pattern(READ_SEED, i));
        }
        java.util.Arrays.fill(lastWrite, -1);
    }

    /** What the peer may write: the write area. */
    RmrTriplet writeArea() {
        return lmr.remoteTriplet(WRITE_BASE, (long) WRITE_SLOTS * SLOT);
    }

    /** What the peer may read: the read source. */
    RmrTriplet readSource() {
        return lmr.remoteTriplet(READ_BASE, SLOT);
    }

    /** The two triplets as private data (40 bytes). */
    byte[] privateData() {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        for (RmrTriplet t : new RmrTriplet[] {writeArea(), readSource()}) {
            b.putInt(t.rmrContext()).putLong(t.targetAddress()).putLong(t.segmentLength());
        }
        return b.array();
    }

    /** The peer's triplets, from its {@link #privateData}. */
    void peer(byte[] data) {
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        peer(new RmrTriplet(b.getInt(), b.getLong(), b.getLong()), new RmrTriplet(b.getInt(), b.getLong(), b.getLong()));
    }

    void peer(RmrTriplet writes, RmrTriplet reads) {
        peerWrites = writes;
        peerReads = reads;
    }

    /** Posts the receives (before the connection is established). */
    void postReceives() {
        for (int i = 0; i < RECEIVES; i++) {
            postRecv(i);
        }
    }

    static byte pattern(long seed, long i) {
        return (byte) (seed * 31 + i * 7 + (i >>> 8));
    }

    /** The length of a transfer by its kind's sequence: 64 B (inline), 3000 B, a full slot (past the inline size). */
    static int length(long seq) {
        return switch ((int) (seq % 5)) {
            case 0, 2 -> 64;
            case 1, 3 -> 3000;
            default -> SLOT;
        };
    }

    /** Stops posting new requests and receives (this side is about to end the connection). */
    void stopPosting() {
        stopPosting = true;
    }

    /** Whether everything this side posted has completed and its connection ended. */
    boolean done() {
        return ended != null && outstanding.isEmpty() && recvSlot.isEmpty();
    }

    /**
     * One step: posts up to the window, dequeues what completed. {@code onCompletion} hears the running count of
     * completions (the test ends the connection at one of them).
     */
    void step(IntConsumer onCompletion) {
        while (!stopPosting && ended == null && outstanding.size() < WINDOW) {
            if (!postRequest()) {
                break;
            }
        }
        while (reqEvd.dequeue(ev)) {
            request(ev);
            onCompletion.accept((int) ++completions);
        }
        while (recvEvd.dequeue(ev)) {
            receive(ev);
            onCompletion.accept((int) ++completions);
        }
        while (connEvd.dequeue(ev)) {
            EventNumber n = ev.eventNumber();
            if (n != EventNumber.CONNECTION_EVENT_DISCONNECTED && n != EventNumber.CONNECTION_EVENT_BROKEN) {
                errors.add(name + ": connection event " + n);
            } else if (ended != null) {
                errors.add(name + ": a second ending " + n + " after " + ended);
            } else {
                ended = n;
            }
        }
    }

    /** Disconnects (this side's thread). */
    void disconnect(boolean graceful) {
        stopPosting = true;
        ep.disconnect(graceful ? CloseFlags.GRACEFUL : CloseFlags.ABRUPT);
    }

    private boolean postRequest() {
        Op op = switch ((int) (nextOp % 3)) {
            case 0 -> Op.SEND;
            case 1 -> Op.WRITE;
            default -> Op.READ;
        };
        if (op == Op.READ && readsOut == READS) {
            op = Op.SEND;
        }
        nextOp++;
        int slot = freeSlots.remove();
        long at = (long) slot * SLOT;
        long cookie = REQUEST_COOKIES + nextRequest;
        Posted p;
        switch (op) {
            case SEND -> {
                long seq = sendSeq++;
                int len = length(seq);
                stamp(at, seq, len);
                p = new Posted(op, seq, slot, len);
                outstanding.put(cookie, p);
                ep.postSend(1, new LmrTriplet[] {lmr.triplet(at, len)}, cookie, CompletionFlags.DEFAULT);
            }
            case WRITE -> {
                long seq = writeSeq++;
                int len = length(seq);
                stamp(at, seq, len);
                int target = (int) (seq % WRITE_SLOTS);
                lastWrite[target] = seq;
                lastWriteOk[target] = false;
                p = new Posted(op, seq, slot, len);
                outstanding.put(cookie, p);
                int ctx = peerWrites.rmrContext();
                // the first Write from badWriteAt on, once a receive completed here (the stream goes both ways)
                if (badWriteAt >= 0 && badWriteCookie < 0 && nextRequest >= badWriteAt && receivesOk > 0) {
                    ctx ^= 0x5a5a0000; // a context the peer never gave: refused at the target (RWR-09)
                    badWriteCookie = cookie;
                }
                ep.postRdmaWrite(1, new LmrTriplet[] {lmr.triplet(at, len)}, cookie,
                        new RmrTriplet(ctx, peerWrites.targetAddress() + (long) target * SLOT, len),
                        CompletionFlags.DEFAULT);
            }
            default -> {
                long seq = readSeq++;
                int len = length(seq);
                buf.asSlice(at, len).fill((byte) 0);
                p = new Posted(op, seq, slot, len);
                outstanding.put(cookie, p);
                readsOut++;
                ep.postRdmaRead(1, new LmrTriplet[] {lmr.triplet(at, len)}, cookie,
                        new RmrTriplet(peerReads.rmrContext(), peerReads.targetAddress(), len),
                        CompletionFlags.DEFAULT);
            }
        }
        nextRequest++;
        return true;
    }

    private void stamp(long at, long seq, int len) {
        for (int i = 8; i < len; i++) {
            buf.set(ValueLayout.JAVA_BYTE, at + i, pattern(seq, i));
        }
        buf.set(ValueLayout.JAVA_LONG_UNALIGNED, at, seq);
    }

    /**
     * The entry of {@code e}'s cookie, removed from {@code posted}; null (and an error recorded) if {@code e} is no
     * DTO completion or its cookie is not outstanding (completed twice, or never posted).
     */
    private <T> T taken(java.util.Map<Long, T> posted, DatEvent e, String queue) {
        T t = posted.remove(e.userCookie());
        if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
            errors.add(name + ": on the " + queue + " EVD: " + e);
            return null;
        }
        if (t == null) {
            errors.add(name + ": " + queue + " completion of cookie " + e.userCookie()
                    + ", not outstanding (twice, or never posted)");
        }
        return t;
    }

    private void request(DatEvent e) {
        long cookie = e.userCookie();
        Posted p = taken(outstanding, e, "request");
        if (p == null) {
            return;
        }
        freeSlots.add(p.slot);
        if (p.op == Op.READ) {
            readsOut--;
        }
        if (cookie <= lastRequestCookie) {
            errors.add(name + ": request " + cookie + " completed after " + lastRequestCookie + " (DTOs complete in order)");
        }
        lastRequestCookie = cookie;
        DtoCompletionStatus st = e.status();
        if (st == DtoCompletionStatus.SUCCESS) {
            if (requestFailed) {
                errors.add(name + ": request " + cookie + " (" + p.op + ") succeeded after a failed one (DSC-05)");
            }
            requestsOk++;
            if (e.transferredLength() != p.length) {
                errors.add(name + ": " + p.op + " " + p.seq + " transferred " + e.transferredLength() + " of " + p.length);
            }
            switch (p.op) {
                case SEND -> {
                    if (p.seq != sendsOk) {
                        errors.add(name + ": Send " + p.seq + " succeeded as the " + sendsOk + "th");
                    }
                    sendsOk++;
                }
                case WRITE -> {
                    int target = (int) (p.seq % WRITE_SLOTS);
                    if (lastWrite[target] == p.seq) {
                        lastWriteOk[target] = true;
                    }
                }
                case READ -> {
                    long at = (long) p.slot * SLOT;
                    for (long i = 0; i < p.length; i++) {
                        if (buf.get(ValueLayout.JAVA_BYTE, at + i) != pattern(READ_SEED, i)) {
                            errors.add(name + ": RDMA Read " + p.seq + " completed without its bytes (at " + i + ")");
                            break;
                        }
                    }
                }
            }
            return;
        }
        if (!requestFailed) {
            firstFailedRequest = cookie;
        }
        requestFailed = true;
        if (st == DtoCompletionStatus.ERR_FLUSHED) {
            requestsFlushed++;
        } else {
            failures.put(cookie, st);
        }
    }

    private void receive(DatEvent e) {
        long cookie = e.userCookie();
        Integer slot = taken(recvSlot, e, "receive");
        if (slot == null) {
            return;
        }
        if (cookie <= lastRecvCookie) {
            errors.add(name + ": receive " + cookie + " completed after " + lastRecvCookie);
        }
        lastRecvCookie = cookie;
        DtoCompletionStatus st = e.status();
        if (st != DtoCompletionStatus.SUCCESS) {
            recvFailed = true;
            if (st == DtoCompletionStatus.ERR_FLUSHED) {
                receivesFlushed++;
            } else {
                failures.put(cookie, st);
            }
            return;
        }
        if (recvFailed) {
            errors.add(name + ": receive " + cookie + " succeeded after a failed one (DSC-05)");
        }
        receivesOk++;
        long at = RECV_BASE + (long) slot * SLOT;
        long seq = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
        int len = length(expectSend);
        if (seq != expectSend || e.transferredLength() != len) {
            errors.add(name + ": received Send " + seq + " of " + e.transferredLength() + " bytes, expected Send "
                    + expectSend + " of " + len + " (each once, in order)");
        } else {
            for (int i = 8; i < len; i++) {
                if (buf.get(ValueLayout.JAVA_BYTE, at + i) != pattern(seq, i)) {
                    errors.add(name + ": Send " + seq + " received with wrong bytes at " + i);
                    break;
                }
            }
        }
        expectSend++;
        if (!stopPosting && ended == null) {
            postRecv(slot);
        }
    }

    private void postRecv(int slot) {
        long cookie = nextRecv++;
        recvSlot.put(cookie, slot);
        ep.postRecv(1, new LmrTriplet[] {lmr.triplet(RECV_BASE + (long) slot * SLOT, SLOT)}, cookie,
                CompletionFlags.DEFAULT);
    }

    /** The peer's Sends this side received, each once and in order. */
    long sendsReceived() {
        return expectSend;
    }

    /**
     * Checks, in this side's memory, the Writes the peer reported complete: every write-area slot whose last Write
     * (by the peer's record {@code peer}) succeeded holds that Write's bytes.
     */
    void checkWritesLanded(StreamEnd peer) {
        for (int t = 0; t < WRITE_SLOTS; t++) {
            if (!peer.lastWriteOk[t]) {
                continue;
            }
            long seq = peer.lastWrite[t];
            long at = WRITE_BASE + (long) t * SLOT;
            int len = length(seq);
            long got = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
            if (got != seq) {
                errors.add(name + ": write slot " + t + " holds Write " + got + ", the peer completed Write " + seq);
                continue;
            }
            for (int i = 8; i < len; i++) {
                if (buf.get(ValueLayout.JAVA_BYTE, at + i) != pattern(seq, i)) {
                    errors.add(name + ": Write " + seq + " completed at the peer, wrong byte at " + i);
                    break;
                }
            }
        }
    }

    /** What is still outstanding, for failure messages. */
    String pending() {
        return name + ": " + outstanding.size() + " requests and " + recvSlot.size() + " receives outstanding, ended "
                + ended + ", " + requestsOk + " requests ok, " + requestsFlushed + " flushed, " + receivesOk
                + " receives ok, " + receivesFlushed + " flushed, other " + failures;
    }

    @Override
    public String toString() {
        return pending();
    }
}
