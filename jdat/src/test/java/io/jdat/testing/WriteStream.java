package io.jdat.testing;

import static io.jdat.testing.DataPath.iov;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Lmr;
import io.jdat.RmrTriplet;

/**
 * A thread that streams RDMA Writes ({@code dat_ep_post_rdma_write}, default flags) from one side of a {@link Pair}
 * into one remote range, alternating between the two halves of a source LMR (so that consecutive Writes differ),
 * at most 8 outstanding, until a Write completes with an error, a post is refused (the EP disconnected), a
 * completion takes longer than 5 s, or {@link #stop} is called. For tests that withdraw the target while Writes
 * arrive (LMF-04, RMB-06).
 */
public final class WriteStream implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stop;
    private volatile long succeeded;
    /** The first status other than success, or {@code ERR_TRANSPORT} when a completion did not come in 5 s. */
    private volatile DtoCompletionStatus failure;
    private volatile boolean refused;

    /**
     * Starts the stream.
     *
     * @param from   the posting side
     * @param source the LMR whose halves {@code [0, chunk)} and {@code [chunk, 2 * chunk)} are written in turn
     * @param chunk  bytes per Write
     * @param remote the target range
     */
    public WriteStream(Pair.Side from, Lmr source, long chunk, RmrTriplet remote) {
        thread = Thread.ofPlatform().name("write-stream").start(() -> run(from, source, chunk, remote));
    }

    private void run(Pair.Side from, Lmr source, long chunk, RmrTriplet remote) {
        DatEvent e = new DatEvent();
        long outstanding = 0;
        for (long k = 0; !stop; k++) {
            try {
                from.ep.postRdmaWrite(1, iov(source, (k & 1) * chunk, chunk), k, remote, CompletionFlags.DEFAULT);
            } catch (RuntimeException x) {
                refused = true; // the EP is disconnected
                return;
            }
            outstanding++;
            while (outstanding > 0 && (outstanding >= 8 || from.reqEvd.dequeue(e))) {
                if (outstanding >= 8 && !from.reqEvd.waitFor(5_000_000, 1, e)) {
                    failure = DtoCompletionStatus.ERR_TRANSPORT;
                    return;
                }
                outstanding--;
                if (e.status() != DtoCompletionStatus.SUCCESS) {
                    failure = e.status();
                    return;
                }
                succeeded++; // this thread is the only writer
            }
        }
    }

    /** {@return the Writes completed successfully so far} */
    public long succeeded() {
        return succeeded;
    }

    /** {@return the first non-success status of a Write, null if none (yet)} */
    public DtoCompletionStatus failure() {
        return failure;
    }

    /** {@return true if the stream ended by itself: a Write failed or a post was refused} */
    public boolean endedByItself() {
        return failure != null || refused;
    }

    /** {@return how the stream ended, for messages} */
    public String outcome() {
        return failure != null ? "a Write completed " + failure : refused ? "a post was refused" : "still running";
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
