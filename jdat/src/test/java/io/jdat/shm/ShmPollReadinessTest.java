package io.jdat.shm;

import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EventDispatcher;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.testing.ManyConnections;
import io.jdat.testing.Pair;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A poll of an {@code shm} IA looks at the connections its {@link ReadyBoard} marks and the hot ones, not at
 * every ring (issue 18: an empty poll cost 1.6 ms with 1024 idle connections): counted with
 * {@link ShmProgress#passVisits}, not timed. And what a hostile peer can do to the board costs looks, never
 * a message: marks for nothing, and marks never made (the periodic full look delivers).
 */
@ExtendWith(ShmTesting.KeepConnectionFiles.class)
class ShmPollReadinessTest {
    private static final int N = 16;

    @Test
    @DisplayName("EVQ-01, SND-01: with 16 idle connections an empty dat_evd_dequeue looks at none once they are cold;"
            + " a hostile peer marking every slot makes them hot for a while only; a Send on each arrives")
    void emptyPollLooksAtNoConnection() throws IOException {
        // Without the periodic full look (once a second on both IAs): landing inside the 1000 polls below, on a
        // loaded machine where they take long, it made the peer mark the connections hot and failed the count.
        long savedFullLook = ShmProgress.fullLookNanos;
        ShmProgress.fullLookNanos = Long.MAX_VALUE / 2;
        try (ManyConnections m = new ManyConnections(ShmTesting.SHM, N); Arena arena = Arena.ofShared()) {
            m.sendEach();
            m.receiveEach(30);
            assertSettles(m.cdto, "after a round of Sends");
            long before = ShmProgress.passVisits;
            DatEvent e = new DatEvent();
            for (int k = 0; k < 1000; k++) {
                assertTrue(!m.cdto.dequeue(e), "an event on an idle IA: " + e);
            }
            assertEquals(0, ShmProgress.passVisits - before,
                    "connections looked at by 1000 empty polls of an IA with " + N + " cold connections");

            // a hostile peer sets every bit of the client's board: a look at each connection, then cold again
            MemorySegment board = mapBoard(m.client, arena);
            board.asSlice(ReadyBoard.SUMMARY, ReadyBoard.SUMMARY_WORDS * 8L).fill((byte) -1);
            board.asSlice(ReadyBoard.BITS, ReadyBoard.WORDS * 8L).fill((byte) -1);
            before = ShmProgress.passVisits;
            for (int k = 0; k < 1000 && ShmProgress.passVisits - before < N; k++) {
                m.cdto.dequeue(e); // (a poll may find the progress thread in a pass, or in its own periodic look)
            }
            assertTrue(ShmProgress.passVisits - before >= N, "looks after every slot was marked");
            assertSettles(m.cdto, "after spurious marks");
            before = ShmProgress.passVisits;
            m.sendEach();
            m.receiveEach(30);
            assertTrue(ShmProgress.passVisits - before >= N,
                    "each cold connection is made hot by its mark and looked at (not only by the full look): "
                            + (ShmProgress.passVisits - before) + " looks");
        } finally {
            ShmProgress.fullLookNanos = savedFullLook;
        }
    }

    @Test
    @DisplayName("SND-01: a peer that marks a slot that is not the connection's (never the right one): a Send still"
            + " arrives at a polling consumer, through the periodic full look")
    void sendArrivesWithoutAMark() throws IOException {
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect(); Arena arena = Arena.ofShared()) {
            MemorySegment file = ShmTesting.mapConnectionFile(p, arena);
            int ring = file.get(ValueLayout.JAVA_INT, ConnectionLayout.RING_CAPACITY_OFFSET);
            // the client (active side) announces the last slot, which no connection has: the server marks it
            // (once the client published its own: it may start the connection after its ESTABLISHED)
            long slotAt = ConnectionLayout.ACTIVE_BLOCK + ConnectionLayout.READY_SLOT;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((int) ConnectionLayout.INT.getAcquire(file, slotAt) == 0) {
                assertTrue(System.nanoTime() < deadline, "the client never published its slot");
                Thread.onSpinWait();
            }
            ConnectionLayout.INT.setRelease(file, slotAt, ReadyBoard.SLOTS);
            MemorySegment flag = file.asSlice(ConnectionLayout.ringOffset(ring, false) + RingDescriptor.SLEEPING_OFFSET,
                    4);
            MemorySegment board = mapBoard(p.client.ia, arena);
            p.client.ep.postRecv(1, iov(p.client.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            // the client's consumer polls until the connection is cold and its progress thread awake: from then
            // on only a mark (or the full look) makes a poll look at the connection, and nobody rings the socket
            DatEvent e = new DatEvent();
            deadline = System.nanoTime() + 10_000_000_000L;
            while ((int) ShmRing.INT.getVolatile(flag, 0L) == 0
                    || (int) ShmRing.INT.getVolatile(board, (long) ReadyBoard.SLEEPING) != 0) {
                assertTrue(!p.client.recvEvd.dequeue(e), "nothing was sent yet: " + e);
                assertTrue(System.nanoTime() < deadline, "the connection did not go cold while polled");
            }
            p.server.ep.postSend(1, iov(p.server.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
            deadline = System.nanoTime() + 10_000_000_000L;
            boolean got = false;
            while (!got && System.nanoTime() < deadline) {
                got = p.client.recvEvd.dequeue(e);
            }
            assertTrue(got, "the Send did not arrive within 10 s (the full look runs every "
                    + ShmProgress.FULL_LOOK_MILLIS + " ms)");
            assertEquals(1, e.userCookie());
            p.server.expectDto(p.server.reqEvd, 2);
        }
    }

    /** Polls until 1000 polls in a row looked at no connection (the hot ones went cold), within 200 000 polls. */
    /**
     * Polls {@code evd} until no connection of any IA was looked at for 1000 polls in a row and for at least
     * {@link #SETTLED_NANOS}: {@code passVisits} counts every IA's passes, the progress threads' too, and a thread
     * parks between passes (up to a 2 ms slice), so a run of quick polls alone can end before the other side's
     * connections went cold (or its last head store made one of ours hot).
     */
    private static void assertSettles(EventDispatcher evd, String when) {
        DatEvent e = new DatEvent();
        int quiet = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        long quietSince = System.nanoTime();
        while (quiet < 1000 || System.nanoTime() - quietSince < SETTLED_NANOS) {
            assertTrue(System.nanoTime() < deadline, "connections still looked at after 10 s, " + when);
            long before = ShmProgress.passVisits;
            assertTrue(!evd.dequeue(e), "an event on an idle IA: " + e);
            if (ShmProgress.passVisits == before) {
                quiet++;
            } else {
                quiet = 0;
                quietSince = System.nanoTime();
            }
        }
    }

    /** How long no connection may be looked at before the IAs count as settled: ten progress-thread slices. */
    private static final long SETTLED_NANOS = 20_000_000L;

    /** A third mapping of {@code ia}'s board. */
    private static MemorySegment mapBoard(InterfaceAdapter ia, Arena arena) throws IOException {
        Path dir = ((UnixDomainSocketAddress) ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress()).getPath();
        return RingFile.open(dir.resolve(ReadyBoard.FILE), arena);
    }
}
