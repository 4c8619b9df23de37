package io.jdat.shm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;

/**
 * The directory and files of the {@code shm} provider on one host, with owner-only permissions, a liveness lock
 * per IA instance and the removal of files that crashed processes left behind.
 *
 * <h2>Layout</h2>
 * <pre>
 * &lt;base&gt;/                        rwx------, owned by this process's uid
 *   ia-&lt;pid&gt;-&lt;16 hex&gt;/           rwx------, one per open IA ({@link Instance})
 *     lock                         rw-------, locked (fcntl) by the owning process for the IA's life
 *     &lt;name&gt; ...                  rw-------, the IA's files ({@link Instance#createFile})
 *   .new-&lt;pid&gt;-&lt;16 hex&gt;/          an instance being created (renamed to ia-… once its lock is held)
 * </pre>
 * The base defaults to {@code /dev/shm/jdat-shm-<uid>} (memory, never written back to a disk), else
 * {@code <java.io.tmpdir>/jdat-shm-<uid>} ({@link #defaultBaseDirectory()}), or the value of the system property
 * {@value #BASE_DIRECTORY_PROPERTY}.
 *
 * <h2>Safety</h2>
 * {@link #open(Path)} creates the base with mode {@code 0700} or, if it exists, refuses it unless it is a real
 * directory (not a symbolic link), owned by this process's uid ({@link #currentUid()}), with no group or other
 * permission bit: in a world-writable {@code /tmp} or {@code /dev/shm} another user could otherwise pre-create
 * it and read or replace the rings. The refusal names the directory and the fix (remove it, or give the IA its
 * own base with {@code dir=} or {@value #BASE_DIRECTORY_PROPERTY}); an IA given {@code dir=} never opens the
 * default base, so a squatted default blocks nobody who chose another.
 * Instance directories and files are created {@code 0700} / {@code 0600} with {@code CREATE_NEW} (never
 * opening an existing file).
 *
 * <h2>Liveness and stale files</h2>
 * Each {@link Instance} holds an exclusive {@link FileChannel#tryLock() lock} on its {@code lock} file from
 * creation to {@link Instance#close()}. The kernel releases such a lock when the process ends in any way,
 * SIGKILL included, so a lock that can be taken means a dead owner: {@link #cleanStale()} (run by
 * {@link #open(Path)} and available on its own) removes exactly the instance directories whose lock it can
 * take, and never one whose owner lives. Instances of this JVM are recognised without touching their lock file
 * (closing any descriptor of a locked file drops the process's POSIX lock on it). When the JVM exits normally
 * or on SIGINT, SIGTERM or SIGHUP, a shutdown hook closes the instances of this JVM still open, so their
 * directories go at once; only a process that runs no hooks (SIGKILL, a crash) leaves them to the next cleaner.
 *
 * <p>Instances of this class are immutable and thread-safe.
 */
public final class ShmFiles {
    /** The system property that overrides {@link #defaultBaseDirectory()}'s choice. */
    public static final String BASE_DIRECTORY_PROPERTY = "io.jdat.shm.dir";
    /** The name of the lock file in each instance directory. */
    public static final String LOCK_FILE = "lock";

    static final String INSTANCE_PREFIX = "ia-";
    static final String NEW_PREFIX = ".new-";
    /** How old a {@code .new-} directory must be before {@link #cleanStale()} considers it abandoned. */
    static final Duration CREATION_GRACE = Duration.ofSeconds(10);

