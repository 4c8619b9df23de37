package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.net.ChildJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes through one ring in an owner-only file: this JVM and a child running {@link ShmRingPeerMain},
 * each way round; 500,000 records of random sizes, every byte checked on the consuming side, order kept.
 */
class ShmRingCrossProcessTest {
    private static final int CAPACITY = 64 * 1024;
    private static final long RECORDS = 500_000;
    private static final Duration START = Duration.ofSeconds(30);
    private static final Duration RUN = Duration.ofSeconds(100);
    private static final Pattern DONE = Pattern.compile("^(DONE records=(\\d+) bytes=(\\d+)|FAIL .*)$");

    private static Path formattedFile(Path dir, Arena arena) throws Exception {
        Path f = dir.resolve("ring");
        MemorySegment m = RingFile.create(f, RingDescriptor.totalLength(CAPACITY), arena);
        ShmRing.format(m, CAPACITY);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        return f;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void childProducesParentConsumes(@TempDir Path dir) throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Path f = formattedFile(dir, arena);
            ShmRing.Consumer c = ShmRing.consumer(RingFile.open(f, arena), RecordStream.MAX_TYPE);
            RecordStream stream = new RecordStream(11, c.maxPayload(), arena);
            RecordStream.Checker ch = stream.new Checker(11);
            try (ChildJvm child = ChildJvm.start("producer", ShmRingPeerMain.class, "produce", f.toString(),
                    Long.toString(RECORDS), "11")) {
                child.awaitLine("READY"::equals, START);
                long deadline = System.nanoTime() + RUN.toNanos();
                for (int idle = 0; ch.seq < RECORDS; ) {
                    if (c.read(ch, 64) == 0) {
                        RecordStream.idle(idle++);
                        assertTrue(System.nanoTime() < deadline, "stuck at record " + ch.seq);
                        assertTrue(child.isAlive() || c.available() > 0 || idle < 100_000,
                                "child gone at record " + ch.seq);
                    } else {
                        idle = 0;
                    }
                }
                Matcher done = child.awaitLine(DONE, RUN);
                assertEquals(Long.toString(RECORDS), done.group(2), done.group());
                assertEquals(Long.parseLong(done.group(3)), c.position());
                assertEquals(0, c.read(ch, 64));
                assertEquals(0, child.waitFor(START));
            }
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void parentProducesChildConsumes(@TempDir Path dir) throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Path f = formattedFile(dir, arena);
            ShmRing.Producer p = ShmRing.producer(RingFile.open(f, arena));
            RecordStream stream = new RecordStream(12, p.maxPayload(), arena);
            RecordStream.Writer w = stream.new Writer(12, arena);
            try (ChildJvm child = ChildJvm.start("consumer", ShmRingPeerMain.class, "consume", f.toString(),
                    Long.toString(RECORDS), "12")) {
                child.awaitLine("READY"::equals, START);
                long deadline = System.nanoTime() + RUN.toNanos();
                for (int idle = 0; w.seq < RECORDS; ) {
                    if (!w.offer(p)) {
                        RecordStream.idle(idle++);
                        assertTrue(System.nanoTime() < deadline, "stuck at record " + w.seq);
                        assertTrue(child.isAlive(), "child gone at record " + w.seq);
                    } else {
                        idle = 0;
                    }
                }
                Matcher done = child.awaitLine(DONE, RUN);
                assertEquals(Long.toString(RECORDS), done.group(2), done.group());
                assertEquals(p.position(), Long.parseLong(done.group(3)));
                assertEquals(0, child.waitFor(START));
            }
        }
    }
}
