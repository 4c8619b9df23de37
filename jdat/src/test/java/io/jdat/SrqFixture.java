package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.ChannelSink;
import io.jdat.testing.ConnFixture;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Shared Receive Queue fixture on the {@code mem} provider: a server IA with a PZ, an SRQ, a registered 64 KiB
 * buffer and a PSP, and a client IA with its own PZ and buffer. {@link #connect} makes one more connection:
 * a client EP and a server EP created with {@code dat_ep_create_with_srq}. Close it with
 * try-with-resources (both IAs close abruptly).
 */
final class SrqFixture implements AutoCloseable {
    /** 5 s, the bound on every wait for an event that must come. */
    static final int WAIT = 5_000_000;

    final InterfaceAdapter serverIa;
    final InterfaceAdapter clientIa;
    final ProtectionZone serverPz;
    final ProtectionZone clientPz;
    final SharedReceiveQueue srq;
    final EventDispatcher crEvd;
    final Arena arena = Arena.ofShared();
    final MemorySegment serverBuf;
    final MemorySegment clientBuf;
    final Lmr serverLmr;
    final Lmr clientLmr;
    final long qual;
    final PublicServicePoint psp;
    /** Where clients connect: the server IA's address. */
    private final java.net.SocketAddress serverAddress;

    /** One connection: the client EP and the server's SRQ EP, each with its EVDs. */
    static final class Conn {
        final Endpoint client;
        final EventDispatcher clientRecv;
        final EventDispatcher clientReq;
        final EventDispatcher clientConn;
        final Endpoint server;
        final EventDispatcher serverRecv;
        final EventDispatcher serverReq;
        final EventDispatcher serverConn;

        Conn(Endpoint client, EventDispatcher clientRecv, EventDispatcher clientReq, EventDispatcher clientConn,
                Endpoint server, EventDispatcher serverRecv, EventDispatcher serverReq, EventDispatcher serverConn) {
            this.client = client;
            this.clientRecv = clientRecv;
            this.clientReq = clientReq;
            this.clientConn = clientConn;
            this.server = server;
            this.serverRecv = serverRecv;
            this.serverReq = serverReq;
            this.serverConn = serverConn;
        }
    }

    /** An SRQ of 64 entries, 4 segments, no watermark. */
    SrqFixture() {
        this(new SrqAttr(64, 4, Dat.SRQ_LW_DEFAULT));
    }

    SrqFixture(SrqAttr attr) {
        this("mem", attr);
    }

    /** Both IAs opened as {@code iaName} (any provider). */
    SrqFixture(String iaName, SrqAttr attr) {
        serverIa = InterfaceAdapter.open(iaName, 64, null);
        clientIa = InterfaceAdapter.open(iaName, 64, null);
        serverPz = ProtectionZone.create(serverIa);
        clientPz = ProtectionZone.create(clientIa);
        srq = SharedReceiveQueue.create(serverIa, serverPz, attr);
        crEvd = EventDispatcher.create(serverIa, 64, null, EvdFlags.CR);
        serverBuf = arena.allocate(64 * 1024, 256);
        clientBuf = arena.allocate(64 * 1024, 256);
        serverLmr = Lmr.create(serverIa, MemType.VIRTUAL, RegionDescription.forVa(serverBuf), serverBuf.byteSize(),
                serverPz, MemPriv.ALL);
        clientLmr = Lmr.create(clientIa, MemType.VIRTUAL, RegionDescription.forVa(clientBuf), clientBuf.byteSize(),
                clientPz, MemPriv.ALL);
        if (iaName.equals("mem")) {
            qual = Pair.freshQual();
            psp = PublicServicePoint.create(serverIa, qual, crEvd, PspFlags.CONSUMER);
            serverAddress = ConnFixture.mem();
        } else {
            psp = PublicServicePoint.createAny(serverIa, crEvd, PspFlags.CONSUMER);
            qual = psp.connQual();
            serverAddress = serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        }
    }

    /** Usable EP attributes (DataPath's: 64 requests, 8 segments, EVD_THRESHOLD). */
    static EpAttr attr() {
        return DataPath.attr();
    }

    /** A new DTO EVD on the server (queue length {@code qlen}). */
    EventDispatcher serverDtoEvd(int qlen) {
        return EventDispatcher.create(serverIa, qlen, null, EvdFlags.DTO);
    }

    /** A server EP of the SRQ in the server PZ, with its own request and connect EVDs. */
    Endpoint srqEp(EventDispatcher recvEvd, EpAttr attr) {
        return Endpoint.createWithSrq(serverIa, serverPz, recvEvd, serverDtoEvd(64),
                EventDispatcher.create(serverIa, 16, null, EvdFlags.CONNECTION), srq, attr);
    }

    /** A new connection whose server EP has its own recv EVD. */
    Conn connect() {
        return connect(serverDtoEvd(256), attr());
    }

    /** A new connection whose server SRQ EP reports receives on {@code serverRecv}. */
    Conn connect(EventDispatcher serverRecv) {
        return connect(serverRecv, attr());
    }

    /** A new connection: a server SRQ EP with {@code serverAttr} on {@code serverRecv}, connected from a new client EP. */
    Conn connect(EventDispatcher serverRecv, EpAttr serverAttr) {
        Endpoint server = srqEp(serverRecv, serverAttr);
        EpParam sp = server.query(EpParam.FIELD_ALL);
        return connect(server, serverRecv, sp.requestEvdHandle(), sp.connectEvdHandle());
    }

    /** Connects a new client EP to the given server EP (UNCONNECTED) through the PSP. */
    Conn connect(Endpoint server, EventDispatcher serverRecv, EventDispatcher serverReq, EventDispatcher serverConn) {
        EventDispatcher cRecv = EventDispatcher.create(clientIa, 256, null, EvdFlags.DTO);
        EventDispatcher cReq = EventDispatcher.create(clientIa, 256, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
        EventDispatcher cConn = EventDispatcher.create(clientIa, 16, null, EvdFlags.CONNECTION);
        Endpoint client = Endpoint.create(clientIa, clientPz, cRecv, cReq, cConn, attr());
        client.connect(serverAddress, qual, WAIT, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent cr = ConnFixture.expect(crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
        cr.cr().accept(server, 0, null);
        assertSame(server, ConnFixture.expect(serverConn, EventNumber.CONNECTION_EVENT_ESTABLISHED).ep());
        assertSame(client, ConnFixture.expect(cConn, EventNumber.CONNECTION_EVENT_ESTABLISHED).ep());
        return new Conn(client, cRecv, cReq, cConn, server, serverRecv, serverReq, serverConn);
    }

    /** Posts a one-segment SRQ buffer of the server buffer. */
    void post(long cookie, long offset, long length) {
        srq.postRecv(1, new LmrTriplet[] {serverLmr.triplet(offset, length)}, cookie);
    }

    /** Sends {@code length} bytes at {@code offset} of the client buffer on {@code c}. */
    void send(Conn c, long cookie, long offset, long length) {
        c.client.postSend(1, new LmrTriplet[] {clientLmr.triplet(offset, length)}, cookie, CompletionFlags.DEFAULT);
    }

    /** Sends and waits for the send's successful completion: the message is in an SRQ buffer by then (mem). */
    void sendAndWait(Conn c, long cookie, long offset, long length) {
        send(c, cookie, offset, length);
        DataPath.dtoOk(c.clientReq, cookie, length);
    }

    /** The SRQ parameters. */
    SrqParam query() {
        return srq.query(SrqParam.FIELD_ALL);
    }

    /** Checks max_recv_dtos, available_dto_count and outstanding_dto_count. */
    void assertCounts(int maxRecvDtos, int available, int outstanding, String when) {
        SrqParam p = query();
        assertEquals(maxRecvDtos, p.maxRecvDtos(), "max_recv_dtos " + when);
        assertEquals(available, p.availableDtoCount(), "available_dto_count " + when);
        assertEquals(outstanding, p.outstandingDtoCount(), "outstanding_dto_count " + when);
    }

    /** The SPI view a transport has of an EP: lets a test play a transport that holds buffers in flight. */
    static ChannelSink sink(Endpoint ep) {
        assertTrue(ep instanceof ChannelSink, "a core EP is its connection's ChannelSink");
        return (ChannelSink) ep;
    }

    @Override
    public void close() {
        for (InterfaceAdapter ia : new InterfaceAdapter[] {clientIa, serverIa}) {
            try {
                ia.close(CloseFlags.ABRUPT);
            } catch (DatException e) {
                assertEquals(DatReturnType.INVALID_HANDLE, e.type(), "closed by the test already");
            }
        }
        arena.close();
    }
}
