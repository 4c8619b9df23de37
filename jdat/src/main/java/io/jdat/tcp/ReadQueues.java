package io.jdat.tcp;

import io.jdat.spi.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The RDMA Read queues of one connection (RFC 5040 §5.2; siw's ORQ and IRQ): the <em>outbound</em> Reads
 * this side requested and awaits Read Responses for (at most the negotiated ORD), and the <em>inbound</em>
 * Read Requests it admitted and owes Read Responses for (at most the negotiated IRD).
 *
 * <p>Both are single-producer, single-consumer rings between the two paths of the connection, each path
 * under its own lock:
 * <ul>
 *   <li>outbound: the transmitter {@link #addOutbound adds} a Read when it sends the Read Request; the
 *       receive path {@link #outboundSink matches} Read Responses to the oldest and
 *       {@link #removeOutbound removes} it when its last Read Response arrived;</li>
 *   <li>inbound: the receive path {@link #addInbound adds} a Read Request the core admitted; the
 *       transmitter sends its Read Responses from {@link #inbound} and {@link #inboundSent removes} it once
 *       the last one is in the socket.</li>
 * </ul>
 * Memory ordering: a producer writes the entry's plain fields, then the ring's tail with a volatile store
 * (release); the consumer reads the tail with a volatile load (acquire) before the fields. The consumer
 * publishes the head the same way once it no longer reads the entry, and the producer reads the head before
 * it reuses a slot. Nothing here allocates but an inbound slot's entry, once, on its first use.
 */
final class ReadQueues {
    /** The largest ORD a connection runs with (the outbound ring's size, a power of two). */
    static final int MAX_ORD = 128;

    // Outbound: tail written by the transmitter, head by the receive path.
    private final WorkRequest[] outWr = new WorkRequest[MAX_ORD];
    private final int[] outStag = new int[MAX_ORD];
    private final long[] outOrder = new long[MAX_ORD];
    private volatile long outHead;
    private volatile long outTail;
    private final int ordLimit;
    private final int stagSeed = ThreadLocalRandom.current().nextInt() & 0xFFFFFF00;
    private int stagSeq;

    // Inbound: tail written by the receive path, head by the transmitter.
    private final InboundRead[] in;
    private volatile long inHead;
    private volatile long inTail;

    /**
     * One incoming RDMA Read to answer: where the Read Responses go and what they carry (the source's STag and TO,
     * which the transmitter holds for each read of it, and the memory the core resolved them to).
     */
    static final class InboundRead {
        int sinkStag;
        long sinkTo;
        int sourceStag;
        long sourceTo;
        MemorySegment segment;
        long offset;
        long size;
    }

    /**
     * @param irdLimit the negotiated IRD (at least one slot)
     * @param ordLimit the negotiated ORD (1 to {@link #MAX_ORD})
     */
    ReadQueues(int irdLimit, int ordLimit) {
        this.ordLimit = Math.min(Math.max(ordLimit, 1), MAX_ORD);
        this.in = new InboundRead[Math.max(irdLimit, 1)]; // entries made on first use: the IRD may be large
    }

    // ------------------------------------------------------------------ outbound (ORQ)

    /** True when the ORD allows no more outstanding Reads (transmitter). */
    boolean outboundFull() {
        return outTail - outHead >= ordLimit;
    }

    /** True when no Read awaits its Read Responses. */
    boolean outboundEmpty() {
        return outHead == outTail;
    }

    /**
     * Records a Read whose Read Request is about to be sent (transmitter).
     *
     * @param wr    the request ({@code order} -1 for a liveness probe, which completes nothing)
     * @param order its place in the transmitter's completion order
     * @return the sink STag the Read Request names
     */
    int addOutbound(WorkRequest wr, long order) {
        int stag = stagSeed | (stagSeq++ & 0xFF);
        long t = outTail;
        int i = (int) (t & (MAX_ORD - 1));
        outWr[i] = wr;
        outStag[i] = stag;
        outOrder[i] = order;
        outTail = t + 1; // volatile: the receive path may match Read Responses from now on
        return stag;
    }

    /**
     * The Read whose Read Responses carry {@code stag}: the oldest outstanding one, or {@code null} (receive
     * path; Read Responses arrive in request order).
     */
    WorkRequest outboundSink(int stag) {
        long h = outHead;
        if (h == outTail) {
            return null;
        }
        int i = (int) (h & (MAX_ORD - 1));
        return outStag[i] == stag ? outWr[i] : null;
    }

    /** The completion-order index of the oldest outstanding Read ({@code -1} for a probe or none). */
    long oldestOutboundOrder() {
        long h = outHead;
        return h == outTail ? -1 : outOrder[(int) (h & (MAX_ORD - 1))];
    }

    /**
     * Removes the oldest outstanding Read, whose last Read Response arrived (receive path; its order is
     * {@link #oldestOutboundOrder} until then).
     *
     * @return the request
     */
    WorkRequest removeOutbound() {
        long h = outHead;
        int i = (int) (h & (MAX_ORD - 1));
        WorkRequest wr = outWr[i];
        outWr[i] = null;
        outHead = h + 1; // volatile: the transmitter may fill the ORD slot
        return wr;
    }

    // ------------------------------------------------------------------ inbound (IRQ)

    /** True when another incoming RDMA Read fits the negotiated IRD (receive path). */
    boolean inboundRoom() {
        return inTail - inHead < in.length;
    }

    /** Queues the answer to an incoming RDMA Read the core admitted (receive path; {@link #inboundRoom} first). */
    void addInbound(int sinkStag, long sinkTo, int sourceStag, long sourceTo, MemorySegment segment, long offset,
            long size) {
        long t = inTail;
        int i = (int) (t % in.length);
        InboundRead r = in[i];
        if (r == null) {
            r = in[i] = new InboundRead(); // once per slot
        }
        r.sinkStag = sinkStag;
        r.sinkTo = sinkTo;
        r.sourceStag = sourceStag;
        r.sourceTo = sourceTo;
        r.segment = segment;
        r.offset = offset;
        r.size = size;
        inTail = t + 1; // volatile: publishes the fields to the transmitter
    }

    /** The number of inbound Reads not fully answered yet (transmitter). */
    long inboundPending() {
        return inTail - inHead;
    }

    /** The inbound Read {@code k} places after the oldest unanswered one (transmitter). */
    InboundRead inbound(int k) {
        return in[(int) ((inHead + k) % in.length)];
    }

    /** The oldest inbound Read's last Read Response is in the socket (transmitter). */
    void inboundSent() {
        long h = inHead;
        in[(int) (h % in.length)].segment = null;
        inHead = h + 1; // volatile: the receive path may reuse the slot
    }

    /** Drops every reference to consumer memory (connection closed; the receive path is stopped). */
    void clear() {
        Arrays.fill(outWr, null);
        for (InboundRead r : in) {
            if (r != null) {
                r.segment = null;
            }
        }
    }
}
