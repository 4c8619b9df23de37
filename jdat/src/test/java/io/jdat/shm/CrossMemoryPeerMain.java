package io.jdat.shm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The peer of {@link CrossMemoryTest}, run in a child JVM ({@link io.jdat.testing.net.ChildJvm}).
 *
 * <p>Allocates a native segment of {@code args[0]} bytes, fills it with {@link #pattern} of seed 1 and prints
 * {@code READY pid=<pid> addr=<address> size=<bytes>}. Then reads commands from stdin, one a line:
 * {@code verify <seed>} prints {@code VERIFY ok} or {@code VERIFY bad <index>}; {@code exit} (or end of
 * input) exits. The segment lives until the process ends.
 */
public final class CrossMemoryPeerMain {
    private CrossMemoryPeerMain() {
    }

    /** The byte at {@code index} of the test pattern of {@code seed}. */
    static byte pattern(long index, int seed) {
        return (byte) (index * 131 + seed * 17 + (index >>> 9));
    }

    /** Runs the peer; see the class comment. */
    public static void main(String[] args) throws Exception {
        long size = Long.parseLong(args[0]);
        MemorySegment seg = Arena.global().allocate(size, 4096);
        for (long i = 0; i < size; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, pattern(i, 1));
        }
        System.out.println("READY pid=" + ProcessHandle.current().pid() + " addr=" + seg.address() + " size=" + size);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("verify ")) {
                int seed = Integer.parseInt(line.substring(7).strip());
                long bad = -1;
                for (long i = 0; i < size; i++) {
                    if (seg.get(ValueLayout.JAVA_BYTE, i) != pattern(i, seed)) {
                        bad = i;
                        break;
                    }
                }
                System.out.println(bad < 0 ? "VERIFY ok" : "VERIFY bad " + bad);
                System.out.flush();
            } else if (line.equals("exit")) {
                break;
            }
        }
    }
}
