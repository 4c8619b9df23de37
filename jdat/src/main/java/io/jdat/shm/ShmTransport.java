package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Qos;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.ExposedMemory;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import io.jdat.transport.DaemonTimer;
import io.jdat.transport.SelectorTransport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code shm} transport of one open IA: its instance directory ({@link ShmFiles.Instance}), its listeners
 * ({@link ShmListener}), connection attempts ({@link ShmActive}), accepted requests ({@link ShmPassive}),
 * connections ({@link ShmConnection}) and their progress thread ({@link ShmProgress}).
 *
 * <p>Connection events are logged through {@link System.Logger} {@code io.jdat.shm} at {@code DEBUG}; the system
 * property {@code jdat.shm.trace=true} raises them to {@code INFO}, which the default backend prints.
 */
final class ShmTransport extends SelectorTransport<UnixDomainSocketAddress, ShmConnection, ShmProgress> {
    static final long MAX_TRANSFER = 1L << 30;
    static final int MAX_READ_DEPTH = 64;
    static final int MAX_PRIVATE_DATA = 1024;
    /** What {@code shm} can carry: messages and RDMA up to 1 GiB, 1 KiB of private data, IRD and ORD up to 64. */
    private static final TransportLimits LIMITS = new TransportLimits(MAX_TRANSFER, MAX_TRANSFER, MAX_PRIVATE_DATA,
            MAX_READ_DEPTH, MAX_READ_DEPTH, Qos.BEST_EFFORT | Qos.HIGH_THROUGHPUT | Qos.LOW_LATENCY, "shm");
    /** A qualifier is a socket file name: {@code q-<qual>}. */
    static final String LISTENER_PREFIX = "q-";
    /**
     * Deadlines of connection management (request reads, accept replies). A cancelled deadline leaves the queue
     * at once ({@link DaemonTimer}): kept until its time, the two of every accepted connection (5 and 10 s) woke
     * the timer thread that many times after a burst, 1% of a core for seconds after 1024 connections (issue 18).
     */
    static final ScheduledExecutorService TIMER = DaemonTimer.create("jdat-shm-timer");

    final ShmConfig config;
    final ShmFiles files;
    final ShmFiles.Instance instance;
    /** A byte the peers probe with cross-memory attach ({@link CrossMemory#access}). */
    private final Arena probeArena = Arena.ofShared();
    /** The mapping of this IA's {@link ReadyBoard}, closed after the progress thread stopped. */
    private final Arena boardArena = ChannelArena.ofShared();
    final MemorySegment probe;
    /** Whether this side may use cross-memory attach at all (supported, not switched off). */
    final boolean crossMemory;
    /** The directory of this process's {@link ShmMemory} files, announced to peers. */
    final String memoryDir;
    private final CrossMemory prober;
    private final AtomicLong ports = new AtomicLong(49152);
    /** The contexts peers may store into directly ({@link DirectStore}); null when it could not be created. */
    private final ContextTable contexts;

    /**
     * Opens the transport of one IA ({@code dat_ia_open}): its base directory (the {@code dir=} parameter's, else
     * the default one), its instance directory, cross-memory attach if permitted, and its progress thread. On
     * failure nothing is left behind: the instance directory is removed and what was allocated is freed.
     *
     * @throws DatException {@link DatReturnType#INVALID_PARAMETER} if the base directory is refused (see
     *                      {@link ShmFiles#open(Path)}); {@link DatReturnType#INSUFFICIENT_RESOURCES} if a file,
     *                      descriptor, memory or thread cannot be had
     */
    ShmTransport(String iaName, ShmConfig config) {
        ShmFiles files = config.baseDir() != null ? ShmFiles.open(config.baseDir()) : ShmFiles.open();
        ShmFiles.Instance instance = files.createInstance(config.name());
        super("shm", UnixDomainSocketAddress.of(instance.directory()), LIMITS, newProgress(iaName, instance));
        this.config = config;
        this.files = files;
        this.instance = instance;
        CrossMemory cm = null;
        boolean opened = false;
        try {
            this.probe = probeArena.allocate(8, 8);
            probe.set(ValueLayout.JAVA_LONG, 0, 0x6A646174L);
            cm = config.crossMemory() ? CrossMemory.available().orElse(null) : null;
            this.prober = cm;
            this.crossMemory = cm != null;
            // the memory directory goes into this IA's base: with dir=, the default base is never opened
            this.memoryDir = ShmMemory.home(files).directory().toString();
            progress.start(openBoard(instance, boardArena)); // the board before the thread (ShmProgress.start)
            this.contexts = DirectStore.ENABLED ? ContextTable.create(this, instance) : null;
            opened = true;
        } catch (DatException e) {
            throw e;
        } catch (RuntimeException | OutOfMemoryError | LinkageError e) {
            throw cannotOpen(iaName, e); // e.g. no thread
        } finally {
            if (!opened) {
                progress.shutdown();
                if (cm != null) {
                    cm.close();
                }
                probeArena.close();
                boardArena.close();
                instance.close();
            }
        }
    }

