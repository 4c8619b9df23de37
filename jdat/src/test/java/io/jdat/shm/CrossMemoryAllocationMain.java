package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

/**
 * Measures, in a fresh JVM, what {@link CrossMemory#read} and {@link CrossMemory#write} allocate once the JIT
 * has compiled them ({@link CrossMemoryTest#hotPathAllocatesNothing} runs it when the test JVM's own measurement
 * allocates: whether C2 inlines enough of the path to remove the allocations depends on everything that JVM
 * compiled before). Prints {@code ZERO}, {@code UNSUPPORTED}, or {@code ALLOCATED <bytes per window...>} after
 * 20 seconds of windows that all allocated.
 */
public final class CrossMemoryAllocationMain {
    private CrossMemoryAllocationMain() {
    }

    /** Runs the measurement; see the class comment. */
    public static void main(String[] args) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        CrossMemory cm = CrossMemory.available().orElse(null);
        if (!mx.isThreadAllocatedMemorySupported() || cm == null) {
            System.out.println("UNSUPPORTED");
            return;
        }
        long self = ProcessHandle.current().pid();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(4096);
            MemorySegment dst = arena.allocate(4096);
            for (int i = 0; i < 50_000; i++) {
                cm.read(self, src.address(), dst, 0, 4096);
                cm.write(self, dst.address(), src, 0, 4096);
            }
            long tid = Thread.currentThread().threadId();
            StringBuilder windows = new StringBuilder();
            long deadline = System.nanoTime() + 20_000_000_000L;
            for (int w = 0; w < 5 || System.nanoTime() < deadline; w++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 10_000; i++) {
                    cm.read(self, src.address(), dst, 0, 4096);
                    cm.write(self, dst.address(), src, 0, 4096);
                }
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                if (allocated < 1024) {
                    System.out.println("ZERO");
                    return;
                }
                windows.append(' ').append(allocated);
            }
            System.out.println("ALLOCATED" + windows);
        } finally {
            cm.close();
        }
    }
}
