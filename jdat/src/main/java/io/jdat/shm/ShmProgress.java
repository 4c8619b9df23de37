package io.jdat.shm;

import io.jdat.transport.BackoffIdle;
import io.jdat.transport.ProgressThread;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;

/**
 * The progress engine of one {@code shm} IA: one daemon thread that polls the IA's connections, and the
 * consumer-driven path that lets a polling consumer do it on its own thread.
 *
 * <h2>Idle strategy</h2>
 * <ol>
 *   <li>While a consumer polls an event dispatcher of this IA (it called {@link #poll} within the last
 *       {@value #POLLER_GRACE_MICROS} µs), that consumer moves the bytes itself and this thread parks in
 *       {@value #POLLER_PARK_MILLIS} ms slices, looking only at the sockets (ends of peers) in between: two
 *       spinning threads on a 2-core machine would take the core the peer needs.</li>
 *   <li>Otherwise the thread polls the rings while there is traffic, and spins
 *       ({@link Thread#onSpinWait()}) for {@link #SPIN_NANOS} after the last of it: waking a blocked thread
 *       costs tens of microseconds here, more than a whole exchange.</li>
 *   <li>Then it sleeps: it sets the consumer-sleeping flag of every incoming ring, looks once more, and blocks
 *       in {@code select} on the connections' sockets. A peer that publishes a record, consumes one of ours,
 *       stages or takes RDMA Read data while the flag is set rings the doorbell: one byte on the socket
 *       (see {@link ShmRing} for the ordering that makes this race-free). A peer that ends closes the socket,
 *       which wakes the thread too. The select also times out after {@value #SELECT_MILLIS} ms for the
 *       receiver-not-ready deadlines.</li>
 * </ol>
 * A consumer that stops polling to park in a wait hands over at once ({@link #pollerIdle}). The loop and the
 * hand-over are {@link ProgressThread}'s, with these constants.
 */
final class ShmProgress extends ProgressThread<ShmConnection> {
    static final long POLLER_GRACE_MICROS = 200;
    private static final long POLLER_GRACE_NANOS = POLLER_GRACE_MICROS * 1000;
    static final long POLLER_PARK_MILLIS = 2;
    private static final long SELECT_MILLIS = 100;
    /** Spin after the last traffic before sleeping (system property {@code jdat.shm.progressSpinNanos}). */
    static final long SPIN_NANOS = Long.getLong("jdat.shm.progressSpinNanos", 20_000L);
    /** How often the thread advances each connection's heartbeat and checks the peer's. */
    static final long HEARTBEAT_MILLIS = 50;
    private static final long HEARTBEAT_NANOS = HEARTBEAT_MILLIS * 1_000_000L;
    private long lastHeartbeat;

    private final ByteBuffer drain = ByteBuffer.allocateDirect(256);
    private final java.util.function.Consumer<SelectionKey> readyAction = this::ready;
    /** Polls since the timestamp was refreshed (a heuristic: increments from several threads may be lost). */
    private int polls;

    ShmProgress(String name) {
        super("jdat-shm-" + name, POLLER_GRACE_NANOS, POLLER_PARK_MILLIS * 1_000_000L,
                new BackoffIdle(SPIN_NANOS, System.nanoTime()), new ShmConnection[0]);
        start();
    }

    /** Consumer-driven progress: one pass over every connection on the calling thread. */
    boolean poll() {
        try {
            // Refresh the poller's timestamp every 32 calls (a few microseconds of polling), not on every call:
            // the clock read would be a good part of an empty poll. The counter is racy across pollers on purpose.
            if ((++polls & 31) == 0 || lastPoll() == 0) {
                polledAt(System.nanoTime());
            }
            return pollConnections();
        } catch (InternalError e) {
            mappingFault(); // as in the loop: a fault raised after the handler near the access
            return true;
        }
    }

    void add(ShmConnection c) {
        connections.add(c);
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
     * near the access caught: every connection checks its files and the one whose file shrank breaks.
     */
    void mappingFault() {
        for (ShmConnection c : connections.snapshot()) {
            c.breakIfTruncated();
        }
    }

    @Override
    protected void periodic(long now) {
        if (now - lastHeartbeat > HEARTBEAT_NANOS) {
            lastHeartbeat = now;
            for (ShmConnection c : connections.snapshot()) {
                c.heartbeat(now);
            }
        }
    }

    @Override
    protected void whilePolled() throws IOException {
        selector.selectNow(readyAction); // peers' ends; the poller moves the bytes
    }

    @Override
    protected boolean pass() {
        return pollConnections();
    }

    @Override
    protected void block() throws IOException {
        selector.selectNow(readyAction);
        if (sleepReady()) {
            selector.select(readyAction, SELECT_MILLIS);
        }
        for (ShmConnection c : connections.snapshot()) {
            c.awake();
        }
    }

    /** Announces sleep on every connection; false if one has work after all (then nobody sleeps). */
    private boolean sleepReady() {
        if (hasTasks()) {
            return false;
        }
        for (ShmConnection c : connections.snapshot()) {
            if (!c.prepareToSleep()) {
                return false;
            }
        }
        return true;
    }

    /** A socket is readable: doorbell bytes (dropped) or its end. */
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
        } catch (IOException | CancelledKeyException e) {
            k.cancel();
            c.socketEnded();
        }
    }
}
