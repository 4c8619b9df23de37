package io.jdat.tools;

import io.jdat.CompletionFlags;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.LmrTriplet;
import java.lang.foreign.MemorySegment;
import org.HdrHistogram.Histogram;

/**
 * Send/receive ping-pong: the client sends a message carrying the pattern of its iteration number; the
 * server receives it, sends it straight back from the receive buffer, verifies it, and re-posts the
 * buffer; the client receives the echo and verifies it. The server keeps two receives posted, so the one
 * for the next message is always posted before it replies. Sends use {@link CompletionFlags#SUPPRESS};
 * both sides busy-poll. The time is the client's round trip, reported as RTT/2.
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
        int total = s.config.warmup() + s.config.iterations();
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        EventDispatcher recvEvd = s.side.recvEvd;
        long[] off = {s.layout.small(0), s.layout.small(1)};
        LmrTriplet[][] slot = {s.iov(off[0], size), s.iov(off[1], size)};
        String what = NAME + " " + Sizes.format(size) + " receive";
        String check = "server: " + what;
        for (int i = 0; i < Math.min(2, total); i++) {
            ep.postRecv(1, slot[i], i, CompletionFlags.DEFAULT);
        }
        s.sync.await(what + " ready");
        for (int i = 0; i < total; i++) {
            int j = i & 1;
            s.poller.dto(recvEvd, i, size, what);
            ep.postSend(1, slot[j], i, CompletionFlags.SUPPRESS);
            Pattern.verify(m, off[j], size, i, check);
            if (i + 2 < total) {
                ep.postRecv(1, slot[j], i + 2, CompletionFlags.DEFAULT);
            }
        }
        s.sync.await(what + " done");
    }

    @Override
    public PerfResult client(PerfSession s) {
        int warmup = s.config.warmup();
        int total = warmup + s.config.iterations();
        MemorySegment m = s.mem();
        Endpoint ep = s.ep();
        EventDispatcher recvEvd = s.side.recvEvd;
        long sendOff = s.layout.small(0);
        long recvOff = s.layout.small(1);
        LmrTriplet[] sendIov = s.iov(sendOff, size);
        LmrTriplet[] recvIov = s.iov(recvOff, size);
        String what = NAME + " " + Sizes.format(size) + " echo";
        String check = "client: " + what;
        Histogram h = Latency.histogram();
        s.sync.await(NAME + " " + Sizes.format(size) + " receive ready");
        for (int i = 0; i < total; i++) {
            Pattern.fill(m, sendOff, size, i);
            ep.postRecv(1, recvIov, i, CompletionFlags.DEFAULT);
            long t0 = System.nanoTime();
            ep.postSend(1, sendIov, i, CompletionFlags.SUPPRESS);
            s.poller.dto(recvEvd, i, size, what);
            long t1 = System.nanoTime();
            Latency.record(h, i, warmup, t1 - t0);
            Pattern.verify(m, recvOff, size, i, check);
        }
        s.sync.await(NAME + " " + Sizes.format(size) + " receive done");
        return PerfResult.latency(NAME, size, h, 2);
    }
}
