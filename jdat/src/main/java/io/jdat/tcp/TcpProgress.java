package io.jdat.tcp;

import io.jdat.transport.ProgressThread;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The progress engine of one {@code tcp} IA: one daemon thread with a {@link Selector} over the IA's
 * connections, and the consumer-driven path that lets a polling thread move bytes itself.
 *
 * <p>Idle strategy. While no consumer polls, the thread blocks in {@code select} (after spinning on
 * {@code selectNow} for {@link #SPIN_NANOS} after the last traffic, if configured) and burns no CPU; it reads
 * what arrives, finishes sends the socket could not take, closes lingering streams and runs the core
 * notifications ({@link #execute}). While a consumer polls an event dispatcher of this IA (it called {@link #poll}
 * within the last {@value ProgressThread#POLLER_GRACE_MICROS} µs), that consumer reads the sockets itself and this
 * thread stays out of the way, parking in 2 ms slices instead of selecting, so that two threads never fight for one
 * socket or one core. A consumer that stops polling to park in a wait hands over at once ({@link #pollerIdle}). The
 * loop and the hand-over are {@link ProgressThread}'s, with this spin.
 * A consumer's pass can outlast the grace (a stream that keeps coming is read in one pass), so the consumer
 * stamps its poll again after a pass that moved bytes, and this thread, finding a ready socket whose receive
 * or send lock another thread holds (only a polling or posting consumer does), counts that as a poll too
 * rather than selecting again at once on a socket that stays ready.
 *
 * <p>Readiness, not a scan. A consumer's poll asks the selector (epoll) which sockets are readable or
 * writable ({@code selectNow}: one {@code epoll_wait}) and reads only those, so an empty poll costs one system
 * call whatever the number of connections (it cost one {@code read} per connection before: 5 ms with 1024
 * idle connections, issue 18). With at most {@value #SCAN_MAX} connections it reads them directly instead
 * (a {@code recv}, {@link DirectSocket}): a message then costs one system call, not two. An empty {@code recv}
 * costs about twice an empty {@code epoll_wait} here (0.7-1 µs against 0.3-0.4 µs), yet a raw two-process 64 B
 * ping-pong was not faster with {@code epoll_wait} then {@code recv} (docs/tcp-latency.md). The selector is used by one
 * thread at a time ({@link #selecting}): the progress thread for a pass or a blocking select, or one consumer; a
 * consumer that finds it taken returns at once (another consumer is making progress) or, if the progress thread blocks
 * in it, wakes that thread, which then sees the poller and parks instead of selecting again.
 */
final class TcpProgress extends ProgressThread<TcpConnection> {
    private static final long SELECT_MILLIS = 250;
    /**
     * How long the thread keeps spinning on {@code selectNow} after traffic before it blocks (system
     * property {@code jdat.tcp.progressSpinNanos}, default 0). Spinning lowers the latency of work no consumer
     * polls for (an RDMA Read served by a passive side: about 27 µs to 7 µs here) but takes a core while
     * traffic flows; on a 2-core machine whose consumers busy-poll it is a third busy thread, so it is off
     * unless asked for.
     */
    static final long SPIN_NANOS = Long.getLong("jdat.tcp.progressSpinNanos", 0L);
    /** Up to this many connections a consumer's poll reads each socket instead of asking the selector. */
    static final int SCAN_MAX = 2;
    /**
     * A polling consumer reads the clock (and stamps its poll when the stamp is older than a quarter of the
     * grace) on one poll in this many, and on the first after a pass that moved bytes. An empty poll costs about
     * a microsecond here (a {@code recv} that finds nothing), so the stamp is never more than tens of µs old.
     */
    static final int STAMP_EVERY = 16;
    /**
     * Consumer polls since the last clock read: plain and racy across consumer threads (a lost update only
     * moves the next clock read by a poll).
     */
    private int pollsUnstamped;

    /**
     * Connections a consumer's poll looked at, all IAs together: read directly or reported ready by the
     * selector. A diagnostic for tests (plain, racy across threads); added once per poll.
     */
    static long consumerVisits;

    /**
     * Selects this thread ran (passes and blocking selects): a diagnostic for tests, written by this thread
     * only and read racily.
     */
    long selects;

    /** Where lingering streams' bytes are dropped: selecting threads (under {@link #selecting}). */
    private final ByteBuffer lingerBuffer = ByteBuffer.allocateDirect(16 * 1024);
    /** The same for {@link #housekeeping} (progress thread, without {@link #selecting}). */
    private final ByteBuffer housekeepingBuffer = ByteBuffer.allocateDirect(16 * 1024);
    /** The selection callback, created once: a method reference per select would allocate. */
    private final java.util.function.Consumer<SelectionKey> readyAction = this::ready;
    /**
     * Who uses the selector: taken (compare-and-set) by the progress thread around each select, or by one
     * polling consumer around its {@code selectNow}. The selector's own lock would make a consumer wait up to
     * {@value #SELECT_MILLIS} ms behind a blocking select.
     */
    private final AtomicBoolean selecting = new AtomicBoolean();
    /**
     * True while the progress thread is in (or about to enter) its blocking select. Volatile: with
     * {@link #lastPoll()} it is Dekker's pattern: the thread writes this, then reads the last poll; a consumer
     * writes the last poll, then, finding the selector taken, reads this; one of them sees the other, so the
     * thread either does not block or is woken.
     */
    private volatile boolean blocking;
    /** Work done by {@link #ready} in the current select (whoever holds {@link #selecting}). */
    private boolean readyWork;
    /** Connections {@link #ready} saw in the current select (whoever holds {@link #selecting}). */
    private int readyCount;
    private long lastHousekeeping = System.nanoTime();

    TcpProgress(String name) {
        super("jdat-tcp-" + name, SPIN_NANOS, new TcpConnection[0]);
        start();
    }

    /**
     * Consumer-driven progress, on the calling thread: receives (and sends) on the connections whose sockets
     * are ready ({@code selectNow}), or on each of them when there are at most {@value #SCAN_MAX}.
     */
    @Override
    public boolean poll() {
        long lp = lastPoll();
        if (lp == 0 || (++pollsUnstamped & (STAMP_EVERY - 1)) == 0) {
            long now = System.nanoTime(); // not on every poll: a clock read is a tenth of an empty poll's cost
            if (now - lp > POLLER_GRACE_NANOS / 4) {
                polledAt(now); // refreshed a few times per grace period
            }
        }
        TcpConnection[] cs = connections.snapshot();
        if (cs.length <= SCAN_MAX) {
            consumerVisits += cs.length;
            boolean any = false;
            for (TcpConnection c : cs) {
                any |= c.poll();
            }
            if (any) {
                // A pass that moved a stream's bytes can outlast the grace: the next poll reads the clock and
                // stamps (not this one: a message's completion should not wait for a clock read).
                pollsUnstamped = STAMP_EVERY - 1;
            }
            return any;
        }
        if (!selecting.compareAndSet(false, true)) {
            if (blocking) {
                selector.wakeup(); // the thread sees this poller once awake and parks instead
            }
            return false; // otherwise another poller is selecting: it makes the progress
        }
        try {
            readyWork = false;
            readyCount = 0;
            selector.selectNow(readyAction);
            consumerVisits += readyCount;
            if (readyWork) {
                polledAt(System.nanoTime()); // a pass that moved a stream's bytes can outlast the grace
            }
            return readyWork;
        } catch (IOException | ClosedSelectorException e) {
            return false; // the IA is closing
        } finally {
            selecting.set(false);
        }
    }

    /** When a consumer last stamped its poll, 0 when none polls: a diagnostic for tests. */
    long lastPollNanos() {
        return lastPoll();
    }

    /** Starts watching {@code c}. */
    void add(TcpConnection c) {
        connections.add(c);
        execute(() -> {
            try {
                c.key = c.ch.register(selector, c.interest(), c);
            } catch (ClosedChannelException | CancelledKeyException e) {
                remove(c);
            }
        });
    }

    /** Stops the thread (the IA closed). */
    void shutdown() {
        stop();
        closeSelector();
    }

    @Override
    protected void periodic(long now) {
        if (now - lastHousekeeping > SELECT_MILLIS * 1_000_000L) {
            lastHousekeeping = now; // also while a consumer polls: deadlines do not wait for it
            housekeeping();
        }
    }

    @Override
    protected void whilePolled() {
        // the poller reads the sockets; housekeeping runs in periodic()
    }

    /**
     * A non-blocking select: spinning on it after traffic avoids waking from epoll (tens of µs here). Skipped
     * while a polling consumer holds the selector.
     */
    @Override
    protected boolean pass() throws IOException {
        if (!selecting.compareAndSet(false, true)) {
            polledAt(System.nanoTime()); // only a polling consumer holds it (its pass may outlast the grace)
            return false;
        }
        try {
            selects++;
            return selector.selectNow(readyAction) > 0;
        } finally {
            selecting.set(false);
        }
    }

    /** Selects for up to {@value #SELECT_MILLIS} ms, unless a consumer holds the selector or just polled. */
    @Override
    protected void block() throws IOException {
        if (!selecting.compareAndSet(false, true)) {
            // A consumer is polling: the loop parks. Stamped here, as its pass may outlast the grace: else the
            // loop comes straight back to a taken selector and spins (seen in the scale benchmark's set-up).
            polledAt(System.nanoTime());
            return;
        }
        try {
            blocking = true;
            // volatile write above, volatile read here: a consumer that polled meanwhile is seen, or it sees
            // `blocking` and wakes the select (a wakeup before the select makes it return at once)
            long lp = lastPoll();
            if (lp != 0 && System.nanoTime() - lp < POLLER_GRACE_NANOS) {
                return;
            }
            selects++;
            selector.select(readyAction, SELECT_MILLIS);
        } finally {
            blocking = false;
            selecting.set(false);
        }
    }

    /** A selected key (whoever holds {@link #selecting}). */
    private void ready(SelectionKey k) {
        TcpConnection c = (TcpConnection) k.attachment();
        readyCount++;
        try {
            if (c.lingerUntil != 0) {
                c.linger(lingerBuffer);
                return;
            }
            if (k.isReadable()) {
                if (c.rx.poll()) {
                    readyWork = true;
                } else if (c.rx.receivingElsewhere()) {
                    // Only a polling consumer receives on another thread, and it is inside a long pass (a
                    // stream that keeps coming): its poll stamp may be older than the grace, but it polls. As
                    // a poller: otherwise the socket stays readable and this thread spins on the selector,
                    // taking the core the receiving consumer needs (two processes on 2 cores: a third of the
                    // bandwidth, issue 18).
                    polledAt(System.nanoTime());
                }
            }
            if (k.isValid() && k.isWritable()) {
                if (c.tx.kick()) {
                    readyWork = true;
                } else {
                    // A consumer is in the send path (posting or polling) and was left the job: it sends
                    // what the socket takes now. As above, this thread stays out of its way instead of
                    // spinning on a writable socket; a consumer that then parks in a wait hands over at once
                    // (pollerIdle), one that neither polls nor waits leaves the rest for a park slice.
                    polledAt(System.nanoTime());
                }
            }
        } catch (CancelledKeyException e) {
            // closed meanwhile
        }
    }

    /** Receive-not-ready deadlines, lingering closes that saw no traffic, drain and liveness deadlines. */
    private void housekeeping() {
        long now = System.nanoTime();
        for (TcpConnection c : connections.snapshot()) {
            if (c.lingerUntil != 0) {
                c.linger(housekeepingBuffer);
                continue;
            }
            if (c.rx.stalled()) {
                c.rx.poll();
            }
            c.checkDeadlines(now);
        }
    }
}