    /**
     * The IA's progress engine, its thread not started yet; on failure the instance directory is removed.
     *
     * @throws DatException {@link DatReturnType#INSUFFICIENT_RESOURCES} if it cannot be had (e.g. no descriptor
     *                      left for its selector)
     */
    private static ShmProgress newProgress(String iaName, ShmFiles.Instance instance) {
        try {
            return new ShmProgress(iaName);
        } catch (RuntimeException | OutOfMemoryError | LinkageError e) {
            instance.close();
            throw cannotOpen(iaName, e);
        }
    }

    /** {@link DatReturnType#INSUFFICIENT_RESOURCES}: the IA cannot be opened for lack of {@code cause}'s resource. */
    private static DatException cannotOpen(String iaName, Throwable cause) {
        DatException d = new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                "cannot open the shm IA " + iaName + ": " + cause);
        d.initCause(cause);
        return d;
    }

    /** This IA's ready board, or null when it cannot be had (then every poll looks at every connection). */
    private static ReadyBoard openBoard(ShmFiles.Instance instance, Arena arena) {
        try {
            return ReadyBoard.create(instance.createFile(ReadyBoard.FILE, ReadyBoard.LENGTH), arena);
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The peer's {@link ShmMemory} directory if this side may map its files: an absolute path directly under
     * this IA's base directory or the default one, an instance directory of a live process; else null.
     */
    Path peerMemoryDir(String announced) {
        if (announced == null || announced.isEmpty()) {
            return null;
        }
        Path d = Path.of(announced).normalize();
        Path parent = d.getParent();
        if (!d.isAbsolute() || parent == null || !(parent.equals(files.baseDirectory())
                || parent.equals(ShmFiles.defaultBaseDirectory().normalize()))
                || !Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS) || !ShmFiles.isLive(d)) {
            return null;
        }
        return d;
    }

    /** {@inheritDoc} The table peers check their direct stores against ({@link ContextTable}), or null. */
    @Override
    public ExposedMemory exposedMemory() {
        return contexts;
    }

    /** Whether peers may store into this IA's memory directly (its {@link ContextTable} exists). */
    boolean exposesContexts() {
        return contexts != null;
    }

    @Override
    public boolean isValidAddress(SocketAddress a) {
        return a instanceof UnixDomainSocketAddress u && u.getPath().isAbsolute();
    }

    long nextPort() {
        return ports.getAndIncrement();
    }

    /** Whether this process may read and write the memory of {@code pid} (one probe of its probe byte). */
    synchronized boolean canReach(long pid, long probeAddress) {
        if (prober == null || closed()) {
            return false;
        }
        try {
            return prober.access(pid, probeAddress) == CrossMemory.Access.ALLOWED;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The socket file of qualifier {@code qual} in the instance directory {@code dir}. */
    static Path listenerPath(Path dir, long qual) {
        return dir.resolve(LISTENER_PREFIX + Long.toUnsignedString(qual));
    }

    @Override
    public Listener listen(long connQual, boolean any, IncomingHandler handler) {
        if (closed()) {
            throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "the shm IA is closing");
        }
        if (any) {
            return listenOnAny(q -> listenIfFree(q, handler));
        }
        return listenOn(connQual, handler);
    }

    /** Listens on {@code qual}, or returns null when it is taken (its socket file exists, or is bound meanwhile). */
    private ShmListener listenIfFree(long qual, IncomingHandler handler) {
        if (Files.exists(listenerPath(instance.directory(), qual))) {
            return null;
        }
        try {
            return listenOn(qual, handler);
        } catch (DatException e) {
            if (e.type() != DatReturnType.CONN_QUAL_IN_USE) {
                throw e;
            }
            return null;
        }
    }

    private ShmListener listenOn(long qual, IncomingHandler handler) {
        ShmListener l;
        try {
            l = new ShmListener(this, qual, handler);
        } catch (java.net.BindException | java.nio.file.FileAlreadyExistsException e) {
            throw new DatException(DatReturnType.CONN_QUAL_IN_USE, "qualifier " + qual + " in use at " + address());
        } catch (IOException e) {
            throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "cannot listen on qualifier " + qual + ": " + e);
        }
        l.start();
        return l;
    }

    @Override
    public ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int ird, int ord,
            ActiveHandler handler) {
        return ShmActive.start(this, ((UnixDomainSocketAddress) remote).getPath(), remoteConnQual, privateData,
                ird, ord, handler);
    }

    @Override
    protected void abandon(ShmConnection c) {
        c.abandon();
    }

    @Override
    protected void releaseResources() {
        progress.shutdown();
        if (contexts != null) {
            contexts.close();
        }
        boardArena.close();
        instance.close();
        synchronized (this) {
            if (prober != null) {
                prober.close();
            }
        }
        // the probe byte stays readable until here: peers probe it only while connecting to us
        probeArena.close();
    }
}
