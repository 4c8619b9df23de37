package io.jdat.shm;

import io.jdat.transport.ProgressThread;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The progress engine of one {@code shm} IA: one daemon thread that polls the IA's connections, and the
 * consumer-driven path that lets a polling consumer do it on its own thread.
 *
 * <h2>Idle strategy</h2>
 * <ol>
 *   <li>While a consumer polls an event dispatcher of this IA (it called {@link #poll} within the last
 *       {@value ProgressThread#POLLER_GRACE_MICROS} µs), that consumer moves the bytes itself and this thread
 *       parks in {@value ProgressThread#POLLER_PARK_MILLIS} ms slices, looking only at the sockets (ends of peers)
 *       in between: two
 *       spinning threads on a 2-core machine would take the core the peer needs.</li>
 *   <li>Otherwise the thread polls the rings while there is traffic, and spins
 *       ({@link Thread#onSpinWait()}) for {@link #SPIN_NANOS} after the last of it: waking a blocked thread
 *       costs tens of microseconds here, more than a whole exchange.</li>
 *   <li>Then it sleeps: every connection is cold (below), it announces sleep on the IA's {@link ReadyBoard},
 *       looks at the board once more, and blocks in {@code select} on the connections' sockets. A peer that
 *       marks a cold connection ready while the board says so also rings that connection's doorbell: one byte
 *       on its socket. A peer that ends closes the socket, which wakes the thread too. The select also times
 *       out after {@value #SELECT_MILLIS} ms for the receiver-not-ready deadlines. The thread never waits for a
 *       connection's lock on the way: a connection whose lock another thread holds (a consumer polling or posting)
 *       stays hot, and instead of sleeping the thread parks {@link #LOCK_BUSY_PARK_NANOS} ns and decides again
 *       (queued on a polling consumer's receive lock, it made every unlock of that consumer's poll a futex wake:
 *       a ~50 µs mode of the two-process ping-pong, issue 18).</li>
 * </ol>
 * A consumer that stops polling to park in a wait hands over at once ({@link #pollerIdle}). The loop and the
 * hand-over are {@link ProgressThread}'s, with its poller grace and park slice and this spin.
 *
 * <h2>Hot and cold connections: a poll costs O(ready), not O(connections)</h2>
 * A pass (a consumer's poll, or the thread's) looks at the <em>hot</em> connections only: those with recent
 * traffic. A connection that had nothing for {@value #COLD_PASSES} passes goes <em>cold</em>: it sets the
 * consumer-sleeping flag of the ring it consumes and checks once more ({@link ShmConnection#prepareToSleep},
 * Dekker's pattern with the peer's publication, see {@link ShmRing}); from then on the peer, whatever it does
 * for this side (publishes a record, consumes one of ours, stages or takes RDMA Read data, ends), marks the
 * connection's slot on this IA's {@link ReadyBoard}. A pass first takes the marked slots (one line to read when
 * none is) and makes those connections hot again. So an empty poll reads the board's summary line and nothing
 * else, whatever the number of idle connections (it looked at every ring before: 1.6 ms with 1024, issue 18),
 * while a connection that ping-pongs stays hot and costs the peer no more than before (its flag is clear: no
 * mark). Passes are made by one thread at a time ({@code passLock}): a consumer that finds another pass under
 * way returns at once (that pass makes the progress).
 *
 * <p>Safety net: a peer that never marks (hostile, or older) or a mark lost to a hostile write on the board
 * must not hang a connection: every {@value #FULL_LOOK_MILLIS} ms the thread looks at every connection once
 * (also while a consumer polls), and a doorbell byte on a socket marks its connection too. A board that cannot
 * be created, or that a peer truncated, is dropped: then every pass looks at every connection, as before.
 */
final class ShmProgress extends ProgressThread<ShmConnection> {
    private static final long SELECT_MILLIS = 100;
    /** Spin after the last traffic before sleeping (system property {@code jdat.shm.progressSpinNanos}). */
    static final long SPIN_NANOS = Long.getLong("jdat.shm.progressSpinNanos", 20_000L);
    /** How often the thread advances each connection's heartbeat and checks the peer's. */
    static final long HEARTBEAT_MILLIS = 50;
    private static final long HEARTBEAT_NANOS = HEARTBEAT_MILLIS * 1_000_000L;
    /**
     * Passes without traffic after which a connection goes cold. Long enough that a ping-pong stays hot (a
     * pass over a few hot connections takes some 100 ns; a round trip some 1 µs), short enough that idle
     * connections leave the hot set within milliseconds.
     */
    static final int COLD_PASSES = 512;
    /**
     * The most hot connections one consumer's poll looks at; the next poll goes on from there. A consumer that
     * drains its EVD after each poll so handles the events of the connections it just looked at, whose lines are
     * still in the cache, and the poll that ends a drain costs this many visits, not one per hot connection
     * (issue 18: with 1024 busy connections every drain ended with a pass over all 1024 that found little, four
     * visits per round trip where two do). A consumer that polls on sees every hot connection within
     * hot/{@value} polls, the same visits as one whole pass; the progress thread's passes are whole.
     */
    static final int CONSUMER_PASS_BUDGET = 64;
    /**
     * How often every connection is looked at whatever the board says (the safety net; system property
     * {@code jdat.shm.fullLookMillis}): the longest a connection whose peer never marks it waits.
     */
    static final long FULL_LOOK_MILLIS = Long.getLong("jdat.shm.fullLookMillis", 1000L);
    /**
     * The full look's period in nanoseconds: {@link #FULL_LOOK_MILLIS}; a test knob (package-private, plain:
     * tests set it before the exchange they check; the progress threads read it once per loop, a stale value
     * only shifts one look).
     */
    static long fullLookNanos = FULL_LOOK_MILLIS * 1_000_000L;
    /**
     * Connections passes looked at (consumers' and the threads', all IAs together: hot ones, or all without a
     * board; not the periodic full look). A diagnostic for tests: plain, racy across threads, added once per
     * pass.
     */
    static long passVisits;

    private long lastHeartbeat;
    /** This IA's board heartbeat (progress thread). */
    private long beats;
    /**
     * Connections that need the per-connection heartbeat pass: their peer wants status-block beats, or they
     * check the peer's liveness ({@code slotsLock}; read by the thread without it, a stale count only delays).
     */
    private int perConnectionBeats;
    private long lastFullLook = System.nanoTime();
    /**
     * How long the thread parks when it meant to sleep but another thread held a lock of a hot connection: about
     * one wake-up of these VMs, the delay a sleep would have cost the next record.
     */
    static final long LOCK_BUSY_PARK_NANOS = 50_000;
    /**
     * Sleeps announced: the thread counts one before it sets the board's sleeping word (volatile, both: a poller
     * that read this count and then sees the word set sees that sleep's word, never an earlier one's).
     */
    private volatile long sleeps;
    /** The sleep a poller last woke the thread from (pollers; racy on purpose: at worst one more wake-up). */
    private long wokenSleep = -1;
    /** The last {@link #sleepReady} found a connection's lock held (thread-confined). */
    private boolean lockBusy;

    private final ByteBuffer drain = ByteBuffer.allocateDirect(256);
    private final java.util.function.Consumer<SelectionKey> readyAction = this::ready;
    /** Polls since the timestamp was refreshed (a heuristic: increments from several threads may be lost). */
    private int polls;

    /** This IA's board (null: none, or dropped after a fault: every pass looks at every connection). */
    private volatile ReadyBoard board;
    /** The connection in each board slot (null: free). Written under {@code slotsLock}, read by passes. */
    private final ShmConnection[] slots = new ShmConnection[ReadyBoard.SLOTS];
    private final int[] freeSlots = new int[ReadyBoard.SLOTS];
    private int freeCount;
    private final Object slotsLock = new Object();
    /** One pass at a time: it owns the hot set and takes the board's marks. */
    private final ReentrantLock passLock = new ReentrantLock();
    /** The hot connections ({@code passLock}); each knows its index ({@link ShmConnection#hotIndex}). */
    private ShmConnection[] hot = new ShmConnection[16];
    private int hotCount;
    /**
     * Laps of the hot set ({@code passLock}): a connection's last traffic is counted in these (a pass of the
     * thread is a lap; a consumer's pass may be part of one, see {@link #CONSUMER_PASS_BUDGET}).
     */
    private long passes;
    /** Where the next pass starts in {@link #hot} ({@code passLock}; at or past {@link #hotCount}: at 0). */
    private int nextHot;

    /** The IA's progress engine; its thread starts with {@link #start(ReadyBoard)}. */
    ShmProgress(String name) {
        super("jdat-shm-" + name, SPIN_NANOS, new ShmConnection[0]);
        for (int i = 0; i < ReadyBoard.SLOTS; i++) {
            freeSlots[i] = ReadyBoard.SLOTS - 1 - i;
        }
        freeCount = ReadyBoard.SLOTS;
    }

    /**
     * Starts the thread with {@code b} (null: none) as this IA's board, at transport open, before any
     * connection. The board must be in place before the thread runs: a {@link #block} that began without one
     * clears the consumer-sleeping flag of every connection when it returns, and a connection that went cold
     * meanwhile (a polling consumer makes its {@value #COLD_PASSES} passes within microseconds) would stay cold
     * with its flag clear: its peer never marks it again, and it moves only at the full look, once a second
     * (the starved connection of the scale benchmark, always the IA's first one). The board only goes away
     * afterwards ({@link #mappingFault}), never appears.
     */
    void start(ReadyBoard b) {
        board = b; // volatile, and before Thread.start: the thread's first read sees it
        start();
    }

    /** Consumer-driven progress: one pass (marked and hot connections) on the calling thread. */
    @Override
    public boolean poll() {
        try {
            // Refresh the poller's timestamp every 32 calls (a few microseconds of polling), not on every call:
            // the clock read would be a good part of an empty poll. The counter is racy across pollers on purpose.
            if ((++polls & 31) == 0 || lastPoll() == 0) {
                polledAt(System.nanoTime());
                ReadyBoard b = board;
                long g = sleeps;
                if (b != null && g != wokenSleep && b.sleeping()) {
                    // the thread still blocks, so peers ring sockets for every mark: it wakes, sees this
                    // poller and parks instead (it sleeps again only when the polls stop). Once per sleep: the
                    // thread takes tens of microseconds to clear the word, and every wake() is an unpark and a
                    // selector wake-up (a system call); JFR found 6% of a polling server's samples there.
                    wokenSleep = g;
                    wake();
                }
            }
            if (!passLock.tryLock()) {
                // contention: the thread may be making passes because it missed this poller (the timestamp is
                // refreshed only every 32 polls, which slow polls stretch past the grace): tell it now
                polledAt(System.nanoTime());
                return false; // another thread is in a pass: it makes the progress
            }
            try {
                boolean any = passLocked(CONSUMER_PASS_BUDGET);
                if (any) {
                    polls |= 31; // a poll with work is slow: refresh the timestamp at the next one
                }
                return any;
            } finally {
                passLock.unlock();
            }
        } catch (InternalError e) {
            mappingFault(); // as in the loop: a fault raised after the handler near the access
            return true;
        }
    }

    /**
     * One pass ({@code passLock} held): the marked connections become hot, then up to {@code budget} hot
     * connections are polled, from where the last pass stopped (each once at most); one idle for
     * {@value #COLD_PASSES} laps of the hot set goes cold. Without a board: every connection is polled.
     */
    private boolean passLocked(int budget) {
        ReadyBoard b = board;
        if (b == null) {
            ShmConnection[] all = connections.snapshot();
            passVisits += all.length;
            boolean any = false;
            for (ShmConnection c : all) {
                any |= c.poll();
            }
            return any;
        }
        takeMarked(b);
        boolean any = false;
        int i = nextHot;
        int left = Math.min(budget, hotCount);
        int visits = 0;
        while (left > 0 && hotCount > 0) {
            if (i >= hotCount) {
                i = 0;
                passes++; // a lap: every hot connection was looked at once more
            }
            long pass = passes;
            ShmConnection c = hot[i];
            visits++;
            left--;
            if (c.closed) {
                dropHot(i); // the last one moves to i: looked at next, if the budget allows
                continue;
            }
            if (c.poll()) {
                c.lastTraffic = pass;
                any = true;
            } else if (pass - c.lastTraffic > COLD_PASSES && c.slot >= 0
                    && c.prepareToSleep() == ShmConnection.SLEEP) {
                dropHot(i); // its flag is set: the peer marks it from now on (BUSY: a thread is at it, stays hot)
                continue;
            }
            i++;
        }
        nextHot = i;
        if (visits != 0) {
            passVisits += visits;
        }
        return any;
    }

    /** Makes the connections of the marked slots hot ({@code passLock}). */
    private void takeMarked(ReadyBoard b) {
        for (int s = 0; s < ReadyBoard.SUMMARY_WORDS; s++) {
            long summary = b.takeSummary(s);
            while (summary != 0) {
                int w = s * 64 + Long.numberOfTrailingZeros(summary);
                summary &= summary - 1;
                long bits = b.takeWord(w);
                while (bits != 0) {
                    int slot = w * 64 + Long.numberOfTrailingZeros(bits);
                    bits &= bits - 1;
                    ShmConnection c = slots[slot];
                    if (c != null && c.hotIndex < 0 && !c.closed) {
                        c.awake(); // clear its flag first: the peer stops marking, and the poll below sees all
                        addHot(c);
                    }
                }
            }
        }
    }

    private void addHot(ShmConnection c) {
        if (hotCount == hot.length) {
            hot = java.util.Arrays.copyOf(hot, hot.length * 2); // grows with the connections, then never
        }
        c.hotIndex = hotCount;
        c.lastTraffic = passes;
        hot[hotCount++] = c;
    }

    private void dropHot(int i) {
        ShmConnection c = hot[i];
        ShmConnection last = hot[--hotCount];
        hot[i] = last;
        last.hotIndex = i;
        hot[hotCount] = null;
        c.hotIndex = -1; // last: c may be the last one itself
    }

    void add(ShmConnection c) {
        connections.add(c);
        ReadyBoard b = board;
        int slot = -1;
        synchronized (slotsLock) {
            if (freeCount > 0) {
                slot = freeSlots[--freeCount];
                slots[slot] = c;
            }
        }
        c.blockBeats = b == null || c.peerWantsBlockHeartbeat();
        if (c.blockBeats || c.peerTimeoutNanos != 0) {
            synchronized (slotsLock) {
                perConnectionBeats++;
                c.beatCounted = true;
            }
        }
        // the slot is published before anything makes the connection cold (a pass, after the mark below), so
        // a peer that sees the flag set also sees the slot; without one the peer rings the socket instead
        c.publishSlot(slot);
        if (b != null) {
            if (slot >= 0) {
                b.mark(slot); // the next pass makes it hot and looks at it
            } else {
                markForever(c);
            }
        }
        execute(() -> {
            try {
                c.ch.configureBlocking(false);
                c.key = c.ch.register(selector, SelectionKey.OP_READ, c);
            } catch (ClosedChannelException | CancelledKeyException e) {
                c.socketEnded();
            } catch (IOException e) {
                c.socketEnded();
            }
        });
    }

    /** A connection without a slot (more than {@value ReadyBoard#SLOTS}): hot for good. */
    private void markForever(ShmConnection c) {
        execute(() -> {
            passLock.lock();
            try {
                if (c.hotIndex < 0 && !c.closed) {
                    addHot(c); // without a slot it never goes cold (passLocked)
                }
            } finally {
                passLock.unlock();
            }
        });
    }

    /** The connection closed: its slot is free again (a late mark of it costs a look at its next owner). */
    void release(ShmConnection c) {
        int slot = c.slot;
        synchronized (slotsLock) {
            if (c.beatCounted) {
                c.beatCounted = false;
                perConnectionBeats--;
            }
            if (slot >= 0 && slots[slot] == c) {
                slots[slot] = null;
                freeSlots[freeCount++] = slot;
            }
        }
    }

    void shutdown() {
        stop();
        join(1000);
        runTasks();
        closeSelector();
    }

    /**
     * An unsafe-access fault that compiled code raised after the try around the access (see MappedFile): break
     * the connection whose file a peer truncated, go on with the others.
     */
    @Override
    protected void fault(InternalError e) {
        mappingFault();
    }

    /**
     * After an {@link InternalError} from a mapping (a peer truncated a file: {@code SIGBUS}) that no handler
     * near the access caught: a truncated board is dropped (every pass then looks at every connection), and
     * every connection checks its files and the one whose file shrank breaks.
     */
    void mappingFault() {
        ReadyBoard b = board;
        if (b != null && b.truncated()) {
            board = null;
        }
        for (ShmConnection c : connections.snapshot()) {
            c.breakIfTruncated();
        }
    }

    @Override
    protected void periodic(long now) {
        if (now - lastHeartbeat > HEARTBEAT_NANOS) {
            lastHeartbeat = now;
            ReadyBoard b = board;
            if (b != null) {
                b.beat(++beats); // one store for every peer (it was one per connection before issue 18)
            }
            if (perConnectionBeats > 0 || b == null) {
                for (ShmConnection c : connections.snapshot()) {
                    c.heartbeat(now);
                }
            }
        }
        if (now - lastFullLook > fullLookNanos) {
            lastFullLook = now; // the safety net: whatever the board says, every connection once
            pollConnections();
        }
    }

    @Override
    protected void whilePolled() throws IOException {
        selector.selectNow(readyAction); // peers' ends and doorbells; the poller moves the bytes
    }

    @Override
    protected boolean pass() {
        if (!passLock.tryLock()) {
            return false;
        }
        try {
            return passLocked(Integer.MAX_VALUE);
        } finally {
            passLock.unlock();
        }
    }

    @Override
    protected void block() throws IOException {
        selector.selectNow(readyAction);
        ReadyBoard b = board;
        lockBusy = false;
        if (sleepReady(b)) {
            selector.select(readyAction, SELECT_MILLIS);
        } else if (lockBusy) {
            // Another thread holds a lock of a hot connection: it polls or posts there. Not queued on its lock
            // (its unlock would have to unpark this thread), and not spinning on it (the core is the peer's):
            // park briefly and decide again, from the loop's start. Nothing was announced, so nothing is lost: a
            // connection that stayed hot is polled by the next pass.
            LockSupport.parkNanos(this, LOCK_BUSY_PARK_NANOS);
        }
        if (b != null) {
            b.setSleeping(false);
        } else {
            for (ShmConnection c : connections.snapshot()) {
                c.awake();
            }
        }
    }

    /**
     * Announces sleep: every hot connection goes cold, then the board says that this thread may block and is
     * read once more; false if there is work after all (then nobody sleeps). Without a board: on every
     * connection's ring.
     */
    private boolean sleepReady(ReadyBoard b) {
        if (hasTasks()) {
            return false;
        }
        if (b == null) {
            for (ShmConnection c : connections.snapshot()) {
                if (!mayLeave(c)) {
                    return false;
                }
            }
            return true;
        }
        if (!passLock.tryLock()) {
            return false; // a consumer is in a pass
        }
        try {
            for (int i = hotCount - 1; i >= 0; i--) {
                ShmConnection c = hot[i];
                if (!mayLeave(c)) {
                    return false;
                }
                if (c.slot >= 0) {
                    dropHot(i); // without a slot it stays hot: the peer rings the socket while the flag is set
                }
            }
            // volatile store, then volatile loads: a peer that marks after this sees it and rings the socket
            sleeps++; // before the word (see sleeps); only this thread writes it
            b.setSleeping(true);
            if (b.anyMarked() || hasTasks()) {
                b.setSleeping(false);
                return false;
            }
            return true;
        } finally {
            passLock.unlock();
        }
    }

    /**
     * {@link ShmConnection#prepareToSleep} for the thread's sleep: true when {@code c} may be left; a connection
     * whose lock another thread holds notes {@link #lockBusy} ({@link #block} parks briefly instead of sleeping).
     */
    private boolean mayLeave(ShmConnection c) {
        int s = c.prepareToSleep();
        if (s == ShmConnection.BUSY) {
            lockBusy = true;
        }
        return s == ShmConnection.SLEEP;
    }

    /** A socket is readable: doorbell bytes (dropped; the connection is marked) or its end. */
    private void ready(SelectionKey k) {
        ShmConnection c = (ShmConnection) k.attachment();
        try {
            for (;;) {
                drain.clear();
                int n = c.ch.read(drain);
                if (n < 0) {
                    k.cancel();
                    c.socketEnded();
                    return;
                }
                if (n < drain.capacity()) {
                    break;
                }
            }
            ReadyBoard b = board;
            if (b != null && c.slot >= 0) {
                b.mark(c.slot); // a peer without our board rang instead: the next pass looks at it
            }
        } catch (IOException | CancelledKeyException e) {
            k.cancel();
            c.socketEnded();
        }
    }
}
