package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test fixture: two IAs on the {@code mem} provider ("client" and "server" sides, both opened as
 * {@code "mem"}), each with a PZ, separate recv / request / connect EVDs, one EP, and a registered 64 KiB
 * buffer with every privilege. {@link #connect()} connects the two EPs through a PSP on a fresh qualifier.
 * Close it with try-with-resources.
 */
public final class Pair implements AutoCloseable {
    private static final AtomicLong QUALS = new AtomicLong(20_000);

    /** One side. */
    public static final class Side {
        public final InterfaceAdapter ia;
        public final ProtectionZone pz;
        public final EventDispatcher recvEvd;
        public final EventDispatcher reqEvd;
        public final EventDispatcher connEvd;
        public final Endpoint ep;
        public final Arena arena = Arena.ofShared();
        public final MemorySegment buf;
        public final Lmr lmr;
        public final DatEvent ev = new DatEvent();

        Side(String iaName, EpAttr attr, int qlen) {
            ia = InterfaceAdapter.open(iaName, 16, null);
            pz = ProtectionZone.create(ia);
            recvEvd = EventDispatcher.create(ia, qlen, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(ia, qlen, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            connEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, attr);
            buf = arena.allocate(64 * 1024, 256);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        }

        /** Waits up to 5 s for the next event on {@code evd} and returns it (a fresh object). */
        public DatEvent next(EventDispatcher evd) {
            DatEvent e = new DatEvent();
            assertTrue(evd.waitFor(5_000_000, 1, e), "no event within 5 s on " + evd);
            return e;
        }

        /** Waits for the next connection event and checks its number. */
        public DatEvent expectConn(EventNumber n) {
            DatEvent e = next(connEvd);
            assertEquals(n, e.eventNumber(), "connection event");
            return e;
        }

        /** Waits for the next DTO completion on {@code evd} and checks it succeeded. */
        public DatEvent expectDto(EventDispatcher evd, long cookie) {
            DatEvent e = next(evd);
            assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
            assertEquals(io.jdat.DtoCompletionStatus.SUCCESS, e.status(), "status of " + e);
            assertEquals(cookie, e.userCookie());
            return e;
        }

        void close() {
            ia.close(CloseFlags.ABRUPT);
            arena.close();
        }
    }

    public final Side client;
    public final Side server;
    public final EventDispatcher crEvd;
    public final long qual = QUALS.getAndIncrement();
    public final String iaName;
    public PublicServicePoint psp;

    /** Both sides with the provider's default EP attributes. */
    public Pair() {
        this(null, 64);
    }

    /** Both sides with {@code attr} (null = defaults) and DTO EVDs of {@code qlen}. */
    public Pair(EpAttr attr, int qlen) {
        this("mem", attr, qlen);
    }

    /** Both sides opened as {@code iaName} (any provider), with {@code attr} and DTO EVDs of {@code qlen}. */
    public Pair(String iaName, EpAttr attr, int qlen) {
        this.iaName = iaName;
        client = new Side(iaName, attr, qlen);
        server = new Side(iaName, attr, qlen);
        crEvd = EventDispatcher.create(server.ia, 16, null, EvdFlags.CR);
    }

    /** A fresh connection qualifier for tests that listen themselves. */
    public static long freshQual() {
        return QUALS.getAndIncrement();
    }

    /** The address of the mem IA. */
    public static MemAddress address() {
        return MemAddress.of("mem");
    }

    /** Connects client → server (server accepts) with no private data; both see ESTABLISHED. */
    public Pair connect() {
        return connect(new byte[0], new byte[0]);
    }

    /**
     * Creates {@link #psp} on the server IA, feeding {@link #crEvd}: on {@link #qual} for {@code mem}, on a
     * qualifier the transport picks for the others. Returns the qualifier to connect to.
     */
    public long listen() {
        if (iaName.equals("mem")) {
            psp = PublicServicePoint.create(server.ia, qual, crEvd, PspFlags.CONSUMER);
        } else {
            psp = PublicServicePoint.createAny(server.ia, crEvd, PspFlags.CONSUMER);
        }
        return psp.connQual();
    }

    /** The server IA's address as {@code dat_ia_query} reports it (what the client connects to). */
    public java.net.SocketAddress serverAddress() {
        return server.ia.query(io.jdat.IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
    }

    /** Connects with private data both ways; returns this. */
    public Pair connect(byte[] requestData, byte[] acceptData) {
        long q = listen();
        java.net.SocketAddress to = iaName.equals("mem") ? address() : serverAddress();
        client.ep.connect(to, q, 5_000_000, requestData.length, requestData, Qos.BEST_EFFORT, 0);
        DatEvent cr = server.next(crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        ConnectionRequest req = cr.cr();
        req.accept(server.ep, acceptData.length, acceptData);
        server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return this;
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }

    /** Unused; keeps {@link Dat} referenced for readers of the fixture. */
    static int infinite() {
        return Dat.TIMEOUT_INFINITE;
    }
}
