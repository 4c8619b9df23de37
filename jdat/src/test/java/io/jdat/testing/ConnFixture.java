package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.mem.MemAddress;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/**
 * Connection-management test fixtures, mostly on the {@code mem} transport: {@link Node} (one open IA with a PZ, a
 * CR EVD and a registered buffer, owning any number of {@link Ep}s), {@link CmGate} (holds the mem
 * connection-management thread so that intermediate states can be observed), {@link #cmBarrier} and
 * assertion helpers. Unlike {@link Pair}, a node may be closed abruptly in the middle of a test; its
 * {@link Node#close()} is idempotent.
 */
public final class ConnFixture {
    /** Generous wait for events that must arrive (5 s). */
    public static final int WAIT = 5_000_000;
    /** A short connect timeout for TIMED_OUT tests (50 ms). */
    public static final int SHORT = 50_000;

    private ConnFixture() {
    }

    /** The address of every IA opened as {@code "mem"}. */
    public static MemAddress mem() {
        return MemAddress.of("mem");
    }

    /** Asserts that {@code call} fails with exactly this type and subtype; returns the exception. */
    public static DatException assertDat(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), () -> "type of " + e.getMessage());
        assertEquals(subtype, e.subtype(), () -> "subtype of " + e.getMessage());
        return e;
    }

    /** Asserts that {@code evd} holds no event right now (a dequeue, which never blocks). */
    public static void assertNoEvent(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertFalse(evd.dequeue(e), () -> "unexpected event " + e);
    }

    /** Waits up to 5 s for the next event of {@code evd}. */
    public static DatEvent next(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.waitFor(WAIT, 1, e), "no event within 5 s on " + evd);
        return e;
    }

    /** Waits for the next event of {@code evd} and checks its number. */
    public static DatEvent expect(EventDispatcher evd, EventNumber n) {
        DatEvent e = next(evd);
        assertEquals(n, e.eventNumber(), () -> "event " + e);
        return e;
    }

    /**
     * Returns once the mem connection-management thread has run every step queued before this call: the
     * thread works in order, so an attempt to an unlistened qualifier, started now, reports its
     * NON_PEER_REJECTED only after them.
     */
    public static void cmBarrier(Node node) {
        Ep b = node.ep();
        try {
            b.ep.connect(mem(), Pair.freshQual(), WAIT, 0, null, Qos.BEST_EFFORT, 0);
            b.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        } finally {
            b.free();
        }
    }

    /**
     * Makes {@code c} time out on a request that the server consumer holds and never answers: connects with
     * a 50 ms timeout and waits for TIMED_OUT, until an attempt also reached {@code crEvd} (on a loaded
     * machine the CM thread may reach an attempt only after its timeout, and then drops it undelivered;
     * the EP is reset and tries again). {@code prepare} runs before each attempt, {@code check} after each
     * TIMED_OUT.
     *
     * @return the request that reached the server, still unanswered
     */
    public static ConnectionRequest timedOutRequest(Ep c, Node server, EventDispatcher crEvd, long qual,
            byte[] pd, Runnable prepare, Runnable check) {
        for (int attempt = 0; attempt < 20; attempt++) {
            prepare.run();
            c.ep.connect(mem(), qual, SHORT, pd == null ? 0 : pd.length, pd, Qos.BEST_EFFORT, 0);
            c.expectConn(EventNumber.CONNECTION_EVENT_TIMED_OUT);
            assertEquals(EpState.DISCONNECTED, c.state());
            check.run();
            cmBarrier(server);
            DatEvent e = new DatEvent();
            if (crEvd.dequeue(e)) {
                assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
                return e.cr();
            }
            c.ep.reset();
        }
        return fail("no attempt reached the server before its 50 ms timeout");
    }

    /** One open IA with a PZ, a CR EVD (qlen 64) and a registered 64 KiB buffer. */
    public static final class Node implements AutoCloseable {
        public final InterfaceAdapter ia;
        public final ProtectionZone pz;
        public final EventDispatcher crEvd;
        public final Arena arena = Arena.ofShared();
        public final MemorySegment buf;
        public final Lmr lmr;
        private boolean closed;

        /** Opens an IA named {@code "mem"} (address {@link ConnFixture#mem()}). */
        public Node() {
            this("mem");
        }

        /** Opens the IA registered under {@code iaName}. */
        public Node(String iaName) {
            ia = InterfaceAdapter.open(iaName, 16, null);
            pz = ProtectionZone.create(ia);
            crEvd = EventDispatcher.create(ia, 64, null, EvdFlags.CR);
            buf = arena.allocate(64 * 1024, 256);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        }

        /** A new EP with its own recv, request and connect EVDs and default attributes. */
        /** Listens on {@code qual} with a consumer-model PSP feeding {@link #crEvd}. */
        public PublicServicePoint listen(long qual) {
            return PublicServicePoint.create(ia, qual, crEvd, PspFlags.CONSUMER);
        }

        /** Listens on a qualifier the transport picks ({@code dat_psp_create_any}), feeding {@link #crEvd}. */
        public PublicServicePoint listenAny() {
            return PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
        }

        /** This IA's address, as {@code dat_ia_query} reports it (what a peer connects to on any transport). */
        public java.net.SocketAddress address() {
            return ia.query(io.jdat.IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        }

        /** Waits for the next connection request on {@link #crEvd}. */
        public ConnectionRequest request() {
            return expect(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
        }

        public Ep ep() {
            return ep(null);
        }

        /** A new EP with its own EVDs and {@code attr}. */
        public Ep ep(EpAttr attr) {
            return new Ep(this, attr);
        }

        /** A new EP with {@code attr} and recv and request EVDs of {@code qlen}. */
        public Ep ep(EpAttr attr, int qlen) {
            return new Ep(this, attr, qlen);
        }

        /** A local triplet of this node's buffer. */
        public LmrTriplet at(long offset, long length) {
            return lmr.triplet(offset, length);
        }

        /** Closes the IA abruptly (idempotent). */
        public void closeAbrupt() {
            if (!closed) {
                closed = true;
                ia.close(CloseFlags.ABRUPT);
            }
        }

        @Override
        public void close() {
            closeAbrupt();
            arena.close();
        }
    }

    /** An EP and its three EVDs (recv and request qlen 64, connect qlen 16). */
    public static final class Ep {
        public final Node node;
        public final EventDispatcher recvEvd;
        public final EventDispatcher reqEvd;
        public final EventDispatcher connEvd;
        public final Endpoint ep;

        Ep(Node node, EpAttr attr) {
            this(node, attr, 64);
        }

        Ep(Node node, EpAttr attr, int qlen) {
            this.node = node;
            recvEvd = EventDispatcher.create(node.ia, qlen, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(node.ia, qlen, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            connEvd = EventDispatcher.create(node.ia, 16, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(node.ia, node.pz, recvEvd, reqEvd, connEvd, attr);
        }

        /** The EP's state. */
        public EpState state() {
            return ep.getStatus().epState();
        }

        /** Connects to {@code qual} at the mem address with a 5 s timeout. */
        public void connect(long qual, byte[] pd) {
            ep.connect(mem(), qual, WAIT, pd == null ? 0 : pd.length, pd, Qos.BEST_EFFORT, 0);
        }

        /** Connects to {@code qual} at {@code server}'s address (any transport) with a 5 s timeout. */
        public void connect(Node server, long qual, byte[] pd) {
            ep.connect(server.address(), qual, WAIT, pd == null ? 0 : pd.length, pd, Qos.BEST_EFFORT, 0);
        }

        /** Waits for the next connection event and checks its number and EP. */
        public DatEvent expectConn(EventNumber n) {
            DatEvent e = expect(connEvd, n);
            assertSame(ep, e.ep(), "ep_handle of the connection event");
            assertSame(connEvd, e.evd(), "evd_handle of the connection event");
            return e;
        }

        /** Posts a receive of {@code length} bytes at {@code offset} of the node buffer. */
        public void postRecv(long cookie, long offset, long length) {
            ep.postRecv(1, new LmrTriplet[] {node.at(offset, length)}, cookie, 0);
        }

        /** Posts a send of {@code length} bytes at {@code offset} of the node buffer. */
        public void postSend(long cookie, long offset, long length) {
            ep.postSend(1, new LmrTriplet[] {node.at(offset, length)}, cookie, 0);
        }

        /** Waits for a DTO completion on {@code evd} and checks cookie and status. */
        public DatEvent expectDto(EventDispatcher evd, long cookie, DtoCompletionStatus status) {
            DatEvent e = expect(evd, EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(cookie, e.userCookie(), () -> "cookie of " + e);
            assertEquals(status, e.status(), () -> "status of " + e);
            assertSame(ep, e.ep(), "ep_handle of the completion");
            return e;
        }

        /** Checks that the receives with these cookies completed FLUSHED, in this order, and nothing else. */
        public void expectFlushedRecvs(long... cookies) {
            for (long c : cookies) {
                expectDto(recvEvd, c, DtoCompletionStatus.ERR_FLUSHED);
            }
            assertNoEvent(recvEvd);
            assertTrue(ep.getStatus().recvIdle(), "recv_idle after the flush");
        }

        /** Frees the EP and its EVDs. */
        public void free() {
            ep.free();
            recvEvd.free();
            reqEvd.free();
            connEvd.free();
        }
    }

    /**
     * Holds the mem connection-management thread ({@code jdat-mem-cm}) until closed: a private IA sends a
     * connection request to its own PSP, whose CR EVD triggers a CNO whose proxy agent, running on that
     * thread, blocks (no EP lock is held there). Connection steps queued meanwhile (requests, accepts,
     * rejects) wait, so states such as ACTIVE_CONNECTION_PENDING and COMPLETION_PENDING can be observed and
     * acted on. Consumer timeouts still fire (they run on the core's timer thread).
     */
    public static final class CmGate implements AutoCloseable {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Node node = new Node();

        /** Blocks the thread; returns once it is held. */
        public CmGate() {
            try {
                Cno cno = Cno.create(node.ia, evd -> {
                    entered.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                EventDispatcher gateEvd = EventDispatcher.create(node.ia, 4, cno, EvdFlags.CR);
                long qual = Pair.freshQual();
                PublicServicePoint.create(node.ia, qual, gateEvd, PspFlags.CONSUMER);
                EventDispatcher connEvd = EventDispatcher.create(node.ia, 4, null, EvdFlags.CONNECTION);
                Endpoint ep = Endpoint.create(node.ia, node.pz, null, null, connEvd, null);
                ep.connect(mem(), qual, Dat.TIMEOUT_INFINITE, 0, null, Qos.BEST_EFFORT, 0);
                assertTrue(entered.await(5, TimeUnit.SECONDS), "the CM thread was not held");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                fail(e);
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        /** Lets the thread go on (idempotent) and closes the private IA. */
        @Override
        public void close() {
            release.countDown();
            node.close();
        }
    }

    /** Checks an array against the bytes {@code first, first+1, ...}. */
    public static void assertSeq(int first, int length, byte[] actual) {
        assertNotNull(actual);
        assertArrayEquals(seq(first, length), actual);
    }

    /** The bytes {@code first, first+1, ...} ({@code length} of them, wrapping at 256). */
    public static byte[] seq(int first, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (first + i);
        }
        return b;
    }
}
