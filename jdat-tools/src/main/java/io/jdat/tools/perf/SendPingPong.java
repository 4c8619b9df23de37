package io.jdat.tools.perf;

import io.jdat.CompletionFlags;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.LmrTriplet;
import io.jdat.tools.cli.Sizes;
import java.lang.foreign.MemorySegment;

/**
 * Send/receive ping-pong: the client sends a message carrying the pattern of its iteration number; the
 * server receives it, sends it straight back from the receive buffer, verifies it, and re-posts the
 * buffer; the client receives the echo and verifies it. The server keeps two receives posted, so the one
 * for the next message is always posted before it replies. Sends use {@link CompletionFlags#SUPPRESS};
 * completions are polled (or waited for, {@code --wait}). The time is the client's round trip, from the post of
 * the receive for the echo to the echo's completion, reported as RTT/2: it holds the same posts as
 * {@code ib_send_lat}'s, whose time stamps run from one {@code post_send} to the next with the receive's re-post
 * between them. The client runs {@link Rounds}; the server posts the first two receives of each round before the
 * round's "ready" barrier. Without verification ({@code --no-verify}) no pattern is written or checked.
 *
 * <p>Slots: client sends from small slot 0 and receives into 1; the server receives into 0 and 1 alternately.
 *
 * @param size the message size
 */
record SendPingPong(long size) implements Measurement {
    /** The operation column. */
    static final String NAME = "send/recv ping-pong";

    @Override
    public String operation() {
        return NAME;
    }

    @Override
    public void server(PerfSession s) {
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        EventDispatcher recvEvd = s.side.recvEvd;
        boolean verify = s.config.verify();
        long[] off = {s.layout.small(0), s.layout.small(1)};
        LmrTriplet[][] slot = {s.iov(off[0], size), s.iov(off[1], size)};
        String phase = NAME + " " + Sizes.format(size);
        String roundPhase = phase + " round";
        String what = phase + " receive";
        String check = "server: " + what;
        Poller poller = s.poller;
        Rounds.Chunk body = (from, to, end) -> {
            for (long i = from; i < to; i++) {
                int j = (int) (i & 1);
                poller.dto(recvEvd, i, size, what);
                ep.postSend(1, slot[j], i, CompletionFlags.SUPPRESS);
                if (verify) {
                    Pattern.verify(m, off[j], size, i, check);
                }
                if (i + 2 < end) {
                    ep.postRecv(1, slot[j], i + 2, CompletionFlags.DEFAULT);
                }
            }
        };
        long i = 0;
        long n;
        while ((n = s.sync.learn(roundPhase)) > 0) {
            long end = i + n;
            for (long k = i; k < Math.min(i + 2, end); k++) {
                ep.postRecv(1, slot[(int) (k & 1)], k, CompletionFlags.DEFAULT);
            }
            s.sync.await(what + " ready");
            i = Rounds.run(i, end, body);
        }
        s.sync.await(what + " done");
    }

    @Override
    public PerfResult client(PerfSession s) {
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        EventDispatcher recvEvd = s.side.recvEvd;
        boolean verify = s.config.verify();
        long sendOff = s.layout.small(0);
        long recvOff = s.layout.small(1);
        LmrTriplet[] sendIov = s.iov(sendOff, size);
        LmrTriplet[] recvIov = s.iov(recvOff, size);
        String phase = NAME + " " + Sizes.format(size);
        String roundPhase = phase + " round";
        String what = phase + " echo";
        String check = "client: " + what;
        Latency samples = new Latency();
        Rounds rounds = Rounds.latency(s.config);
        CpuMeter cpu = new CpuMeter(s.sync);
        Poller poller = s.poller;
        Rounds.Chunk body = (from, to, end) -> {
            for (long i = from; i < to; i++) {
                if (verify) {
                    Pattern.fill(m, sendOff, size, i);
                }
                // The sample holds the receive's post too: perftest's time stamps run from one post_send to the
                // next, and its loop re-posts the receive in between.
                long t0 = System.nanoTime();
                ep.postRecv(1, recvIov, i, CompletionFlags.DEFAULT);
                ep.postSend(1, sendIov, i, CompletionFlags.SUPPRESS);
                poller.dto(recvEvd, i, size, what);
                long t1 = System.nanoTime();
                samples.record(t1 - t0);
                if (verify) {
                    Pattern.verify(m, recvOff, size, i, check);
                }
            }
        };
        long i = 0;
        long n;
        long roundNanos = 0;
        while ((n = s.sync.decide(roundPhase, rounds.next(roundNanos))) > 0) {
            s.sync.await(phase + " receive ready");
            roundNanos = samples.round(rounds, cpu, i, n, body);
            i += n;
        }
        cpu.round(false);
        s.sync.await(phase + " receive done");
        return PerfResult.latency(NAME, size, samples.samples(), 2).withCpu(cpu.nanos());
    }
}
