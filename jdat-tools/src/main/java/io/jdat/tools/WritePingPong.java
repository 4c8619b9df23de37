package io.jdat.tools;

import io.jdat.CompletionFlags;
import io.jdat.Endpoint;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.HdrHistogram.Histogram;

/**
 * RDMA Write ping-pong, like {@code ucx_perftest ucp_put_lat}: the client RDMA-writes a payload whose last
 * 8 bytes are the sequence number into the server's memory; the server spins on that word in its own
 * memory, RDMA-writes the payload back into the client's memory, and verifies it; the client spins likewise
 * and verifies the echo. Writes use {@link CompletionFlags#SUPPRESS}; no completion is polled. Reported as
 * RTT/2.
 *
 * <p>Slots: the client writes from small slot 0; iteration {@code i} lands in slot {@code 1 + i % 2} on both
 * sides, so a side verifies one slot while the next iteration uses the other.
 *
 * @param size the payload size (a multiple of 8, at least 8)
 */
record WritePingPong(long size) implements Measurement {
    /** The operation column. */
    static final String NAME = "RDMA write ping-pong";
    /** How long a payload word may lag behind the sequence word. */
    private static final long GRACE_NANOS = 1_000_000;

    @Override
    public String operation() {
        return NAME;
    }

    @Override
    public void server(PerfSession s) {
        int total = s.config.warmup() + s.config.iterations();
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        long[] off = {s.layout.small(1), s.layout.small(2)};
        LmrTriplet[][] local = {s.iov(off[0], size), s.iov(off[1], size)};
        RmrTriplet[] peer = {s.remote(off[0], size), s.remote(off[1], size)};
        String what = NAME + " " + Sizes.format(size);
        String check = "server: " + what;
        m.asSlice(off[0], 2 * s.layout.smallSlot()).fill((byte) 0);
        s.sync.await(what + " ready");
        for (int i = 0; i < total; i++) {
            int j = i & 1;
            long seq = i + 1L;
            s.poller.awaitWord(m, off[j] + size - 8, seq, what, s.side.reqEvd);
            ep.postRdmaWrite(1, local[j], i, peer[j], CompletionFlags.SUPPRESS);
            Pattern.verifyEventually(m, off[j], size - 8, seq, GRACE_NANOS, check);
        }
        s.sync.await(what + " done");
    }

    @Override
    public PerfResult client(PerfSession s) {
        int warmup = s.config.warmup();
        int total = warmup + s.config.iterations();
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        long src = s.layout.small(0);
        long[] off = {s.layout.small(1), s.layout.small(2)};
        LmrTriplet[] srcIov = s.iov(src, size);
        RmrTriplet[] peer = {s.remote(off[0], size), s.remote(off[1], size)};
        String what = NAME + " " + Sizes.format(size);
        String echo = what + " echo";
        String check = "client: " + echo;
        Histogram h = Latency.histogram();
        m.asSlice(off[0], 2 * s.layout.smallSlot()).fill((byte) 0);
        s.sync.await(what + " ready");
        for (int i = 0; i < total; i++) {
            int j = i & 1;
            long seq = i + 1L;
            Pattern.fill(m, src, size - 8, seq);
            m.set(ValueLayout.JAVA_LONG, src + size - 8, seq);
            long t0 = System.nanoTime();
            ep.postRdmaWrite(1, srcIov, i, peer[j], CompletionFlags.SUPPRESS);
            s.poller.awaitWord(m, off[j] + size - 8, seq, echo, s.side.reqEvd);
            long t1 = System.nanoTime();
            Latency.record(h, i, warmup, t1 - t0);
            Pattern.verifyEventually(m, off[j], size - 8, seq, GRACE_NANOS, check);
        }
        s.sync.await(what + " done");
        return PerfResult.latency(NAME, size, h, 2);
    }
}
