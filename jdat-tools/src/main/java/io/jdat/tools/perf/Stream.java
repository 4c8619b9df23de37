package io.jdat.tools.perf;

import io.jdat.CompletionFlags;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.cli.Sizes;
import io.jdat.tools.cli.ToolFailure;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A bandwidth test: the client keeps up to {@code window} transfers of {@code size} bytes outstanding (RDMA
 * Reads: at most the EP's {@code max_rdma_read_out}) and polls (or waits for) their completions, in
 * {@link Rounds}: an untimed warm-up, then {@code bwBytes} in one round, or rounds until the duration is used
 * up. The client posts every {@code n}-th transfer ({@link PerfConfig#signalEvery(int)}: 1 by default; {@code
 * ib_write_bw}'s {@code cq_mod} with {@code --signal-every}) with a completion event and the others with
 * {@code DAT_COMPLETION_SUPPRESS_FLAG}, and counts the event of transfer {@code k} as the completion of every
 * transfer up to {@code k} (a request queue completes in order). MB/s is 10^6 bytes per second over the client's time
 * from the first post to the last completion of each measured round. Transfers are numbered across the rounds of a
 * measurement. The server polls while it serves a round, as {@code ucx_perftest}'s and {@code fi_pingpong}'s responders
 * do: its receive EVD for a send stream, its request EVD until the client's end mark ({@link PerfSession#sendEndMark})
 * for RDMA streams.
 *
 * <p>The send stream uses credit-based flow control, as RDMA applications do: the server RDMA-writes the
 * number of receives it has posted into the client's memory, and the client never sends beyond it.
 *
 * <p>Buffers: by default one per side, which every transfer reuses ({@code ucx_perftest}'s and
 * {@code fi_pingpong}'s {@code send_buffer} / {@code recv_buffer}): every transfer carries the same pattern and
 * the stamp 1 in its first and last 8 bytes, and the sink is cleared before each round, so verification checks
 * that the sink holds the pattern after the transfers (the stamps of every read and received message, the full
 * body of every {@value #SAMPLE_EVERY}th, of the last window's and, for an RDMA Write stream, the target after
 * each round). With {@code --buffers per-op}, a buffer per outstanding transfer (out of cache): every transfer
 * carries its number as the stamp and the pattern of its source slot; source, target and receive rings have
 * different lengths ({@code W}, {@code W + 1}, {@code 2W + 1}), so (for {@code W >= 2}) a slot never receives
 * the same body twice in a row and a transfer that did not happen is detected; checked as above, and every
 * target slot of an RDMA Write stream (the last {@code W + 1} writes). Nothing without verification
 * ({@code --no-verify}).
 *
 * @param kind the operation
 * @param size bytes per transfer (a multiple of 8, at least 16)
 */
record Stream(Kind kind, long size) implements Measurement {
    /** Full-body verification of every n-th transfer. */
    static final int SAMPLE_EVERY = 256;
    /** Source words the server rotates through for its credit updates. */
    private static final int CREDIT_WORDS = 16;
    /** Credit words of the client, one per round, reused every this many rounds. */
    private static final int CREDIT_ROUNDS = 8;

    /** The streamed operation. */
    enum Kind {
        /** RDMA Writes into the server's memory. */
        WRITE("RDMA write stream"),
        /** RDMA Reads of the server's memory. */
        READ("RDMA read stream"),
        /** Sends into receives the server keeps posted. */
        SEND("send stream");

        final String operation;

        Kind(String operation) {
            this.operation = operation;
        }

        /** The {@code --op} that selects this stream. */
        PerfOp op() {
            return switch (this) {
                case WRITE -> PerfOp.RDMA_WRITE;
                case READ -> PerfOp.RDMA_READ;
                case SEND -> PerfOp.SEND;
            };
        }
    }

    @Override
    public String operation() {
        return kind.operation;
    }

    @Override
    public void server(PerfSession s) {
        int w = s.config.window();
        boolean perOp = s.config.perOpBuffers();
        boolean verify = s.config.verify();
        MemorySegment m = s.mem();
        BufferLayout l = s.layout;
        if (kind == Kind.READ) {
            for (int t = 0; t <= (perOp ? w : 0); t++) {
                fillSlot(m, l.bulk(t), t, t + 1L);
            }
        }
        String what = kind.operation + " " + Sizes.format(size);
        String roundPhase = what + " round";
        long base = 0;
        int round = 0;
        for (long n = s.sync.learn(roundPhase); n > 0; n = s.sync.learn(roundPhase)) {
            switch (kind) {
                case WRITE -> {
                    if (verify) {
                        m.asSlice(l.bulk(0), (perOp ? w + 1 : 1) * l.bulkSlot()).fill((byte) 0);
                    }
                    s.sync.await(what + " ready");
                    s.serveUntilMark(s.nextMark(), what);
                    s.sync.await(what + " done");
                    if (verify && perOp) {
                        for (long k = base + Math.max(0, n - (w + 1)); k < base + n; k++) {
                            verifySlot(m, l.bulk((int) (k % (w + 1))), k % w, k + 1, "server: " + what + " #" + k);
                        }
                    } else if (verify) {
                        verifySlot(m, l.bulk(0), 0, 1, "server: " + what + " (the buffer after the round)");
                    }
                }
                case READ -> {
                    s.sync.await(what + " ready");
                    s.serveUntilMark(s.nextMark(), what);
                    s.sync.await(what + " done");
                }
                case SEND -> {
                    receive(s, base, n, round, what);
                    s.sync.await(what + " done");
                }
                default -> throw new IllegalStateException();
            }
            s.sync.await(what + " verified");
            base += n;
            round++;
        }
    }

    /**
     * The server's receive loop of one round of a send stream (transfers {@code base} to {@code base + n - 1}):
     * a ring of {@code 2W + 1} receives, each re-posted on arrival. After every re-post the server RDMA-writes
     * the number of receives posted so far in the measurement (its credit) into the client's credit word of
     * the round; the client never sends beyond it, so no send ever waits for a receive (receiver not ready).
     * Credits only grow, so a late credit write of an earlier round never grants the client anything.
     */
    private void receive(PerfSession s, long base, long n, int round, String what) {
        int w = s.config.window();
        boolean perOp = s.config.perOpBuffers();
        boolean verify = s.config.verify();
        int ring = 2 * w + 1;
        MemorySegment m = s.mem();
        BufferLayout l = s.layout;
        Endpoint ep = s.ep();
        EventDispatcher recvEvd = s.side.recvEvd;
        LmrTriplet[][] iov = new LmrTriplet[ring][];
        for (int r = 0; r < ring; r++) {
            iov[r] = s.iov(l.bulk(perOp ? r : 0), size);
        }
        if (verify) {
            m.asSlice(l.bulk(0), (perOp ? ring : 1) * l.bulkSlot()).fill((byte) 0);
        }
        for (int r = 0; r < Math.min(ring, n); r++) {
            ep.postRecv(1, iov[r], base + r, CompletionFlags.DEFAULT);
        }
        RmrTriplet credit = s.remote(creditOffset(l, round), 8);
        LmrTriplet[][] creditSrc = new LmrTriplet[CREDIT_WORDS][];
        for (int c = 0; c < CREDIT_WORDS; c++) {
            creditSrc[c] = s.iov(creditSource(l, c), 8);
        }
        String recvWhat = what + " receive";
        String check = "server: " + recvWhat;
        Poller poller = s.poller;
        s.sync.await(what + " ready");
        // Chunks (Rounds.run), so that every round runs the code the warm-up compiled.
        Rounds.run(0, n, (from, to, end) -> {
            for (long k = from; k < to; k++) {
                long g = base + k;
                int r = (int) (k % ring);
                poller.dto(recvEvd, g, size, recvWhat);
                long off = l.bulk(perOp ? r : 0);
                if (verify && (k % SAMPLE_EVERY == 0 || k >= end - ring)) {
                    verifySlot(m, off, perOp ? g % w : 0, perOp ? g + 1 : 1, check);
                } else if (verify) {
                    verifyStamps(m, off, perOp ? g + 1 : 1, check);
                }
                if (k + ring < end) {
                    ep.postRecv(1, iov[r], g + ring, CompletionFlags.DEFAULT);
                    int c = (int) (k % CREDIT_WORDS);
                    m.set(ValueLayout.JAVA_LONG, creditSource(l, c), g + ring + 1);
                    ep.postRdmaWrite(1, creditSrc[c], g, credit, CompletionFlags.SUPPRESS);
                }
            }
        });
    }

    @Override
    public PerfResult client(PerfSession s) {
        int w = s.config.window();
        boolean perOp = s.config.perOpBuffers();
        boolean verify = s.config.verify();
        MemorySegment m = s.mem();
        BufferLayout l = s.layout;
        Endpoint ep = s.ep();
        EventDispatcher reqEvd = s.side.reqEvd;
        Window win = new Window(s, kind == Kind.READ ? Math.min(w, s.side.readDepth) : w);
        long fenceOff = l.small(PerfSession.CONTROL_SLOT) + PerfSession.FENCE;
        LmrTriplet[] fenceIov = s.iov(fenceOff, 8);
        RmrTriplet fenceSource = s.remote(fenceOff, 8);
        String what = win.what;
        String roundPhase = what + " round";
        for (int r = 0; r < CREDIT_ROUNDS; r++) {
            m.set(ValueLayout.JAVA_LONG, creditOffset(l, r), 0);
        }
        Rounds rounds = Rounds.bandwidth(s.config, size);
        CpuMeter cpu = new CpuMeter(s.sync);
        long measured = 0;
        long measuredNanos = 0;
        long base = 0;
        long roundNanos = 0;
        int round = 0;
        for (long n = s.sync.decide(roundPhase, rounds.next(0)); n > 0;
                n = s.sync.decide(roundPhase, rounds.next(roundNanos))) {
            cpu.round(rounds.measuring());
            if (kind == Kind.READ && verify && !perOp) {
                m.asSlice(l.bulk(0), size).fill((byte) 0);
            }
            s.sync.await(what + " ready");
            long t0 = System.nanoTime();
            win.begin(base, n, creditOffset(l, round));
            while (win.chunk()) {
                // Rounds.CHUNK completions at a time, the same compiled code in the warm-up and the measured rounds
            }
            if (kind == Kind.WRITE) {
                // An RDMA Write completes at the initiator once the transport has its bytes (iWARP has no
                // end-to-end acknowledgement); a Read behind the writes returns only after they are placed
                // at the target, so the round ends with one.
                ep.postRdmaRead(1, fenceIov, base + n, fenceSource, CompletionFlags.DEFAULT);
                s.poller.dto(reqEvd, base + n, 8, what + " fence");
            }
            roundNanos = System.nanoTime() - t0;
            if (kind != Kind.SEND) {
                s.sendEndMark(s.nextMark()); // the server polls until it arrives
            }
            if (rounds.measuring()) {
                measured += n;
                measuredNanos += roundNanos;
            }
            s.sync.await(what + " done");
            s.sync.await(what + " verified");
            base += n;
            round++;
        }
        cpu.round(false);
        return PerfResult.bandwidth(kind.operation, size, measured, measuredNanos).withCpu(cpu.nanos());
    }

    /**
     * The client's window over one round at a time: posts while fewer than {@code depth} transfers are outstanding
     * (a send stream: and the server's credit allows), and reaps the signalled completions. Selective signalling, as
     * {@code ib_write_bw}'s {@code cq_mod}: every {@code every}-th transfer, the last of the round and one that fills
     * the window are posted with an event, the others SUPPRESSed. A request queue completes in order, so the event of
     * transfer k says that every transfer up to k completed. {@link #chunk} is the hot loop, called
     * {@value Rounds#CHUNK} completions at a time in every round (see {@link Rounds}).
     */
    private final class Window {
        private final MemorySegment m;
        private final Endpoint ep;
        private final EventDispatcher reqEvd;
        private final Poller poller;
        private final int w;
        private final int depth;
        private final int every;
        private final boolean perOp;
        private final boolean verify;
        private final long[] localOff;
        private final LmrTriplet[][] iov;
        private final RmrTriplet[] remote;
        /** The transfers posted with an event, oldest first (a ring of at most depth): the completions to wait for. */
        private final long[] signalled;
        final String what;
        private final String check;
        private final String creditWhat;
        // The round: its first transfer, its count, the credit word and the credit known so far.
        private long base;
        private long n;
        private long creditOff;
        private long credit;
        private long posted;
        private long done;
        /** Transfers up to and including the newest one posted with an event. */
        private long covered;
        private int sigHead;
        private int sigTail;

        Window(PerfSession s, int depth) {
            this.m = s.mem();
            this.ep = s.ep();
            this.reqEvd = s.side.reqEvd;
            this.poller = s.poller;
            this.w = s.config.window();
            this.depth = depth;
            this.every = s.config.signalEvery(depth);
            this.perOp = s.config.perOpBuffers();
            this.verify = s.config.verify();
            this.signalled = new long[depth + 1];
            BufferLayout l = s.layout;
            localOff = new long[w];
            iov = new LmrTriplet[w][];
            for (int j = 0; j < w; j++) {
                localOff[j] = !perOp ? l.bulk(0) : kind == Kind.READ ? l.bulk(w + j) : l.bulk(j);
                iov[j] = s.iov(localOff[j], size);
                if (kind != Kind.READ) {
                    fillSlot(m, localOff[j], perOp ? j : 0, perOp ? 0 : 1);
                }
            }
            remote = new RmrTriplet[w + 1];
            for (int t = 0; t <= w; t++) {
                remote[t] = s.remote(l.bulk(perOp ? t : 0), size);
            }
            what = kind.operation + " " + Sizes.format(size);
            check = "client: " + what;
            creditWhat = what + " receive credit";
        }

        /**
         * Starts a round of {@code n} transfers from {@code base}, with a send stream's credit word for the round. The
         * first credit is the server's ring of receives, posted before the round's "ready" barrier.
         */
        void begin(long base, long n, long creditOff) {
            this.base = base;
            this.n = n;
            this.creditOff = creditOff;
            this.credit = base + Math.min(2L * w + 1, n);
            posted = 0;
            done = 0;
            covered = 0;
            sigHead = 0;
            sigTail = 0;
        }

        /** Posts and reaps up to {@value Rounds#CHUNK} signalled completions; false once the round is complete. */
        boolean chunk() {
            for (int c = 0; c < Rounds.CHUNK && done < n; c++) {
                while (posted < n && posted - done < depth) {
                    if (kind == Kind.SEND && base + posted >= credit) {
                        credit = Math.max(credit, Poller.readAcquire(m, creditOff));
                        if (base + posted >= credit) {
                            if (covered > done) {
                                break; // poll a completion meanwhile
                            }
                            credit = poller.awaitAtLeast(m, creditOff, base + posted + 1, creditWhat);
                        }
                    }
                    boolean event = (posted + 1) % every == 0 || posted + 1 == n || posted + 1 - done == depth;
                    post(m, ep, localOff, iov, remote, base + posted, perOp,
                            event ? CompletionFlags.DEFAULT : CompletionFlags.SUPPRESS);
                    posted++;
                    if (event) {
                        covered = posted;
                        signalled[sigTail] = posted - 1;
                        sigTail = (sigTail + 1) % signalled.length;
                    }
                }
                long k = signalled[sigHead];
                sigHead = (sigHead + 1) % signalled.length;
                poller.dto(reqEvd, base + k, size, what);
                for (; done <= k; done++) {
                    long g = base + done;
                    if (kind == Kind.READ && verify) {
                        long t = perOp ? g % (w + 1) : 0;
                        long off = localOff[(int) (g % w)];
                        if (done % SAMPLE_EVERY == 0 || done >= n - w) {
                            verifySlot(m, off, t, t + 1, check);
                        } else {
                            verifyStamps(m, off, t + 1, check);
                        }
                    }
                }
            }
            return done < n;
        }
    }

    /**
     * Posts transfer {@code k}: with a buffer per transfer, stamps the source (write, send) or clears the sink's
     * stamps (read); one buffer pair keeps its fixed stamps (rewriting a buffer under transfers in flight would
     * race with them).
     */
    private void post(MemorySegment m, Endpoint ep, long[] localOff, LmrTriplet[][] iov, RmrTriplet[] remote, long k,
            boolean perOp, int flags) {
        int w = iov.length;
        int j = (int) (k % w);
        long off = localOff[j];
        switch (kind) {
            case WRITE -> {
                if (perOp) {
                    stamp(m, off, k + 1);
                }
                ep.postRdmaWrite(1, iov[j], k, remote[(int) (k % (w + 1))], flags);
            }
            case SEND -> {
                if (perOp) {
                    stamp(m, off, k + 1);
                }
                ep.postSend(1, iov[j], k, flags);
            }
            case READ -> {
                if (perOp) {
                    stamp(m, off, 0);
                }
                ep.postRdmaRead(1, iov[j], k, remote[(int) (k % (w + 1))], flags);
            }
            default -> throw new IllegalStateException();
        }
    }

    /** The client's credit word of a send-stream round: small slot 0, word {@code round % CREDIT_ROUNDS}. */
    private static long creditOffset(BufferLayout l, int round) {
        return l.small(0) + 8L * (round % CREDIT_ROUNDS);
    }

    /** The server's source words for credit updates: small slot 0, from byte 64 on. */
    private static long creditSource(BufferLayout l, int c) {
        return l.small(0) + 64 + 8L * c;
    }

    /** Writes the body pattern {@code seed} and the stamp {@code stamp} into the slot at {@code off}. */
    private void fillSlot(MemorySegment m, long off, long seed, long stamp) {
        Pattern.fill(m, off + 8, size - 16, seed);
        stamp(m, off, stamp);
    }

    private void stamp(MemorySegment m, long off, long stamp) {
        m.set(ValueLayout.JAVA_LONG, off, stamp);
        m.set(ValueLayout.JAVA_LONG, off + size - 8, stamp);
    }

    private void verifyStamps(MemorySegment m, long off, long stamp, String what) {
        long head = m.get(ValueLayout.JAVA_LONG, off);
        long tail = m.get(ValueLayout.JAVA_LONG, off + size - 8);
        if (head != stamp || tail != stamp) {
            throw new ToolFailure("data verification failed: " + what + ": stamps " + head + "/" + tail
                    + ", expected " + stamp);
        }
    }

    private void verifySlot(MemorySegment m, long off, long seed, long stamp, String what) {
        verifyStamps(m, off, stamp, what);
        Pattern.verify(m, off + 8, size - 16, seed, what);
    }
}