    private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final FileAttribute<Set<PosixFilePermission>> DIR_ATTR = PosixFilePermissions.asFileAttribute(DIR_MODE);
    private static final FileAttribute<Set<PosixFilePermission>> FILE_ATTR = PosixFilePermissions.asFileAttribute(FILE_MODE);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Directories of the instances this JVM holds (and creates): never opened by {@link #cleanStale()}. */
    private static final Set<Path> LIVE_HERE = ConcurrentHashMap.newKeySet();
    /** The open instances of this JVM, which {@link ExitCleanup} closes when the JVM exits. */
    private static final Set<Instance> OPEN = ConcurrentHashMap.newKeySet();
    /** How long the exit hook waits for a thread inside {@link Instance#createFile} before removing anyway. */
    static final Duration EXIT_WAIT = Duration.ofMillis(200);

    private final Path base;

    private ShmFiles(Path base) {
        this.base = base;
    }

    /**
     * The base directory used by {@link #open()}: the system property {@value #BASE_DIRECTORY_PROPERTY} if
     * set, else {@code /dev/shm/jdat-shm-<uid>} where {@code /dev/shm} is a writable directory (a tmpfs on
     * Linux: the rings and shared memory then live in memory only, as Aeron's do, instead of dirtying pages of a
     * disk-backed {@code /tmp} that the kernel writes back), else {@code <java.io.tmpdir>/jdat-shm-<uid>} (the uid
     * of this process, or the user name where the uid cannot be read).
     */
    public static Path defaultBaseDirectory() {
        String configured = System.getProperty(BASE_DIRECTORY_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        long uid = currentUid();
        String who = uid >= 0 ? Long.toString(uid) : System.getProperty("user.name", "unknown");
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return parent.resolve("jdat-shm-" + who).toAbsolutePath();
    }

    /** {@link #open(Path)} of {@link #defaultBaseDirectory()}. */
    public static ShmFiles open() {
        return open(defaultBaseDirectory());
    }

    /**
     * Creates (mode {@code 0700}) or checks the base directory {@code base}, then runs {@link #cleanStale()}.
     * The parent of {@code base} must exist.
     *
     * @throws DatException {@link DatReturnType#INVALID_PARAMETER} ({@link DatReturnSubtype#INVALID_ARG1}: the
     *                      IA name of {@code dat_ia_open} resolves to it) if {@code base} exists and is not a
     *                      directory, is a symbolic link, has another owner or any group/other permission;
     *                      {@link DatReturnType#INSUFFICIENT_RESOURCES} if it cannot be created or read
     */
    public static ShmFiles open(Path base) {
        Path dir = Objects.requireNonNull(base, "base").toAbsolutePath().normalize();
        try {
            Files.createDirectory(dir, DIR_ATTR);
            Files.setPosixFilePermissions(dir, DIR_MODE);   // undo a umask that removed owner bits
        } catch (FileAlreadyExistsException exists) {
            // checked below
        } catch (UnsupportedOperationException e) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "shm needs a POSIX file system for " + dir);
        } catch (IOException e) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "cannot create the shm directory " + dir + ": " + e);
        }
        checkPrivate(dir);
        ShmFiles files = new ShmFiles(dir);
        files.cleanStale();
        return files;
    }

    /** The base directory (absolute, normalized). */
    public Path baseDirectory() {
        return base;
    }

    /**
     * Creates a new IA instance directory with its liveness lock held. The caller owns the instance and must
     * {@link Instance#close() close} it when the IA closes; if the process dies first, the next
     * {@link #cleanStale()} on the host removes its files.
     *
     * @throws DatException {@link DatReturnType#INSUFFICIENT_RESOURCES} if the files cannot be created
     */
    public Instance createInstance() {
        return createInstance(null);
    }

    /**
     * Whether {@code name} may name an instance ({@link #createInstance(String)}): 1 to 64 letters, digits,
     * {@code .}, {@code _} or {@code -}, not starting with {@code .}.
     */
    public static boolean isValidName(String name) {
        return name != null && name.matches("[A-Za-z0-9_\\-][A-Za-z0-9._\\-]{0,63}");
    }

    /**
     * Creates the IA instance directory {@code ia-<name>}, a well-known address on the host, with its liveness
     * lock held; a directory of that name that a dead process left is removed first. With a null name, like
     * {@link #createInstance()}.
     *
     * @throws DatException {@link DatReturnType#INVALID_PARAMETER} if the name is not valid;
     *                      {@link DatReturnType#INSUFFICIENT_RESOURCES} if a live instance has the name or the
     *                      files cannot be created
     */
    public Instance createInstance(String name) {
        if (name != null && !isValidName(name)) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "not a valid shm instance name: " + name);
        }
        byte[] r = new byte[8];
        RANDOM.nextBytes(r);
        String tmpId = ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(r);
        String id = name != null ? name : tmpId;
        Path tmp = base.resolve(NEW_PREFIX + tmpId);
        Path dir = base.resolve(INSTANCE_PREFIX + id);
        if (name != null) {
            if (LIVE_HERE.contains(dir) || (Files.exists(dir, LinkOption.NOFOLLOW_LINKS) && !removeIfStale(dir))) {
                throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                        "an shm IA named " + name + " is open on this host (" + dir + ")");
            }
        }
        LIVE_HERE.add(tmp);
        LIVE_HERE.add(dir);
        FileChannel lockChannel = null;
        try {
            Files.createDirectory(tmp, DIR_ATTR);
            lockChannel = FileChannel.open(tmp.resolve(LOCK_FILE),
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    FILE_ATTR);
            FileLock lock = lockChannel.tryLock();
            if (lock == null) {
                throw new IOException("lock of a new file held by another process");
            }
            if (name != null && Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException("an instance named " + name + " appeared meanwhile");
            }
            Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            LIVE_HERE.remove(tmp);
            Instance created = new Instance(id, dir, lockChannel);
            ExitCleanup.arm();
            OPEN.add(created);
            return created;
        } catch (IOException | RuntimeException e) {
            if (lockChannel != null) {
                try {
                    lockChannel.close();
                } catch (IOException ignored) {
                    // best effort
                }
            }
            deleteTree(Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) ? dir : tmp);
            LIVE_HERE.remove(tmp);
            LIVE_HERE.remove(dir);
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "cannot create an shm IA instance in " + base + ": " + e);
        }
    }

    /**
     * Removes the directories of instances whose owner is dead: an {@code ia-} directory whose lock file can be
     * locked (or has none), and a {@code .new-} directory in that state and older than
     * {@link #CREATION_GRACE}. Never touches an instance of this JVM or one whose lock another live process
     * holds. Safe to run concurrently from several processes (the lock decides who deletes). Errors on single
     * entries are ignored (the entry is left for a later run).
     *
     * @return how many instance directories were removed
     */
    public int cleanStale() {
        int removed = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(base)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                boolean creating = name.startsWith(NEW_PREFIX);
                if (!(creating || name.startsWith(INSTANCE_PREFIX)) || LIVE_HERE.contains(entry)
                        || !Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                if (creating && !olderThan(entry, CREATION_GRACE)) {
                    continue;
                }
                if (removeIfStale(entry)) {
                    removed++;
                }
            }
        } catch (IOException e) {
            // the base vanished or is unreadable: nothing to clean
        }
        return removed;
    }

    /**
     * Whether the instance directory {@code dir} belongs to a live IA: one of this JVM, or one whose lock another
     * process holds. False for a directory that does not exist or whose owner is dead.
     */
    public static boolean isLive(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        if (LIVE_HERE.contains(d)) {
            return true;
        }
        try (FileChannel ch = FileChannel.open(d.resolve(LOCK_FILE), StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                return true;
            }
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean removeIfStale(Path dir) {
        Path lockFile = dir.resolve(LOCK_FILE);
        FileChannel ch;
        try {
            ch = FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            // no lock file: abandoned mid-creation or mid-cleanup
            return deleteTree(dir);
        } catch (IOException e) {
            return false;
        }
        try (ch) {
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                return false;   // held in this JVM
            }
            if (lock == null) {
                return false;   // held by a live process
            }
            // We hold the lock: the owner is dead. Delete everything, the lock file last (while still held, so
            // a concurrent cleaner cannot take it in between), then the directory.
            return deleteTree(dir);
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean olderThan(Path p, Duration age) {
        try {
            FileTime t = Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
            return System.currentTimeMillis() - t.toMillis() > age.toMillis();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Deletes the files of {@code dir} ({@link #LOCK_FILE} last), then {@code dir}; true if it is gone. Where
     * {@code dir} cannot be listed (no descriptor left, under a low {@code ulimit -n}), still deletes the lock
     * file and the directory, which succeeds if nothing else is in it (as for an instance whose creation
     * failed).
     */
    static boolean deleteTree(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                if (!f.getFileName().toString().equals(LOCK_FILE)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            // cannot list or delete an entry: try the lock file and the directory below
        }
        try {
            Files.deleteIfExists(dir.resolve(LOCK_FILE));
            Files.deleteIfExists(dir);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void checkPrivate(Path dir) {
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "cannot read the attributes of the shm directory " + dir + ": " + e);
        }
        String problem = null;
        long uid = currentUid();
        long owner = uidOf(dir);
        boolean foreign = uid >= 0 && owner >= 0 ? uid != owner
                : !a.owner().getName().equals(System.getProperty("user.name"));
        if (a.isSymbolicLink()) {
            problem = "is a symbolic link";
        } else if (!a.isDirectory()) {
            problem = "is not a directory";
        } else if (foreign) {
            problem = "is owned by " + a.owner().getName() + (owner >= 0 ? " (uid " + owner + ")" : "")
                    + ", not by this process's user" + (uid >= 0 ? " (uid " + uid + ")" : "");
        } else if (!a.permissions().equals(DIR_MODE)) {
            problem = "has permissions " + PosixFilePermissions.toString(a.permissions()) + ", not rwx------";
        }
        if (problem != null) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "the shm directory " + dir + " " + problem
                            + "; refusing it (another user could read or replace the provider's files). To fix: "
                            + (foreign ? "have its owner or root remove it" : "remove it")
                            + " (jdat recreates it with mode 0700), or give the IA another base directory of"
                            + " its own with the IA parameter dir=PATH or the system property "
                            + BASE_DIRECTORY_PROPERTY + "=PATH");
        }
    }

    /**
     * The file-system uid of this process: the uid that owns the files it creates and that the kernel checks
     * their permissions against (equal to the effective uid unless the process called {@code setfsuid}). Read
     * once from the {@code Uid:} line of {@code /proc/self/status}; where that cannot be read, the owner of the
     * process directory {@code /proc/self} points to (the link itself belongs to root, whoever runs); -1 if
     * neither can be read.
     */
    static long currentUid() {
        return Uid.VALUE;
    }

    /** Holds {@link #currentUid()}, read at first use. */
    private static final class Uid {
        static final long VALUE = read();

        private Uid() {
        }

        private static long read() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                    if (line.startsWith("Uid:")) {
                        String[] ids = line.substring(4).strip().split("\\s+");   // real effective saved fs
                        return Long.parseLong(ids[ids.length == 4 ? 3 : 1]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // no procfs: below
            }
            try {
                return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();   // follows
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }
    }

    private static long uidOf(Path p) {
        try {
            return ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return -1;
        }
    }

    /**
     * The JVM shutdown hook that closes every {@link Instance} still open when the JVM exits normally or on
     * SIGINT, SIGTERM or SIGHUP (which run the hooks): their directories and files are removed at once instead of
     * waiting for the next {@link #cleanStale()} on the host. It touches only this JVM's instances, never waits
     * more than {@link #EXIT_WAIT} per instance, and does no I/O but unlinking. SIGKILL and crashes run no hook:
     * their files are left for {@link #cleanStale()}, as before.
     */
    private static final class ExitCleanup {
        static {
            try {
                Runtime.getRuntime().addShutdownHook(
                        Thread.ofPlatform().name("jdat-shm-exit-cleanup").unstarted(ExitCleanup::run));
            } catch (IllegalStateException shuttingDown) {
                // created during shutdown: left for the next cleanStale
            }
        }

        private ExitCleanup() {
        }

        /** Registers the hook (once, by this class's initialization). */
        static void arm() {
            // the static initializer did it
        }

        private static void run() {
            for (Instance i : OPEN) {
                i.closeAtExit();
            }
        }
    }

    /**
     * One IA instance's directory and files, with the liveness lock held from creation to {@link #close()}.
     *
     * <p>Thread-safe: its methods take the instance's lock. Files created through it belong to the IA; the
     * {@link FileChannel}s it returns belong to the caller, who closes them (a mapping made from one stays valid
     * after the channel closes, and after the file is deleted, until its arena closes).
     */
    public static final class Instance implements AutoCloseable {
        private final String id;
        private final Path dir;
        private final FileChannel lockChannel;
        private final ReentrantLock guard = new ReentrantLock();
        /** Written under {@link #guard}; volatile for the exit hook, which may give up waiting for it. */
        private volatile boolean closed;

        private Instance(String id, Path dir, FileChannel lockChannel) {
            this.id = id;
            this.dir = dir;
            this.lockChannel = lockChannel;
        }

        /** The instance id, {@code <pid>-<16 hex digits>}, unique on the host. */
        public String id() {
            return id;
        }

        /** The instance directory. */
        public Path directory() {
            return dir;
        }

        /**
         * Where the file {@code name} of this instance is (whether or not it exists).
         *
         * @throws IllegalArgumentException if {@code name} is not a plain file name, or is {@link #LOCK_FILE}
         */
        public Path path(String name) {
            Path p = dir.resolve(name);
            if (name.isEmpty() || name.equals(LOCK_FILE) || name.startsWith(".") || !p.getParent().equals(dir)
                    || name.contains("/")) {
                throw new IllegalArgumentException("not a plain file name: " + name);
            }
            return p;
        }

        /**
         * Creates the new file {@code name} (mode {@code 0600}, failing if it exists) of {@code size} bytes,
         * zero-filled (sparse), and returns a read-write channel to it, for example to
         * {@link FileChannel#map(FileChannel.MapMode, long, long, java.lang.foreign.Arena) map} it. The caller
         * owns the channel; the file is deleted by {@link #close()}.
         *
         * @throws DatException          {@link DatReturnType#INSUFFICIENT_RESOURCES} if it cannot be created
         * @throws IllegalStateException if the instance is closed
         */
        public FileChannel createFile(String name, long size) {
            guard.lock();
            try {
                return createFileLocked(name, size);
            } finally {
                guard.unlock();
            }
        }

        private FileChannel createFileLocked(String name, long size) {
            if (closed) {
                throw new IllegalStateException("shm instance " + id + " is closed");
            }
            Path p = path(name);
            FileChannel ch = null;
            try {
                ch = FileChannel.open(p, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                        StandardOpenOption.WRITE), FILE_ATTR);
                Files.setPosixFilePermissions(p, FILE_MODE);   // undo a umask that removed owner bits
                if (size > 0) {
                    ch.write(java.nio.ByteBuffer.allocate(1), size - 1);
                }
                return ch;
            } catch (IOException e) {
                if (ch != null) {
                    try {
                        ch.close();
                        Files.deleteIfExists(p);
                    } catch (IOException ignored) {
                        // best effort
                    }
                }
                throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY,
                        "cannot create " + p + " (" + size + " bytes): " + e);
            }
        }

        /** Whether {@link #close()} has run. */
        public boolean isClosed() {
            guard.lock();
            try {
                return closed;
            } finally {
                guard.unlock();
            }
        }

        /**
         * Deletes the instance's files and directory and releases its lock. Idempotent. Mappings of the files
         * stay valid (the kernel keeps the pages until the last mapping goes); a peer can no longer open them.
         */
        @Override
        public void close() {
            guard.lock();
            try {
                closeLocked();
            } finally {
                guard.unlock();
            }
        }

        /**
         * {@link #close()} from the exit hook: waits at most {@link #EXIT_WAIT} for a thread inside
         * {@link #createFile}, then removes the files either way (the liveness lock is held until the process
         * ends, so no cleaner of another process can race the removal).
         */
        void closeAtExit() {
            boolean locked = false;
            try {
                locked = guard.tryLock(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                closeLocked();
            } finally {
                if (locked) {
                    guard.unlock();
                }
            }
        }

        private void closeLocked() {
            if (closed) {
                return;
            }
            closed = true;
            deleteTree(dir);    // the lock is still held: no cleaner can race us
            try {
                lockChannel.close();
            } catch (IOException ignored) {
                // the descriptor is gone either way
            }
            LIVE_HERE.remove(dir);
            OPEN.remove(this);
        }

        @Override
        public String toString() {
            return "shm instance " + id + " at " + dir;
        }
    }
}
