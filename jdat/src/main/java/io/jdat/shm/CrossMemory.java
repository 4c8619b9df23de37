package io.jdat.shm;

import io.jdat.transport.LinuxLibc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Linux cross-memory attach: copies between this process's memory and another process's memory with
 * {@code process_vm_readv(2)} / {@code process_vm_writev(2)}, bound through the FFM {@link Linker} (no JNI).
 *
 * <h2>What it does</h2>
 * The kernel copies the bytes once, straight from the source pages to the destination pages (it pins the
 * remote pages and {@code memcpy}s between the two address spaces): there is no staging buffer, no shared
 * mapping and no cooperation of the peer beyond publishing an address. The peer's memory need not be
 * registered with, mapped by or even known to the kernel as shared: any native memory of the peer works,
 * which is what lets the {@code shm} provider do RDMA on memory it did not allocate.
 *
 * <h2>Who may attach</h2>
 * Each call does the kernel's ptrace access check {@code PTRACE_MODE_ATTACH_REALCREDS} against the target
 * process; it fails with {@code EPERM} ({@link CrossMemoryException.Reason#PERMISSION}) unless:
 * <ul>
 *   <li>the caller has {@code CAP_SYS_PTRACE} in the target's user namespace (root normally has it), or
 *   <li>the caller's real uid and gid equal all the target's uids and gids (so not across users, and not into
 *       a setuid process), the target is dumpable (not after {@code prctl(PR_SET_DUMPABLE, 0)}), <b>and</b>
 *       the Yama LSM allows it. Yama's {@code /proc/sys/kernel/yama/ptrace_scope} ({@link #ptraceScope()}):
 *       <ul>
 *         <li>0 — classic: any process of the same user;
 *         <li>1 — restricted (the default of Debian and Ubuntu): only a descendant of the caller (a child
 *             the caller started, a grandchild…), or a process that named the caller (or any process) with
 *             {@code prctl(PR_SET_PTRACER, …)} — which a JVM cannot do without a native call. Two unrelated
 *             JVMs of one user (two services started by a shell or systemd) are therefore refused; a JVM
 *             that started the other (for example with {@code ProcessBuilder}) may attach to it, not the
 *             reverse;
 *         <li>2 — admin only: {@code CAP_SYS_PTRACE} needed;
 *         <li>3 — no attach at all, not even by root.
 *       </ul>
 *       When the file is absent, Yama is not in the kernel and the classic rule (0) applies.
 * </ul>
 * Containers may add a seccomp filter that refuses the calls ({@code ENOSYS} or {@code EPERM}); Docker's
 * default profile allows them. A transport should therefore ask {@link #access(long, long)} once per peer (a
 * one-byte read of an address the peer published) and fall back to a bounce buffer when it is not
 * {@link Access#ALLOWED}.
 *
 * <p>The JVM too must let jdat make the calls: binding them is a restricted operation of the FFM API. Without
 * {@code --enable-native-access=ALL-UNNAMED} (or {@code =io.jdat} on the module path) the JDK warns once; under
 * {@code --illegal-native-access=deny} it refuses, and then this class reports itself unsupported
 * ({@link #isSupported()} false, {@link #nativeAccessRefused()} true) instead of failing to initialize, so the
 * transport falls back exactly as for a kernel refusal.
 *
 * <h2>Ownership, lifetime, threads</h2>
 * An instance owns a 32-byte scratch area (the two {@code struct iovec}s) and the {@code errno} capture
 * buffer, allocated in a shared {@link Arena} at creation and freed by {@link #close()}; its transfers allocate
 * nothing on the Java heap or natively. An instance is <b>not thread-safe</b>: it must be used by one thread
 * at a time (it may be handed from thread to thread with a happens-before edge); give each thread that moves
 * data its own instance. The method handles behind it are shared by all instances.
 *
 * <p>The local segment passed to {@link #read} / {@link #write} must be native and must stay alive for the
 * whole call: the kernel receives its raw address, so the call cannot keep a shared arena from being closed by
 * another thread meanwhile (a confined or automatic arena is safe by construction). The remote range is not
 * checked in any way by this class: the kernel reports an unmapped or wrongly protected remote page as
 * {@code EFAULT}, but a mapped page of the peer is written even if the peer did not mean it — the caller's
 * protocol must check remote bounds and rights before calling.
 */
public final class CrossMemory implements AutoCloseable {
    /** Linux {@code EPERM}. */
    static final int EPERM = 1;
    /** Linux {@code ESRCH}. */
    static final int ESRCH = 3;
    /** Linux {@code EINTR}. */
    static final int EINTR = 4;
    /** Linux {@code ENOMEM}. */
    static final int ENOMEM = 12;
    /** Linux {@code EFAULT}. */
    static final int EFAULT = 14;
    /** Linux {@code EINVAL}. */
    static final int EINVAL = 22;
    /** Linux {@code ENOSYS}. */
    static final int ENOSYS = 38;

    /** Where Yama publishes its ptrace scope. */
    static final Path YAMA_PTRACE_SCOPE = Path.of("/proc/sys/kernel/yama/ptrace_scope");

    /** The outcome of an {@link #access(long, long)} check. */
    public enum Access {
        /** A one-byte read succeeded: reads and writes of this peer's published memory are permitted. */
        ALLOWED,
        /** {@code EPERM}: the ptrace access check refuses this peer (see the class comment). */
        DENIED,
        /** {@code ESRCH}: the peer process does not exist. */
        NO_PROCESS,
        /** {@code EFAULT}: attach is permitted but the probed address is not readable in the peer. */
        BAD_ADDRESS,
        /** {@code ENOSYS} or another error: the calls cannot be used (seccomp, old kernel). */
        UNSUPPORTED
    }

    private static final long IOVEC_SIZE = 16;   // struct iovec { void *iov_base; size_t iov_len; } on LP64
    private static final VarHandle ERRNO = Linker.Option.captureStateLayout()
            .varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final Arena arena;
    private final MemorySegment localIov;
    private final MemorySegment remoteIov;
    private final MemorySegment callState;
    private final MemorySegment probeByte;

    private CrossMemory() {
        arena = Arena.ofShared();
        MemorySegment iovs = arena.allocate(2 * IOVEC_SIZE, 16);
        localIov = iovs.asSlice(0, IOVEC_SIZE);
        remoteIov = iovs.asSlice(IOVEC_SIZE, IOVEC_SIZE);
        callState = arena.allocate(Linker.Option.captureStateLayout());
        probeByte = arena.allocate(1);
    }

    /**
     * Whether this platform has cross-memory attach bound: Linux on x86_64 or aarch64, a 64-bit JVM, both
     * symbols found in the C library, and native access permitted ({@link #nativeAccessRefused()}). Does not
     * tell whether the kernel or a seccomp filter lets the calls through: {@link #available()} checks that too.
     * Cached; cheap.
     */
    public static boolean isSupported() {
        return Handles.READV != null;
    }

    /**
     * Whether the JVM refused to bind the calls because native access is not enabled for jdat and illegal
     * native access is denied ({@code --illegal-native-access=deny}, the JDK's announced future default,
     * without {@code --enable-native-access=ALL-UNNAMED}, or {@code =io.jdat} on the module path). Then
     * {@link #isSupported()} is false and the {@code shm} provider copies through shared memory, as where the
     * kernel refuses cross-memory attach; adding the flag restores the single-copy path.
     */
    public static boolean nativeAccessRefused() {
        return Handles.NATIVE_ACCESS_REFUSED != null;
    }

    /**
     * A new instance if cross-memory attach works here: {@link #isSupported()} and a one-byte read of this
     * process's own memory through its own pid succeeds (which fails under a seccomp filter that forbids the
     * calls). The caller owns the instance and must {@link #close()} it.
     *
     * @return the instance, or empty if the calls are missing or refused even on self
     */
    public static Optional<CrossMemory> available() {
        if (!isSupported()) {
            return Optional.empty();
        }
        CrossMemory cm = new CrossMemory();
        boolean ok;
        try {
            cm.probeByte.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x5a);
            ok = cm.access(ProcessHandle.current().pid(), cm.probeByte.address()) == Access.ALLOWED;
        } catch (RuntimeException | Error e) {
            cm.close();
            throw e;
        }
        if (!ok) {
            cm.close();
            return Optional.empty();
        }
        return Optional.of(cm);
    }

    /**
     * Like {@link #available()}, but fails instead of returning empty.
     *
     * @throws CrossMemoryException with {@link CrossMemoryException.Reason#NOT_SUPPORTED} if cross-memory attach
     *                              cannot be used on this host; the message says why (symbols missing, native
     *                              access denied, or the calls refused on self)
     */
    public static CrossMemory probe() {
        return available().orElseThrow(() -> new CrossMemoryException(CrossMemoryException.Reason.NOT_SUPPORTED,
                "process_vm_readv/process_vm_writev unavailable (os.name=" + System.getProperty("os.name")
                        + ", os.arch=" + System.getProperty("os.arch") + ", symbols "
                        + (isSupported() ? "found, but refused on self (seccomp?)"
                                : nativeAccessRefused() ? "not bound: native access is denied to jdat; run java with"
                                        + " --enable-native-access=ALL-UNNAMED (or =io.jdat on the module path)"
                                : "not found") + ")"));
    }

    /**
     * The Yama ptrace scope of this host (0 classic, 1 restricted to descendants, 2 admin only, 3 none), read
     * from {@code /proc/sys/kernel/yama/ptrace_scope} at each call; empty if Yama is absent (the classic rule
     * applies) or the file cannot be read.
     */
    public static OptionalInt ptraceScope() {
        try {
            String s = Files.readString(YAMA_PTRACE_SCOPE, StandardCharsets.US_ASCII).strip();
            return OptionalInt.of(Integer.parseInt(s));
        } catch (IOException | NumberFormatException | SecurityException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Copies {@code length} bytes from {@code remoteAddress} in process {@code pid} into {@code local} at
     * {@code localOffset}, looping over partial transfers until all are copied. Allocates nothing. The kernel
     * copies once, remote pages to local pages.
     *
     * @param pid           the target process (may be this process's own pid)
     * @param remoteAddress the virtual address in the target where the bytes start
     * @param local         a native, writable segment, alive for the whole call
     * @param localOffset   where in {@code local} the bytes go
     * @param length        how many bytes; 0 is a no-op
     * @return {@code length}
     * @throws CrossMemoryException     on a kernel error; {@link CrossMemoryException#transferred()} tells how
     *                                  many bytes had arrived
     * @throws IllegalArgumentException if {@code local} is a heap or read-only segment, or {@code pid} is not
     *                                  a valid pid
     * @throws IndexOutOfBoundsException if the local range is outside {@code local}
     * @throws IllegalStateException    if this instance or {@code local}'s scope is closed
     */
    public long read(long pid, long remoteAddress, MemorySegment local, long localOffset, long length) {
        checkLocal(local, localOffset, length, true);
        return transfer(true, checkPid(pid), remoteAddress, local.address() + localOffset, length);
    }

    /**
     * Copies {@code length} bytes of {@code local} from {@code localOffset} to {@code remoteAddress} in process
     * {@code pid}, looping over partial transfers until all are copied. Allocates nothing. The kernel copies
     * once, local pages to remote pages; the target is not told (publish completion through another channel,
     * after this method returns).
     *
     * @param pid           the target process (may be this process's own pid)
     * @param remoteAddress the virtual address in the target where the bytes go
     * @param local         a native segment, alive for the whole call
     * @param localOffset   where in {@code local} the bytes start
     * @param length        how many bytes; 0 is a no-op
     * @return {@code length}
     * @throws CrossMemoryException     on a kernel error; {@link CrossMemoryException#transferred()} tells how
     *                                  many bytes had been written
     * @throws IllegalArgumentException if {@code local} is a heap segment or {@code pid} is not a valid pid
     * @throws IndexOutOfBoundsException if the local range is outside {@code local}
     * @throws IllegalStateException    if this instance or {@code local}'s scope is closed
     */
    public long write(long pid, long remoteAddress, MemorySegment local, long localOffset, long length) {
        checkLocal(local, localOffset, length, false);
        return transfer(false, checkPid(pid), remoteAddress, local.address() + localOffset, length);
    }

    /**
     * Checks cheaply whether this process may read (and so write) the memory of {@code pid}: one one-byte
     * {@code process_vm_readv} of {@code remoteAddress}, an address the peer published and keeps readable (for
     * example the base of a buffer it registered). Costs one system call and the kernel's ptrace check;
     * allocates nothing. The answer can change (the peer exits, an administrator changes the Yama scope), so a
     * transport still handles {@link CrossMemoryException} on every transfer.
     *
     * @param pid           the peer process
     * @param remoteAddress a readable address in the peer
     * @return the outcome, never null
     * @throws IllegalStateException if this instance is closed
     */
    public Access access(long pid, long remoteAddress) {
        int p = checkPid(pid);
        long n = call(true, p, probeByte.address(), remoteAddress, 1);
        if (n == 1) {
            return Access.ALLOWED;
        }
        int errno = (int) ERRNO.get(callState, 0L);
        return switch (errno) {
            case EPERM -> Access.DENIED;
            case ESRCH -> Access.NO_PROCESS;
            case EFAULT -> Access.BAD_ADDRESS;
            default -> Access.UNSUPPORTED;
        };
    }

    /**
     * Frees the scratch memory. Idempotent. Must not run while another thread is inside a transfer of this
     * instance (which the one-thread-at-a-time rule already excludes); afterwards every method but this one
     * throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    private long transfer(boolean read, int pid, long remoteAddress, long localAddress, long length) {
        long done = 0;
        while (done < length) {
            long n = call(read, pid, localAddress + done, remoteAddress + done, length - done);
            if (n > 0) {
                done += n;
                continue;
            }
            int errno = n < 0 ? (int) ERRNO.get(callState, 0L) : EFAULT;   // no progress without an error: a hole
            if (errno == EINTR) {
                continue;
            }
            throw new CrossMemoryException(errno, done, (read ? "process_vm_readv" : "process_vm_writev")
                    + " pid " + pid + " remote 0x" + Long.toHexString(remoteAddress + done) + " length "
                    + (length - done));
        }
        return length;
    }

    /** One system call over one local and one remote iovec; returns its result (errno in {@link #callState}). */
    private long call(boolean read, int pid, long localAddress, long remoteAddress, long length) {
        localIov.set(ValueLayout.JAVA_LONG, 0, localAddress);
        localIov.set(ValueLayout.JAVA_LONG, 8, length);
        remoteIov.set(ValueLayout.JAVA_LONG, 0, remoteAddress);
        remoteIov.set(ValueLayout.JAVA_LONG, 8, length);
        try {
            return read
                    ? (long) Handles.READV.invokeExact(callState, pid, localIov, 1L, remoteIov, 1L, 0L)
                    : (long) Handles.WRITEV.invokeExact(callState, pid, localIov, 1L, remoteIov, 1L, 0L);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void checkLocal(MemorySegment local, long offset, long length, boolean destination) {
        Objects.requireNonNull(local, "local");
        if (!local.isNative()) {
            throw new IllegalArgumentException("local segment must be native: " + local);
        }
        if (destination && local.isReadOnly()) {
            throw new IllegalArgumentException("local segment is read-only: " + local);
        }
        Objects.checkFromIndexSize(offset, length, local.byteSize());
        if (!local.scope().isAlive()) {
            throw new IllegalStateException("local segment's scope is closed");
        }
    }

    private static int checkPid(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("not a pid: " + pid);
        }
        return (int) pid;
    }

    /** The downcall handles, or null where the platform lacks them. */
    private static final class Handles {
        static final MethodHandle READV;
        static final MethodHandle WRITEV;
        /** Why the JVM refused to bind the calls ({@link IllegalCallerException}'s message), or null. */
        static final String NATIVE_ACCESS_REFUSED;

        static {
            MethodHandle[] h = null;
            String refused = null;
            String arch = System.getProperty("os.arch", "");
            if ((arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                    && ValueLayout.ADDRESS.byteSize() == 8) {
                // ssize_t f(pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long,
                //           unsigned long)
                FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG);
                try {
                    h = LinuxLibc.bind(new String[] {"process_vm_readv", "process_vm_writev"},
                            new FunctionDescriptor[] {fd, fd}, Linker.Option.captureCallState("errno"));
                } catch (IllegalCallerException e) {
                    // --illegal-native-access=deny without --enable-native-access for jdat: as a kernel
                    // refusal, the transport copies through shared memory instead
                    refused = e.getMessage();
                }
            }
            READV = h == null ? null : h[0];
            WRITEV = h == null ? null : h[1];
            NATIVE_ACCESS_REFUSED = refused;
        }

        private Handles() {
        }
    }
}
