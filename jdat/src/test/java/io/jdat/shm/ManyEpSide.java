package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EpAttr;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
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
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;

/**
 * One side of N shm connections on one IA, for tests of many connections at once: receive, request and
 * connection EVDs, one buffer with a 64-byte send and a 64-byte receive slot per connection, and N EPs of two
 * receive and two request DTOs. {@link #connect} connects two sides' EPs pairwise.
 */
final class ManyEpSide implements AutoCloseable {
    final int n;
    final InterfaceAdapter ia = InterfaceAdapter.open(ShmTesting.SHM, 16, null);
    final ProtectionZone pz = ProtectionZone.create(ia);
    final EventDispatcher recvEvd;
    final EventDispatcher reqEvd;
    final EventDispatcher connEvd;
    final Lmr lmr;
    final Endpoint[] eps;
    final LmrTriplet[][] send;
    final LmrTriplet[][] recv;
    final EpAttr attr;

    /**
     * @param arena  where the buffer lives
     * @param n      the number of connections
     * @param shared requests complete on the receive EVD, in one order with the receives
     */
    ManyEpSide(Arena arena, int n, boolean shared) {
        this.n = n;
        recvEvd = EventDispatcher.create(ia, 2 * n + 16, null, EvdFlags.DTO);
        reqEvd = shared ? recvEvd : EventDispatcher.create(ia, 2 * n + 16, null, EvdFlags.DTO);
        connEvd = EventDispatcher.create(ia, 2 * n + 16, null, EvdFlags.CONNECTION);
        eps = new Endpoint[n];
        send = new LmrTriplet[n][];
        recv = new LmrTriplet[n][];
        MemorySegment buf = arena.allocate(n * 256L, 4096);
        lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        for (int i = 0; i < n; i++) {
            send[i] = new LmrTriplet[] {lmr.triplet(i * 256L, 64)};
            recv[i] = new LmrTriplet[] {lmr.triplet(i * 256L + 128, 64)};
        }
        attr = ia.defaultEpAttr().maxRecvDtos(2).maxRequestDtos(2)
                .recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.DEFAULT);
    }

    /** Creates EP {@code i} on this side's EVDs. */
    Endpoint createEp(int i) {
        eps[i] = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, attr);
        return eps[i];
    }

    /** Connects every EP of {@code client} to a new EP of {@code server} through one PSP; all up within 60 s. */
    static void connect(ManyEpSide server, ManyEpSide client) {
        int n = client.n;
        EventDispatcher crEvd = EventDispatcher.create(server.ia, 2 * n, null, EvdFlags.CR);
        PublicServicePoint psp = PublicServicePoint.createAny(server.ia, crEvd, PspFlags.CONSUMER);
        SocketAddress to = server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        for (int i = 0; i < n; i++) {
            client.createEp(i).connect(to, psp.connQual(), 60_000_000, 0, null, Qos.BEST_EFFORT, 0);
        }
        DatEvent e = new DatEvent();
        int accepted = 0;
        int up = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (up < 2 * n && System.nanoTime() < deadline) {
            if (crEvd.dequeue(e)) {
                e.cr().accept(server.createEp(accepted++), 0, null);
            } else if (server.connEvd.dequeue(e) || client.connEvd.dequeue(e)) {
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber());
                up++;
            } else {
                Thread.onSpinWait();
            }
        }
        assertEquals(2 * n, up, "established");
        psp.free();
    }

    @Override
    public void close() {
        ia.close(CloseFlags.ABRUPT);
    }
}
