package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The other process of {@link ShmRingCrossProcessTest}: {@code produce|consume <file> <records> <seed>}. Maps
 * the ring file the parent formatted, prints {@code READY}, then produces or consumes (and checks) the
 * {@link RecordStream} of that seed and prints {@code DONE records=<n> bytes=<n>} or {@code FAIL <reason>}.
 */
public final class ShmRingPeerMain {
    private ShmRingPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        Path file = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        long seed = Long.parseLong(args[3]);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment m = RingFile.open(file, arena);
            if (role.equals("produce")) {
                ShmRing.Producer p = ShmRing.producer(m);
                RecordStream stream = new RecordStream(seed, p.maxPayload(), arena);
                RecordStream.Writer w = stream.new Writer(seed, arena);
                System.out.println("READY");
                while (w.seq < records) {
                    w.write(p);
                }
                System.out.println("DONE records=" + w.seq + " bytes=" + p.position());
            } else {
                ShmRing.Consumer c = ShmRing.consumer(m, RecordStream.MAX_TYPE);
                RecordStream stream = new RecordStream(seed, c.maxPayload(), arena);
                RecordStream.Checker ch = stream.new Checker(seed);
                System.out.println("READY");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
                for (int idle = 0; ch.seq < records; ) {
                    if (c.read(ch, 64) == 0) {
                        RecordStream.idle(idle++);
                        if (System.nanoTime() > deadline) {
                            System.out.println("FAIL stuck at record " + ch.seq);
                            return;
                        }
                    } else {
                        idle = 0;
                    }
                }
                System.out.println("DONE records=" + ch.seq + " bytes=" + c.position());
            }
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace();
        }
    }
}
