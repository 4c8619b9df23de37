package io.jdat.shm;

/**
 * A failed {@link CrossMemory} transfer: the {@code errno} of {@code process_vm_readv} or
 * {@code process_vm_writev}, classified by {@link #reason()}, and how many bytes had moved before the
 * failure.
 *
 * <p>Unchecked: a transport maps it to its own outcome (a connection broken by {@link Reason#NO_PROCESS},
 * a protection error for {@link Reason#BAD_ADDRESS}, the bounce-buffer fallback for
 * {@link Reason#PERMISSION}). Instances are immutable and may be shared between threads.
 */
public final class CrossMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What an {@code errno} of the cross-memory calls means to a caller. */
    public enum Reason {
        /**
         * {@code EPERM}: this process may not attach to the target (ptrace access mode check failed: another
         * user, Yama {@code ptrace_scope} too strict, a non-dumpable target). Retrying does not help: use a
         * fallback path.
         */
        PERMISSION,
        /** {@code ESRCH}: no process with this pid (it exited or was killed). */
        NO_PROCESS,
        /**
         * {@code EFAULT}: a remote (or local) range is not mapped, or not readable / writable as the
         * direction needs, in the address space concerned.
         */
        BAD_ADDRESS,
        /** {@code ENOMEM}: the kernel could not allocate for the transfer. */
        NO_MEMORY,
        /**
         * {@code ENOSYS}: the kernel lacks the calls, or a seccomp filter forbids them; also
         * {@link CrossMemory#probe()} when they cannot be used at all.
         */
        NOT_SUPPORTED,
        /** Any other {@code errno} (for example {@code EINVAL}); see {@link #errno()}. */
        OTHER
    }

    private final Reason reason;
    private final int errno;
    private final long transferred;

    /**
     * Creates an exception for {@code errno}.
     *
     * @param errno       the {@code errno} captured right after the failed call
     * @param transferred bytes moved by the same {@code read}/{@code write} before the failure
     * @param detail      the operation, pid and range, for the message
     */
    public CrossMemoryException(int errno, long transferred, String detail) {
        super(detail + ": " + name(errno) + " (errno " + errno + ")"
                + (transferred > 0 ? " after " + transferred + " bytes" : ""));
        this.errno = errno;
        this.transferred = transferred;
        this.reason = classify(errno);
    }

    /**
     * Creates an exception for a failure found before any call was made ({@link CrossMemory#probe()}): no
     * {@code errno}, nothing transferred.
     *
     * @param reason  what it means
     * @param message why, for the message
     */
    CrossMemoryException(Reason reason, String message) {
        super(message);
        this.errno = 0;
        this.transferred = 0;
        this.reason = reason;
    }

    /** What the failure means: see {@link Reason}. */
    public Reason reason() {
        return reason;
    }

    /** The raw Linux {@code errno}; 0 when no call was made ({@link CrossMemory#probe()}). */
    public int errno() {
        return errno;
    }

    /** Bytes moved before the failure by the call that threw (0 if none); they are valid at the destination. */
    public long transferred() {
        return transferred;
    }

    /** Maps a Linux (x86_64 / aarch64 generic) {@code errno} to a {@link Reason}. */
    static Reason classify(int errno) {
        return switch (errno) {
            case CrossMemory.EPERM -> Reason.PERMISSION;
            case CrossMemory.ESRCH -> Reason.NO_PROCESS;
            case CrossMemory.EFAULT -> Reason.BAD_ADDRESS;
            case CrossMemory.ENOMEM -> Reason.NO_MEMORY;
            case CrossMemory.ENOSYS -> Reason.NOT_SUPPORTED;
            default -> Reason.OTHER;
        };
    }

    private static String name(int errno) {
        return switch (errno) {
            case CrossMemory.EPERM -> "EPERM";
            case CrossMemory.ESRCH -> "ESRCH";
            case CrossMemory.EFAULT -> "EFAULT";
            case CrossMemory.ENOMEM -> "ENOMEM";
            case CrossMemory.ENOSYS -> "ENOSYS";
            case CrossMemory.EINVAL -> "EINVAL";
            default -> "errno";
        };
    }
}
