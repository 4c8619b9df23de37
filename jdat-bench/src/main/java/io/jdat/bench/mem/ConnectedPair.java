package io.jdat.bench.mem;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
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

/**
 * Benchmark set-up shared by the {@code mem} and {@code tcp} benchmarks: two IAs of one provider, each with a
 * PZ, a receive EVD, a request EVD, a connect EVD, one EP and one registered buffer, connected through a
 * PSP. Not a benchmark itself.
 */
public final class ConnectedPair implements AutoCloseable {
    /** One end. */
    public static final class End {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher recvEvd;
        final EventDispatcher reqEvd;
        final EventDispatcher connEvd;
        final Endpoint ep;
        final MemorySegment buf;
        final Lmr lmr;

        End(String iaName, Arena arena, long bufBytes, int depth) {
            ia = InterfaceAdapter.open(iaName, 16, null);
            pz = ProtectionZone.create(ia);
            recvEvd = EventDispatcher.create(ia, depth * 2, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(ia, depth * 2, null, EvdFlags.DTO);
            connEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            EpAttr attr = ia.defaultEpAttr().maxRecvDtos(depth).maxRequestDtos(depth)
                    .recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.DEFAULT);
            ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, attr);
            buf = arena.allocate(bufBytes, 4096);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), bufBytes, pz, MemPriv.ALL);
        }

        void expect(EventNumber n) {
            DatEvent e = new DatEvent();
            if (!connEvd.waitFor(5_000_000, 1, e) || e.eventNumber() != n) {
                throw new IllegalStateException("expected " + n + ", got " + e);
            }
        }
    }

    private static long nextQual = 40_000;
    final Arena arena = Arena.ofShared();
    final End client;
    final End server;

    ConnectedPair(long bufBytes, int depth) {
        this("mem", bufBytes, depth);
    }

    /** Two IAs opened as {@code iaName}; any provider ({@code mem} listens on a fixed qualifier, others on any). */
    public ConnectedPair(String iaName, long bufBytes, int depth) {
        client = new End(iaName, arena, bufBytes, depth);
        server = new End(iaName, arena, bufBytes, depth);
        EventDispatcher crEvd = EventDispatcher.create(server.ia, 8, null, EvdFlags.CR);
        long qual;
        synchronized (ConnectedPair.class) {
            qual = nextQual++;
        }
        PublicServicePoint psp;
        java.net.SocketAddress to;
        if (iaName.equals("mem")) {
            psp = PublicServicePoint.create(server.ia, qual, crEvd, PspFlags.CONSUMER);
            to = MemAddress.of("mem");
        } else {
            psp = PublicServicePoint.createAny(server.ia, crEvd, PspFlags.CONSUMER);
            qual = psp.connQual();
            to = server.ia.query(io.jdat.IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        }
        client.ep.connect(to, qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent e = new DatEvent();
        if (!crEvd.waitFor(5_000_000, 1, e)) {
            throw new IllegalStateException("no connection request");
        }
        ConnectionRequest cr = e.cr();
        cr.accept(server.ep, 0, null);
        server.expect(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        client.expect(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
    }

    /** The client end. */
    public End client() {
        return client;
    }

    /** The server end. */
    public End server() {
        return server;
    }

    @Override
    public void close() {
        client.ia.close(CloseFlags.ABRUPT);
        server.ia.close(CloseFlags.ABRUPT);
        arena.close();
    }
}
