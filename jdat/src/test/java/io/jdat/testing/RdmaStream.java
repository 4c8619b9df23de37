package io.jdat.testing;

import static io.jdat.testing.DataPath.iov;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Lmr;
import io.jdat.RmrTriplet;
import java.util.function.LongFunction;

/**
 * A thread that streams RDMA Writes or RDMA Reads (default flags) from one side of a {@link Pair} to or from one
 * remote range, a bounded number outstanding, until one completes with an error, a post is refused (the EP
 * disconnected), a completion takes longer than 5 s, the check of a completed Read finds something wrong, or
 * {@link #stop} is called. For tests that withdraw the remote range while the stream runs (LMF-04, RMB-06).
 */
public final class RdmaStream implements AutoCloseable {
    /** Posts the DTO with cookie {@code k} (the k-th of the stream). */
    private interface Post {
        void post(long k);
    }

    private final Thread thread;
    private volatile boolean stop;
    private volatile long succeeded;
    /** The first status other than success, or {@code ERR_TRANSPORT} when a completion did not come in 5 s. */
    private volatile DtoCompletionStatus failure;
    private volatile boolean refused;
    /** What the check of a completed DTO found wrong, or null. */
    private volatile String wrong;

    private RdmaStream(String name, Pair.Side from, int depth, Post post, LongFunction<String> check) {
        thread = Thread.ofPlatform().name(name).start(() -> run(from, depth, post, check));
    }

    /**
     * Streams RDMA Writes into {@code remote}, alternating between the two halves {@code [0, chunk)} and
     * {@code [chunk, 2 * chunk)} of {@code source} (so that consecutive Writes differ), at most 8 outstanding.
     */
    public static RdmaStream writes(Pair.Side from, Lmr source, long chunk, RmrTriplet remote) {
        return new RdmaStream("write-stream", from, 8, k -> from.ep.postRdmaWrite(1, iov(source, (k & 1) * chunk,
                chunk), k, remote, CompletionFlags.DEFAULT), k -> null);
    }

    /**
     * Streams RDMA Reads of {@code remote} ({@code chunk} bytes) into the {@code slots} slots of {@code sink}, the
     * k-th Read into slot {@code k % slots}, at most {@code slots} outstanding. When a Read completed successfully,
     * {@code check} looks at its slot (by number) on the stream's thread: null when right, else what is wrong, and
     * the stream stops.
     */
    public static RdmaStream reads(Pair.Side from, Lmr sink, long chunk, int slots, RmrTriplet remote,
            LongFunction<String> check) {
        return new RdmaStream("read-stream", from, slots, k -> from.ep.postRdmaRead(1, iov(sink, k % slots * chunk,
                chunk), k, remote, CompletionFlags.DEFAULT), k -> check.apply(k % slots));
    }

    private void run(Pair.Side from, int depth, Post post, LongFunction<String> check) {
        DatEvent e = new DatEvent();
        long outstanding = 0;
        long completed = 0; // completions come in posting order: the next one is of DTO `completed`
        for (long k = 0; !stop; k++) {
            try {
                post.post(k);
            } catch (RuntimeException x) {
                refused = true; // the EP is disconnected
                return;
            }
            outstanding++;
            while (outstanding > 0 && (outstanding >= depth || from.reqEvd.dequeue(e))) {
                if (outstanding >= depth && !from.reqEvd.waitFor(5_000_000, 1, e)) {
                    failure = DtoCompletionStatus.ERR_TRANSPORT;
                    return;
                }
                outstanding--;
                if (e.status() != DtoCompletionStatus.SUCCESS) {
                    failure = e.status();
                    return;
                }
                String w = check.apply(completed++);
                if (w != null) {
                    wrong = w;
                    return;
                }
                succeeded++; // this thread is the only writer
            }
        }
    }

    /** {@return the DTOs completed successfully (and checked) so far} */
    public long succeeded() {
        return succeeded;
    }

    /** {@return the first non-success status of a DTO, null if none (yet)} */
    public DtoCompletionStatus failure() {
        return failure;
    }

    /** {@return what the check of a completed Read found wrong, null if nothing (yet)} */
    public String wrong() {
        return wrong;
    }

    /** {@return true if the stream ended by itself: a DTO failed, a post was refused or a check found a fault} */
    public boolean endedByItself() {
        return failure != null || refused || wrong != null;
    }

    /** {@return how the stream ended, for messages} */
    public String outcome() {
        return wrong != null ? "a completed Read was wrong: " + wrong
                : failure != null ? "a DTO completed " + failure : refused ? "a post was refused" : "still running";
    }

    /** Waits up to {@code millis} for the stream to end by itself. @return true if it ended */
    public boolean awaitEnd(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    /** Stops the stream and waits for its thread (10 s at most). */
    public void stop() throws InterruptedException {
        stop = true;
        thread.join(10_000);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
