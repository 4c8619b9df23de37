package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Two threads through one ring: order and every byte; the doorbell; no allocation on the hot path. */
class ShmRingConcurrencyTest {
    private static final int CAPACITY = 64 * 1024;

    /** A million records of random sizes (0 .. 8 KiB - 8) from one thread to another, every byte checked. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void millionRecordsTwoThreads() throws Exception {
        long records = 1_000_000;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = arena.allocate(RingDescriptor.totalLength(CAPACITY), 4096);
            ShmRing.format(s, CAPACITY);
            ShmRing.Producer p = ShmRing.producer(s);
            ShmRing.Consumer c = ShmRing.consumer(s, RecordStream.MAX_TYPE);
            RecordStream stream = new RecordStream(7, p.maxPayload(), arena);
            RecordStream.Checker ch = stream.new Checker(7);
            CompletableFuture<Long> producer = CompletableFuture.supplyAsync(() -> {
                RecordStream.Writer w = stream.new Writer(7, arena);
                try {
                    while (w.seq < records) {
                        w.write(p);
                    }
                } catch (RingCorruptException e) {
                    throw new AssertionError(e);
                }
                return w.seq;
            }, r -> Thread.ofPlatform().name("ring-producer").start(r));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
            for (int idle = 0; ch.seq < records; ) {
                if (c.read(ch, 64) == 0) {
                    RecordStream.idle(idle++);
                    assertTrue(System.nanoTime() < deadline, "stuck at record " + ch.seq);
                } else {
                    idle = 0;
                }
            }
            assertEquals(records, producer.get(10, TimeUnit.SECONDS));
            assertEquals(0, c.read(ch, 64));
            assertEquals(p.position(), c.position());
            assertEquals(0, c.available());
        }
    }

    /** The consumer parks after prepareToSleep; the producer unparks it when it sees the flag. Never stuck. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void doorbellNeverLosesAWakeUp() throws Exception {
        int records = 100_000;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = arena.allocate(RingDescriptor.totalLength(4096), 4096);
            ShmRing.format(s, 4096);
            ShmRing.Producer p = ShmRing.producer(s);
            ShmRing.Consumer c = ShmRing.consumer(s, RecordStream.MAX_TYPE);
            RecordStream stream = new RecordStream(3, p.maxPayload(), arena);
            RecordStream.Checker ch = stream.new Checker(3);
            Thread consumer = Thread.currentThread();
            int[] rings = new int[1];
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                RecordStream.Writer w = stream.new Writer(3, arena);
                try {
                    while (w.seq < records) {
                        w.write(p);
                        if (p.consumerSleeping()) {
                            rings[0]++;
                            LockSupport.unpark(consumer);
                        }
                    }
                } catch (RingCorruptException e) {
                    throw new AssertionError(e);
                }
            }, r -> Thread.ofPlatform().name("ring-producer").start(r));
            int sleeps = 0;
            while (ch.seq < records) {
                if (c.read(ch, 16) == 0 && c.prepareToSleep()) {
                    sleeps++;
                    // a lost wake-up would park here for good: bound it, and count it as a failure
                    long t0 = System.nanoTime();
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(5));
                    c.awake();
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(4) || c.available() == 0,
                            "lost wake-up at record " + ch.seq);
                }
            }
            producer.get(10, TimeUnit.SECONDS);
            assertTrue(sleeps > 0 || rings[0] == 0);
        }
    }

    /** Write and read 100k 64-byte records (and 100k of 1 KiB) in one thread after warm-up: zero bytes allocated. */
    @Test
    void hotPathAllocatesNothing() throws Exception {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(RingDescriptor.totalLength(CAPACITY), 4096);
            ShmRing.format(s, CAPACITY);
            ShmRing.Producer p = ShmRing.producer(s);
            ShmRing.Consumer c = ShmRing.consumer(s, 4);
            MemorySegment src = arena.allocate(1024, 8);
            MemorySegment hdr = arena.allocate(16, 8);
            long[] sink = new long[1];
            RecordHandler h = (type, seg, off, len) -> {
                sink[0] += len + type;
                return true;
            };
            for (int round = 0; round < 2; round++) {
                operations(p, c, src, hdr, h, 200_000); // warm-up
                long before = mx.getCurrentThreadAllocatedBytes();
                operations(p, c, src, hdr, h, 100_000);
                long allocated = mx.getCurrentThreadAllocatedBytes() - before;
                if (allocated == 0 || round == 1) {
                    assertEquals(0, allocated, "bytes allocated by 100k write+read pairs");
                    break;
                }
            }
            assertTrue(sink[0] > 0);
        }
    }

    private static void operations(ShmRing.Producer p, ShmRing.Consumer c, MemorySegment src, MemorySegment hdr,
            RecordHandler h, int n) throws RingCorruptException {
        for (int i = 0; i < n; i++) {
            int len = (i & 1) == 0 ? 64 : 1024 - 16;
            boolean ok = (i & 2) == 0 ? p.tryWrite(1 + (i & 3), src, 0, len)
                    : p.tryWrite(1 + (i & 3), hdr, 0, 16, src, 0, len);
            if (!ok || c.read(h, 1) != 1) {
                throw new AssertionError("operation " + i);
            }
            long at = p.tryClaim(2, 64);
            p.commit(at);
            if (c.read(h, 4) != 1) {
                throw new AssertionError("claim " + i);
            }
        }
    }
}
