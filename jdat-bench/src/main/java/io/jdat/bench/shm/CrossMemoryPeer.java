package io.jdat.bench.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The second process of {@link CrossMemoryReadBench}: allocates a 64-byte-aligned native segment of
 * {@code args[0]} bytes, touches it, prints {@code READY <pid> <address>} and blocks until its stdin ends (the
 * benchmark closes it, or dies).
 */
public final class CrossMemoryPeer {
    private CrossMemoryPeer() {
    }

    /** Runs the peer; see the class comment. */
    public static void main(String[] args) throws Exception {
        long size = Long.parseLong(args[0]);
        MemorySegment seg = Arena.global().allocate(size, 64);
        seg.fill((byte) 7);
        System.out.println("READY " + ProcessHandle.current().pid() + " " + seg.address());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for end of input
        }
    }
}
