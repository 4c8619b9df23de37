package io.jdat.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;

/**
 * The CPU time this process has used, all threads (the DAT library's progress threads too): {@code clock_gettime(
 * CLOCK_PROCESS_CPUTIME_ID)} through FFM, in nanoseconds; where that is not available, {@link ProcessHandle}'s
 * total CPU duration (the kernel's clock ticks, 10 ms). Read at round boundaries only (it allocates).
 */
final class ProcessCpu {
    /** Linux's {@code CLOCK_PROCESS_CPUTIME_ID}. */
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2;
    private static final MethodHandle CLOCK_GETTIME = clockGettime();

    private ProcessCpu() {
    }

    /**
     * The CPU time used by this process so far.
     *
     * @return nanoseconds, or -1 when unknown
     */
    static long nanos() {
        if (CLOCK_GETTIME != null) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ts = a.allocate(16, 8);
                if ((int) CLOCK_GETTIME.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts) == 0) {
                    return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
                }
            } catch (Throwable e) {
                // fall back below
            }
        }
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    private static MethodHandle clockGettime() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("clock_gettime")
                    .map(f -> linker.downcallHandle(f, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException | Error e) {
            return null; // no native access: the fallback
        }
    }
}
