package io.jdat.tools.perf;

import io.jdat.tools.cli.ToolFailure;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code jdat perf --cpu}: pins the calling thread to one CPU with Linux's {@code sched_setaffinity(0, ...)}
 * through FFM (pid 0 is the calling thread), as {@code ucx_perftest -c} and {@code taskset} do for a whole
 * process. Only the measuring thread is pinned: the JIT compiler, the garbage collector and the DAT library's own
 * threads (started before the pin) keep the process's CPUs. A thread that the pinned thread starts later inherits
 * its CPU (the kernel copies the mask), so {@code jdat perf} pins only once its side is connected.
 *
 * <p>The mask is a {@code cpu_set_t} of {@value #MASK_BYTES} bytes (glibc's {@code CPU_SETSIZE}, 1,024 CPUs), a
 * bit per CPU in 64-bit words, lowest CPU in the lowest bit of the first word.
 */
final class CpuAffinity {
    /** glibc's {@code sizeof(cpu_set_t)}: 1,024 CPUs. */
    static final int MASK_BYTES = 128;
    /** The highest CPU number the mask holds. */
    static final int MAX_CPU = MASK_BYTES * 8 - 1;

    /** Whether this is Linux, whose C library has the two calls. */
    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
            .startsWith("linux");
    private static final VarHandle ERRNO = Linker.Option.captureStateLayout()
            .varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** {@code sched_getaffinity} then {@code sched_setaffinity}, both {@code int (pid_t, size_t, cpu_set_t *)}; null
     * where they cannot be bound (not Linux, or no native access). */
    private static final MethodHandle[] CALLS = bind();

    private CpuAffinity() {
    }

    /** {@return whether this JVM can pin a thread (Linux, with native access)} */
    static boolean available() {
        return CALLS != null;
    }

    /**
     * The CPUs the calling thread may run on now (its affinity mask, which a thread inherits from the one that
     * started it: for {@code main}, the process's, e.g. as {@code taskset} set it).
     *
     * @return the CPU numbers, ascending; empty when {@link #available()} is false
     */
    static List<Integer> allowed() {
        List<Integer> cpus = new ArrayList<>();
        if (CALLS == null) {
            return cpus;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mask = a.allocate(MASK_BYTES, 8);
            MemorySegment state = a.allocate(Linker.Option.captureStateLayout());
            int rc = (int) CALLS[0].invokeExact(state, 0, (long) MASK_BYTES, mask);
            if (rc != 0) {
                throw new ToolFailure("sched_getaffinity failed: errno " + (int) ERRNO.get(state, 0L));
            }
            for (int cpu = 0; cpu <= MAX_CPU; cpu++) {
                if ((mask.get(ValueLayout.JAVA_LONG, (cpu >>> 6) * 8L) & (1L << (cpu & 63))) != 0) {
                    cpus.add(cpu);
                }
            }
        } catch (ToolFailure f) {
            throw f;
        } catch (Throwable e) {
            throw new ToolFailure("sched_getaffinity failed: " + e);
        }
        return cpus;
    }

    /**
     * Pins the calling thread to {@code cpu}.
     *
     * @param cpu a CPU of {@link #allowed()}
     * @throws ToolFailure when the kernel refuses (e.g. {@code EINVAL}: the CPU is offline or outside the cgroup's
     *                     set), or when this JVM cannot pin threads
     */
    static void pin(int cpu) {
        if (CALLS == null) {
            throw new ToolFailure("cannot pin a thread here: " + unavailableReason());
        }
        if (cpu < 0 || cpu > MAX_CPU) {
            throw new ToolFailure("CPU " + cpu + " is outside 0.." + MAX_CPU);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mask = a.allocate(MASK_BYTES, 8); // zeroed
            mask.set(ValueLayout.JAVA_LONG, (cpu >>> 6) * 8L, 1L << (cpu & 63));
            MemorySegment state = a.allocate(Linker.Option.captureStateLayout());
            int rc = (int) CALLS[1].invokeExact(state, 0, (long) MASK_BYTES, mask);
            if (rc != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new ToolFailure("cannot pin the measuring thread to CPU " + cpu + ": sched_setaffinity failed, "
                        + "errno " + errno + (errno == 22 ? " (EINVAL: the CPU is offline or not in this process's "
                        + "set)" : ""));
            }
        } catch (ToolFailure f) {
            throw f;
        } catch (Throwable e) {
            throw new ToolFailure("cannot pin the measuring thread to CPU " + cpu + ": " + e);
        }
    }

    /** {@return why {@link #available()} is false, for a usage error} */
    static String unavailableReason() {
        return LINUX
                ? "sched_setaffinity is not reachable (run with --enable-native-access=ALL-UNNAMED)"
                : "--cpu needs Linux's sched_setaffinity";
    }

    /** Binds {@code sched_getaffinity} and {@code sched_setaffinity}, both or neither. */
    private static MethodHandle[] bind() {
        if (!LINUX) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
            Linker.Option errno = Linker.Option.captureCallState("errno");
            MemorySegment get = libc.find("sched_getaffinity").orElse(null);
            MemorySegment set = libc.find("sched_setaffinity").orElse(null);
            if (get == null || set == null) {
                return null;
            }
            return new MethodHandle[] {linker.downcallHandle(get, fd, errno), linker.downcallHandle(set, fd, errno)};
        } catch (RuntimeException | Error e) {
            return null; // no native access
        }
    }
}
