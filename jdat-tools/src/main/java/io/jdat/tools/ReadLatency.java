package io.jdat.tools;

import io.jdat.CompletionFlags;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.lang.foreign.MemorySegment;
import org.HdrHistogram.Histogram;

/**
 * RDMA Read latency: the client clears its sink, then times one blocking read of the server's pattern
 * (post, then busy-poll the completion) and verifies what arrived. The server only provides the source.
 * Reported per operation (a read is a round trip; not halved).
 *
 * <p>Slots: small slot 3 on both sides (server source, client sink).
 *
 * @param size the read size
 */
record ReadLatency(long size) implements Measurement {
    /** The operation column. */
    static final String NAME = "RDMA read";
    /** The seed of the server's source pattern. */
    private static final long SEED = 0x5EAD;

    @Override
    public String operation() {
        return NAME;
    }

    @Override
    public void server(PerfSession s) {
        String what = NAME + " " + Sizes.format(size);
        Pattern.fill(s.mem(), s.layout.small(3), size, SEED);
        s.sync.await(what + " ready");
        s.sync.await(what + " done");
    }

    @Override
    public PerfResult client(PerfSession s) {
        int warmup = s.config.warmup();
        int total = warmup + s.config.iterations();
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        EventDispatcher reqEvd = s.side.reqEvd;
        long sink = s.layout.small(3);
        MemorySegment sinkSeg = m.asSlice(sink, size);
        LmrTriplet[] sinkIov = s.iov(sink, size);
        RmrTriplet source = s.remote(s.layout.small(3), size);
        String what = NAME + " " + Sizes.format(size);
        String check = "client: " + what;
        Histogram h = Latency.histogram();
        s.sync.await(what + " ready");
        for (int i = 0; i < total; i++) {
            sinkSeg.fill((byte) 0);
            long t0 = System.nanoTime();
            ep.postRdmaRead(1, sinkIov, i, source, CompletionFlags.DEFAULT);
            s.poller.dto(reqEvd, i, size, what);
            long t1 = System.nanoTime();
            Latency.record(h, i, warmup, t1 - t0);
            Pattern.verify(m, sink, size, SEED, check);
        }
        s.sync.await(what + " done");
        return PerfResult.latency(NAME, size, h, 1);
    }
}
