package io.jdat.tools.perf;

import io.jdat.CompletionFlags;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.cli.Sizes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RDMA Write ping-pong, like {@code ucx_perftest ucp_put_lat}: the client RDMA-writes a payload whose last
 * 8 bytes are the sequence number into the server's memory; the server spins on that word in its own
 * memory, RDMA-writes the payload back into the client's memory, and verifies it; the client spins likewise
 * and verifies the echo. Writes use {@link CompletionFlags#SUPPRESS}; no completion is polled (an RDMA Write
 * raises no event at its target, so {@code --wait} changes nothing here). Reported as RTT/2. The client runs
 * {@link Rounds}; the "ready" barrier carries the first. Without verification only the sequence word is
 * written and watched.
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

    /**
     * Posts one {@code SUPPRESS}ed RDMA Write. A suppressed write holds its request slot until the device completes
     * it, and a device may complete late (rdma_rxe acknowledges a write when its ACK is processed, in a softirq that
     * a loaded guest delays), so {@code max_request_dtos} of them can be outstanding although the peer already saw
     * them: {@code dat_ep_post_rdma_write} then fails with {@code DAT_INSUFFICIENT_RESOURCES} (EPM-23), as DAT
     * allows. The side then drives progress on its request EVD until a slot is free and posts again (perftest's
     * {@code ib_write_lat} waits for every write's completion instead).
     */
    private static void post(PerfSession s, LmrTriplet[] iov, long cookie, RmrTriplet peer, String what) {
        long start = 0;
        for (;;) {
            try {
                s.ep().postRdmaWrite(1, iov, cookie, peer, CompletionFlags.SUPPRESS);
                return;
            } catch (DatException x) {
                if (x.type() != DatReturnType.INSUFFICIENT_RESOURCES) {
                    throw x;
                }
            }
            start = s.poller.awaitRequestSlot(s.side.reqEvd, start, what, cookie);
        }
    }

    @Override
    public void server(PerfSession s) {
        MemorySegment m = s.mem();
        boolean verify = s.config.verify();
        long[] off = {s.layout.small(1), s.layout.small(2)};
        LmrTriplet[][] local = {s.iov(off[0], size), s.iov(off[1], size)};
        RmrTriplet[] peer = {s.remote(off[0], size), s.remote(off[1], size)};
        String what = NAME + " " + Sizes.format(size);
        String roundPhase = what + " round";
        String check = "server: " + what;
        m.asSlice(off[0], 2 * s.layout.smallSlot()).fill((byte) 0);
        Poller poller = s.poller;
        Rounds.Chunk body = (from, to, end) -> {
            for (long i = from; i < to; i++) {
                int j = (int) (i & 1);
                long seq = i + 1;
                poller.awaitWord(m, off[j] + size - 8, seq, what, s.side.reqEvd);
                post(s, local[j], i, peer[j], what);
                if (verify) {
                    Pattern.verifyEventually(m, off[j], size - 8, seq, GRACE_NANOS, check);
                }
            }
        };
        long i = 0;
        for (long n = s.sync.learn(what + " ready"); n > 0; n = s.sync.learn(roundPhase)) {
            i = Rounds.run(i, i + n, body);
        }
        s.sync.await(what + " done");
    }

    @Override
    public PerfResult client(PerfSession s) {
        MemorySegment m = s.mem();
        boolean verify = s.config.verify();
        long src = s.layout.small(0);
        long[] off = {s.layout.small(1), s.layout.small(2)};
        LmrTriplet[] srcIov = s.iov(src, size);
        RmrTriplet[] peer = {s.remote(off[0], size), s.remote(off[1], size)};
        String what = NAME + " " + Sizes.format(size);
        String roundPhase = what + " round";
        String echo = what + " echo";
        String check = "client: " + echo;
        Latency samples = new Latency();
        Rounds rounds = Rounds.latency(s.config);
        CpuMeter cpu = new CpuMeter(s.sync);
        m.asSlice(off[0], 2 * s.layout.smallSlot()).fill((byte) 0);
        Poller poller = s.poller;
        Rounds.Chunk body = (from, to, end) -> {
            for (long i = from; i < to; i++) {
                int j = (int) (i & 1);
                long seq = i + 1;
                if (verify) {
                    Pattern.fill(m, src, size - 8, seq);
                }
                m.set(ValueLayout.JAVA_LONG, src + size - 8, seq);
                long t0 = System.nanoTime();
                post(s, srcIov, i, peer[j], echo);
                poller.awaitWord(m, off[j] + size - 8, seq, echo, s.side.reqEvd);
                long t1 = System.nanoTime();
                samples.record(t1 - t0);
                if (verify) {
                    Pattern.verifyEventually(m, off[j], size - 8, seq, GRACE_NANOS, check);
                }
            }
        };
        long i = 0;
        long roundNanos = 0;
        // The "ready" barrier (both sides' slots are clear) carries the first round.
        for (long n = s.sync.decide(what + " ready", rounds.next(0)); n > 0;
                n = s.sync.decide(roundPhase, rounds.next(roundNanos))) {
            roundNanos = samples.round(rounds, cpu, i, n, body);
            i += n;
        }
        cpu.round(false);
        s.sync.await(what + " done");
        return PerfResult.latency(NAME, size, samples.samples(), 2).withCpu(cpu.nanos());
    }
}
