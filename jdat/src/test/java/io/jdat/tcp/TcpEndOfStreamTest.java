package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardSocketOptions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How a connection's end is told from its socket (API.md §7: a remote disconnect is {@code DISCONNECTED}, a
 * transport error {@code BROKEN}). After a peer's RST, Linux hands the error to the first call on the socket
 * and an end of stream to every later read, so a reset whose error a send took looks, to the receive path,
 * like the peer's FIN. Seen as {@code DISCONNECTED} instead of {@code BROKEN} in {@code TcpFaultTest} under load.
 */
class TcpEndOfStreamTest {

    @Test
    @DisplayName("a reset whose error a send took is BROKEN, though the receive path then reads an end of stream")
    void resetTakenBySendIsBroken() throws Exception {
        Ending ending = new Ending();
        try (TcpRig rig = new TcpRig("eos-reset", ending, false)) {
            DirectSocket raw = DirectSocket.of(rig.mine);
            assumeTrue(raw != null, "no native access here: no direct send to take the error with");
            MemorySegment one = Arena.ofAuto().allocate(1);
            rig.conn.tx.lock.lock(); // a send in flight
            try {
                rig.peer.setOption(StandardSocketOptions.SO_LINGER, 0);
                rig.peer.close(); // RST
                // The send meets the reset (loopback delivers the RST at once; allow a few tries all the same).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                IOException met = null;
                while (met == null && System.nanoTime() < deadline) {
                    try {
                        raw.tx.send(one, 0, 1);
                        Thread.sleep(1);
                    } catch (IOException e) {
                        met = e;
                    }
                }
                assertTrue(met != null, "the send never met the reset");
                // The socket now reads as an end of stream. Let the progress thread's receive path find it: it
                // must wait for the send in flight, not report the end meanwhile.
                while (!rig.conn.tx.lock.hasQueuedThreads() && !ending.future.isDone()
                        && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                // What the transmit path does with the error it met, under the same hold of its lock.
                rig.conn.transmitterFailed("send failed: " + met.getMessage());
            } finally {
                rig.conn.tx.lock.unlock();
            }
            assertEquals("broken", ending.future.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    @DisplayName("the peer's FIN with nothing in flight is DISCONNECTED (the receive path does not wait for ever)")
    void finIsDisconnected() throws Exception {
        Ending ending = new Ending();
        try (TcpRig rig = new TcpRig("eos-fin", ending, false)) {
            rig.peer.shutdownOutput();
            assertEquals("disconnected", ending.future.get(10, TimeUnit.SECONDS));
        }
    }

    /** Records the first of the core's two end notifications. */
    private static final class Ending extends TcpRig.IdleSink {
        final CompletableFuture<String> future = new CompletableFuture<>();

        @Override
        public void remoteDisconnected() {
            future.complete("disconnected");
        }

        @Override
        public void broken() {
            future.complete("broken");
        }
    }
}
