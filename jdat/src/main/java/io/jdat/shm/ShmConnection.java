package io.jdat.shm;

import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.WorkRequest;
import io.jdat.transport.ConnectionEnding;
import io.jdat.transport.ProgressThread;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One established {@code shm} connection: the mapped connection file ({@link ConnectionLayout}), its
 * {@link ShmTransmitter} (this side's requests into the outgoing ring) and {@link ShmReceiver} (the peer's
 * records from the incoming ring), and the Unix domain socket that stays open as liveness and doorbell channel.
 *
 * <h2>Locks</h2>
 * {@link #txLock} guards the outgoing ring, the outstanding requests and their completions; {@link #rxLock}
 * guards the incoming ring and the receive state. Pollers only {@code tryLock} them (another thread is already
 * making progress), submissions and {@link #close} take them. The receive path may take {@code txLock} under
 * {@code rxLock} (staged RDMA Read data belongs to an outstanding request); never the reverse.
 *
 * <h2>Endings</h2>
 * A side that ends writes its close state into its status block (release) and closes the socket: the peer
 * sees it at its next poll or through the socket's end of stream, and reports {@code DISCONNECTED} or
 * {@code BROKEN}, after it handled every record the closing side published before. End of stream with no
 * close state means the peer process died ({@code BROKEN}): the kernel closes a dead process's sockets, so
 * this is seen at once by a sleeping progress thread and within one park slice by a polling one. The core
 * hears of an ending once, from the IA's progress thread, never from under this connection's locks.
 */
final class ShmConnection implements Channel, ProgressThread.Polled {
    final ShmTransport transport;
    final boolean activeSide;
    final SocketChannel ch;
    private final Arena arena;
    final long peerPid;
    private final long localPort;
    private final UnixDomainSocketAddress remote;
    private final long remotePort;
    /** The connection file, watched for truncation by the peer. */
    private final MappedFile mapped;
    final ReentrantLock txLock = new ReentrantLock();
    final ReentrantLock rxLock = new ReentrantLock();
    final MemorySegment myBlock;
    final MemorySegment peerBlock;
    final ShmTransmitter tx;
    final ShmReceiver rx;
    volatile ChannelSink sink;
    volatile SelectionKey key;
    /** Set under both locks by {@link #close}/{@link #abandon}: no thread touches the mapping afterwards. */
    volatile boolean closed;
    /** How the connection ended, told to the core once (the first ending counts). */
    private final ConnectionEnding ending;
    private final ByteBuffer bell = ByteBuffer.allocateDirect(1);
    /** The liveness bound ({@code peer_timeout}), 0 for none. */
    final long peerTimeoutNanos;
    /**
     * The peer cannot read this IA's board heartbeat (it asked in its status block): this side advances the
     * heartbeat of its status block too. Set by {@link ShmProgress#add}.
     */
    boolean blockBeats;
    /** Counted in {@link ShmProgress}'s per-connection heartbeat pass (its {@code slotsLock}). */
    boolean beatCounted;
    /** The peer IA's board as attached, for its heartbeat (null: read the peer's status block). */
    private final ReadyBoard peerBeats;
    /** This side's heartbeat count, and the peer's as last seen and when it last moved (progress thread). */
    private long myBeat;
    private long peerBeat;
    private long peerBeatSeen;
    /** This side's slot on its IA's {@link ReadyBoard} (-1: none), set once by {@link ShmProgress#add}. */
    volatile int slot = -1;
    /** Index in the progress engine's hot set, -1 when cold ({@link ShmProgress}'s pass lock). */
    int hotIndex = -1;
    /** The pass of the last traffic ({@link ShmProgress}'s pass lock). */
    long lastTraffic;
    /** The peer IA's board, where this side marks the connection (null: ring the socket instead). */
    private volatile ReadyBoard peerBoard;
    /** The peer's slot for this connection, once read valid from its status block (-1: not yet). */
    private int peerSlot = -1;

    ShmConnection(ShmTransport transport, boolean activeSide, SocketChannel ch, Arena arena, MappedFile mapped,
            int ringCapacity, int staging, long peerPid, long localPort, UnixDomainSocketAddress remote,
            long remotePort, int inline) throws RingCorruptException {
        MemorySegment file = mapped.segment();
        this.mapped = mapped;
        this.transport = transport;
        this.activeSide = activeSide;
        this.ch = ch;
        this.arena = arena;
        this.peerPid = peerPid;
        this.localPort = localPort;
        this.remote = remote;
        this.remotePort = remotePort;
        this.peerTimeoutNanos = transport.config.peerTimeoutMillis() * 1_000_000L;
        this.ending = new ConnectionEnding(transport.progress::execute, () -> closed, false);
        this.peerBeatSeen = System.nanoTime();
        this.myBlock = file.asSlice(ConnectionLayout.blockOffset(activeSide), ConnectionLayout.BLOCK_LENGTH);
        this.peerBlock = file.asSlice(ConnectionLayout.blockOffset(!activeSide), ConnectionLayout.BLOCK_LENGTH);
        MemorySegment outRing = file.asSlice(ConnectionLayout.ringOffset(ringCapacity, activeSide),
                ConnectionLayout.ringLength(ringCapacity));
        MemorySegment inRing = file.asSlice(ConnectionLayout.ringOffset(ringCapacity, !activeSide),
                ConnectionLayout.ringLength(ringCapacity));
        MemorySegment myStaging = file.asSlice(ConnectionLayout.stagingOffset(ringCapacity, staging, activeSide),
                staging);
        MemorySegment peerStaging = file.asSlice(ConnectionLayout.stagingOffset(ringCapacity, staging, !activeSide),
                staging);
        ShmRing.Producer out = ShmRing.producer(outRing);
        ShmRing.Consumer in = ShmRing.consumer(inRing, Records.MAX_TYPE);
        // this side's consumer position rides on its records to the peer (the answers), and the peer's on its
        // records to this side: head is stored only when no record carried it (ShmReceiver#poll)
        ShmRing.pair(in, out);
        this.tx = new ShmTransmitter(this, out, inline);
        this.rx = new ShmReceiver(this, in, out, myStaging, peerStaging, transport.crossMemory);
        this.peerBoard = attachPeerBoard(transport, remote, arena);
        this.peerBeats = peerBoard;
        if (peerBoard == null) {
            // release: before the handshake's last message, after which the peer reads it (ShmProgress.add)
            ConnectionLayout.INT.setRelease(myBlock, (long) ConnectionLayout.WANTS_BLOCK_HEARTBEAT, 1);
        }
    }

    /** Whether the peer asked for heartbeats in this side's status block (it cannot read this IA's board). */
    boolean peerWantsBlockHeartbeat() {
        try {
            return (int) ConnectionLayout.INT.getAcquire(peerBlock, (long) ConnectionLayout.WANTS_BLOCK_HEARTBEAT) != 0;
        } catch (IllegalStateException | InternalError e) {
            return false; // closed or truncated: the receive path reports it
        }
    }

    /** The board of the peer's IA (its instance directory, checked as for its memory), or null. */
    private static ReadyBoard attachPeerBoard(ShmTransport transport, UnixDomainSocketAddress remote, Arena arena) {
        try {
            java.nio.file.Path dir = transport.peerMemoryDir(remote.getPath().toString());
            return dir == null ? null : ReadyBoard.attach(dir, arena);
        } catch (IOException | RuntimeException e) {
            return null; // the peer is told through the socket instead
        }
    }

    /**
     * What the peer can do with this side's memory ({@link CmMessage#CAN_REACH}, {@link CmMessage#CAN_MAP}),
     * which decides the records this side sends, and where this side maps the peer's shared memory (null: it
     * may not).
     */
    void setPeer(int peerAbilities, java.nio.file.Path peerMemoryDir) {
        tx.setPaths((peerAbilities & CmMessage.CAN_REACH) != 0 && transport.crossMemory,
                (peerAbilities & CmMessage.CAN_MAP) != 0);
        rx.setPeerMemory(peerMemoryDir, arena);
        // the direct store needs the peer's table (in its instance directory) and its memory directory, both
        // validated as a memory directory is (directly under a base, a live process's instance, no link)
        java.nio.file.Path peerInstance = transport.peerMemoryDir(remote.getPath().toString());
        txLock.lock();
        try {
            tx.setDirect(DirectStore.open(peerInstance, peerMemoryDir, myBlock, peerBlock));
        } finally {
            txLock.unlock();
        }
    }

    /**
     * Told of every connection that starts (tests: they reach a connection's locks through it); null in
     * production, one volatile read per connection.
     */
    static volatile java.util.function.Consumer<ShmConnection> startHook;

    /** Starts delivering to {@code s} (null: the core did not want the connection). */
    void start(ChannelSink s) {
        java.util.function.Consumer<ShmConnection> hook = startHook;
        if (hook != null) {
            hook.accept(this);
        }
        if (s == null) {
            close(CLOSE_BREAK);
            return;
        }
        sink = s;
        boolean ended = ending.attach(s);
        transport.connections.add(this);
        if (transport.exposesContexts()) {
            // release, after the connection joined the set a withdrawal drains: from here the peer may store
            // directly into memory of this EP's PZ (DirectStore), and withdrawals wait for it
            ConnectionLayout.INT.setRelease(myBlock, (long) ConnectionLayout.DIRECT_PZ, s.protectionZone());
        }
        transport.progress.add(this);
        if (ended) {
            ending.deliver(s);
        }
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public long localPortQual() {
        return localPort;
    }

    @Override
    public void submit(WorkRequest wr) {
        try {
            tx.submit(wr);
        } catch (InternalError e) {
            transport.progress.mappingFault(); // raised by compiled code after the transmitter's own handler
        }
    }

    @Override
    public boolean writeNow(WorkRequest wr) {
        try {
            return tx.writeNow(wr);
        } catch (InternalError e) {
            transport.progress.mappingFault(); // raised by compiled code after the transmitter's own handler
            return false;
        }
    }

    @Override
    public void recvPosted() {
        if (rx.stalled()) {
            try {
                poll();
            } catch (InternalError e) {
                transport.progress.mappingFault();
            }
            transport.progress.wake();
        }
    }

    @Override
    public void close(int mode) {
        shutdown(mode == CLOSE_DISCONNECT ? ConnectionLayout.DISCONNECTED : ConnectionLayout.BROKEN);
    }

    /** The IA closes: the peer sees BROKEN; the core is not called back. */
    void abandon() {
        shutdown(ConnectionLayout.BROKEN);
    }

    private void shutdown(int state) {
        rxLock.lock();
        txLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            tx.stop();
            rx.stop(state);
        } finally {
            txLock.unlock();
            rxLock.unlock();
        }
        try {
            ch.close(); // the peer's selector sees end of stream
        } catch (IOException e) {
            // closed either way
        }
        transport.progress.remove(this);
        transport.progress.release(this);
        transport.connections.remove(this);
        // Unmap on the progress thread: the thread that called close may be inside a handler of this
        // connection (a completion that made the consumer close), with the mapping still in use up its stack.
        transport.progress.execute(this::unmap);
    }

    private void unmap() {
        rxLock.lock();
        txLock.lock();
        try {
            rx.release();
            tx.closeDirect();
            if (arena.scope().isAlive()) {
                arena.close();
            }
        } finally {
            txLock.unlock();
            rxLock.unlock();
        }
    }

    // ------------------------------------------------------------------ progress

    /**
     * Breaks the connection from the progress thread (a peer that held a context past a withdrawal's bound,
     * {@link ContextTable}): the caller may hold locks of the core, so the break runs elsewhere.
     */
    void breakLater(String why) {
        transport.progress.execute(() -> {
            rxLock.lock();
            try {
                if (!closed) {
                    rx.peerSilent(why);
                }
            } finally {
                rxLock.unlock();
            }
        });
    }

    /** One receive and completion pass, on any thread; skips a part another thread is running. */
    @Override
    public boolean poll() {
        if (closed) {
            return false;
        }
        boolean p = false;
        if (rxLock.tryLock()) {
            try {
                if (!closed) {
                    p = rx.poll();
                }
            } finally {
                rxLock.unlock();
            }
        }
        // After a receive, wait for the transmit lock instead of skipping: the peer handled our requests before
        // it answered, so their completions must not come after the answer's (a consumer that reposts on the
        // answer would find its request queue still full). Passes run concurrently more often since issue 18.
        if (tx.busy() && (p ? lockTx() : txLock.tryLock())) {
            try {
                if (!closed) {
                    p |= tx.progress();
                }
            } finally {
                txLock.unlock();
            }
        }
        return p;
    }

    private boolean lockTx() {
        lockSpinning(txLock);
        return true;
    }

    /** Spins before {@link #lockSpinning} queues: some 10 µs of {@link Thread#onSpinWait()}. */
    static final int LOCK_SPINS = 256;

    /**
     * Takes {@code lock} on a data path, spinning up to {@value #LOCK_SPINS} looks before it queues. The holders of
     * these locks keep them for well under a microsecond (a post, a pass), while a queued waiter parks at once
     * ({@link ReentrantLock#lock}): the holder's unlock must then unpark it (a futex wake on the holder's thread)
     * and the waiter takes tens of microseconds to run again on these VMs, during which it holds whatever it held
     * before (issue 18). The look is a plain read of the lock's state before the compare-and-set, so a spinning
     * waiter does not pull the line from the holder's core on every turn.
     */
    static void lockSpinning(ReentrantLock lock) {
        if (lock.isHeldByCurrentThread()) {
            lock.lock(); // reentrant: no wait
            return;
        }
        for (int i = 0; i < LOCK_SPINS; i++) {
            if (!lock.isLocked() && lock.tryLock()) {
                return;
            }
            Thread.onSpinWait();
        }
        lock.lock();
    }

    /**
     * After an {@link InternalError} of unknown origin (an unsafe-access fault, raised asynchronously by compiled
     * code: see {@link MappedFile}): breaks this connection if the peer truncated its connection file or one of
     * its shared-memory files that this side mapped. Takes both locks, like the paths that touch the mappings.
     *
     * @return true if this connection was the culprit
     */
    boolean breakIfTruncated() {
        rxLock.lock();
        txLock.lock();
        try {
            if (closed || !(mapped.truncated() || rx.peerMappingTruncated() || tx.directTruncated())) {
                return false;
            }
            rx.peerCorrupt("the peer truncated a mapped file");
            return true;
        } finally {
            txLock.unlock();
            rxLock.unlock();
        }
    }

    /** {@link #prepareToSleep}: the flag is set and nothing is left to do. */
    static final int SLEEP = 0;
    /** {@link #prepareToSleep}: something arrived or waits (the flag is clear again). */
    static final int WORK = 1;
    /**
     * {@link #prepareToSleep}: another thread holds a lock of the connection (a consumer polling or posting); the
     * flag is clear, nothing was decided: ask again later.
     */
    static final int BUSY = 2;

    /**
     * Before the connection goes cold or the progress thread blocks: announces it (the consumer-sleeping flag of
     * the incoming ring) and checks once more, Dekker's pattern with the peer ({@link ShmReceiver#prepareToSleep}).
     * Never waits for a lock: a thread that holds one of this connection is polling or posting on it, so it is not
     * a connection to leave; the caller keeps it hot and asks again later. (It took the receive lock with
     * {@code lock()} before: the progress thread queued behind a polling consumer, every unlock of the consumer's
     * poll had to unpark it, and the ping-pong fell into a ~50 µs mode; issue 18.)
     *
     * @return {@link #SLEEP}, {@link #WORK} or {@link #BUSY}
     */
    int prepareToSleep() {
        if (closed) {
            return SLEEP;
        }
        if (!rxLock.tryLock()) {
            return BUSY;
        }
        try {
            return closed ? SLEEP : rx.prepareToSleep();
        } finally {
            rxLock.unlock();
        }
    }

    /**
     * After the progress thread woke: clears the sleeping flag, also when a polling consumer holds the receive
     * lock (only the progress thread sets the flag, and only it unmaps, so the store needs no lock). A flag
     * left set would make the peer ring the doorbell, a system call, on every record until the next sleep.
     */
    void awake() {
        if (!closed) {
            rx.awake();
        }
    }

    /**
     * Liveness, on the progress thread (which also unmaps, so the mapping is there while {@link #closed} is
     * false): advances this side's status-block heartbeat if the peer asked for it (this IA's board heartbeat
     * serves every other peer: {@link ShmProgress#periodic}), and with a liveness bound breaks the connection
     * when the peer's heartbeat (its IA's board's, else its status block's) has not moved for that long.
     */
    void heartbeat(long now) {
        if (closed) {
            return;
        }
        try {
            if (blockBeats) {
                ConnectionLayout.LONG.setOpaque(myBlock, (long) ConnectionLayout.HEARTBEAT, ++myBeat);
            }
            if (peerTimeoutNanos == 0) {
                return;
            }
            ReadyBoard pb = peerBeats;
            long b = pb != null ? pb.heartbeat()
                    : (long) ConnectionLayout.LONG.getOpaque(peerBlock, (long) ConnectionLayout.HEARTBEAT);
            if (b != peerBeat) {
                peerBeat = b;
                peerBeatSeen = now;
                return;
            }
        } catch (IllegalStateException | InternalError e) {
            return; // unmapped or truncated: the receive path reports it
        }
        long quiet = now - peerBeatSeen;
        if (quiet > peerTimeoutNanos) {
            rxLock.lock();
            try {
                if (!closed) {
                    rx.peerSilent("the peer's heartbeat stood still for " + quiet / 1_000_000 + " ms (peer_timeout "
                            + peerTimeoutNanos / 1_000_000 + " ms)");
                }
            } finally {
                rxLock.unlock();
            }
        }
    }

    /**
     * Publishes this side's board slot in its status block (release: before the flag that makes the peer read
     * it), or that it has none.
     */
    void publishSlot(int s) {
        slot = s;
        try {
            ConnectionLayout.INT.setRelease(myBlock, (long) ConnectionLayout.READY_SLOT, s + 1);
        } catch (IllegalStateException | InternalError e) {
            // closed or truncated meanwhile: the receive path reports it
        }
    }

    /**
     * This side did something the peer waits for (published records, stored the consumer position of the peer's
     * ring, staged or took a chunk): if the peer does not watch the connection (its flag on our outgoing ring, read behind a full
     * fence), marks the connection on the peer's board, and rings the socket if the peer's progress thread may
     * block, or if there is no board to mark. Caller holds {@link #rxLock} or {@link #txLock}.
     */
    void notifyPeer() {
        if (!tx.peerUnwatched()) {
            return;
        }
        ReadyBoard b = peerBoard;
        if (b != null) {
            int s = peerSlot;
            if (s < 0) {
                // acquire: pairs with the peer's release of its slot
                int v = (int) ConnectionLayout.INT.getAcquire(peerBlock, (long) ConnectionLayout.READY_SLOT) - 1;
                s = v >= 0 && v < ReadyBoard.SLOTS ? v : -1; // hostile: only a slot of the board, else the socket
                peerSlot = s;
            }
            if (s >= 0) {
                try {
                    b.mark(s);
                    if (!b.sleeping()) {
                        return;
                    }
                } catch (InternalError | IllegalStateException e) {
                    peerBoard = null; // the peer's board was truncated: the socket from now on
                }
            }
        }
        doorbell();
    }

    /** Wakes the peer's progress thread: one byte on the socket (a full socket buffer already wakes it). */
    void doorbell() {
        synchronized (bell) {
            try {
                bell.clear();
                ch.write(bell);
            } catch (IOException e) {
                // the peer is gone; its end is seen by the receive path
            }
        }
    }

    /** The socket reached end of stream: the peer closed it or died. */
    void socketEnded() {
        if (closed) {
            return;
        }
        rxLock.lock();
        try {
            if (!closed) {
                rx.socketEnded();
            }
        } catch (InternalError | IllegalStateException e) {
            rx.peerCorrupt("the connection's mapping failed: " + e);
        } finally {
            rxLock.unlock();
        }
    }

    /** Tells the core once, from the progress thread: the peer disconnected, or the connection broke. */
    void notifyCore(boolean broken, String reason) {
        if (ending.end(broken)) {
            transport.trace(this, (broken ? "broken: " : "disconnected: ") + reason);
        }
    }

    @Override
    public String toString() {
        return "shm " + (activeSide ? "active" : "passive") + " " + transport.address().getPath().getFileName()
                + ":" + localPort + " <-> " + remote.getPath().getFileName() + ":" + remotePort;
    }
}
