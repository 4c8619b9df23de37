package io.jdat.tools.perf;

import io.jdat.CompletionFlags;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.cli.Sizes;
import java.lang.foreign.MemorySegment;

/**
 * RDMA Read latency: the client clears its sink, then times one blocking read of the server's pattern
 * (post, then poll or wait for the completion) and verifies what arrived. The server provides the source,
 * follows the client's {@link Rounds} and polls while it serves each (until the client's end mark), as
 * {@code ucx_perftest}'s responder does, so that a software transport answers the reads on its thread. Reported per operation (a read is a round trip; not
 * halved). Without verification the sink is neither cleared nor checked.
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
        String roundPhase = what + " round";
        Pattern.fill(s.mem(), s.layout.small(3), size, SEED);
        for (long n = s.sync.learn(what + " ready"); n > 0; n = s.sync.learn(roundPhase)) {
            s.serveUntilMark(s.nextMark(), what);
        }
        s.sync.await(what + " done");
    }

    @Override
    public PerfResult client(PerfSession s) {
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        EventDispatcher reqEvd = s.side.reqEvd;
        boolean verify = s.config.verify();
        long sink = s.layout.small(3);
        MemorySegment sinkSeg = m.asSlice(sink, size);
        LmrTriplet[] sinkIov = s.iov(sink, size);
        RmrTriplet source = s.remote(s.layout.small(3), size);
        String what = NAME + " " + Sizes.format(size);
        String roundPhase = what + " round";
        String check = "client: " + what;
        Latency samples = new Latency();
        Rounds rounds = Rounds.latency(s.config);
        CpuMeter cpu = new CpuMeter(s.sync);
        Poller poller = s.poller;
        Rounds.Chunk body = (from, to, end) -> {
            for (long i = from; i < to; i++) {
                if (verify) {
                    sinkSeg.fill((byte) 0);
                }
                long t0 = System.nanoTime();
                ep.postRdmaRead(1, sinkIov, i, source, CompletionFlags.DEFAULT);
                poller.dto(reqEvd, i, size, what);
                long t1 = System.nanoTime();
                samples.record(t1 - t0);
                if (verify) {
                    Pattern.verify(m, sink, size, SEED, check);
                }
            }
        };
        long i = 0;
        long roundNanos = 0;
        for (long n = s.sync.decide(what + " ready", rounds.next(0)); n > 0;
                n = s.sync.decide(roundPhase, rounds.next(roundNanos))) {
            roundNanos = samples.round(rounds, cpu, i, n, body);
            i += n;
            s.sendEndMark(s.nextMark());
        }
        cpu.round(false);
        s.sync.await(what + " done");
        return PerfResult.latency(NAME, size, samples.samples(), 1).withCpu(cpu.nanos());
    }
}
