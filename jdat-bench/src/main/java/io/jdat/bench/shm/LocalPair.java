package io.jdat.bench.shm;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;

/**
 * Two {@code shm} IAs in this JVM with an EP each (a PZ, a request and a receive EVD per side, default completion
 * flags), for the single-thread benchmarks ({@link ShmPathCostBench}, {@link ShmDirectWriteBench}): create, register
 * memory on {@link #pzA}/{@link #pzB}, then {@link #connect()}; {@link #close()} closes both IAs.
 */
final class LocalPair implements AutoCloseable {
    final InterfaceAdapter a = InterfaceAdapter.open("shm", 16, null);
    final InterfaceAdapter b = InterfaceAdapter.open("shm", 16, null);
    final ProtectionZone pzA = ProtectionZone.create(a);
    final ProtectionZone pzB = ProtectionZone.create(b);
    final EventDispatcher reqA = EventDispatcher.create(a, 64, null, EvdFlags.DTO);
    final EventDispatcher recvA = EventDispatcher.create(a, 64, null, EvdFlags.DTO);
    final EventDispatcher reqB = EventDispatcher.create(b, 64, null, EvdFlags.DTO);
    final EventDispatcher recvB = EventDispatcher.create(b, 64, null, EvdFlags.DTO);
    private final EventDispatcher connA = EventDispatcher.create(a, 8, null, EvdFlags.CONNECTION);
    private final EventDispatcher connB = EventDispatcher.create(b, 8, null, EvdFlags.CONNECTION);
    private final EventDispatcher crB = EventDispatcher.create(b, 8, null, EvdFlags.CR);
    private final EpAttr attr = a.defaultEpAttr().recvCompletionFlags(CompletionFlags.DEFAULT)
            .requestCompletionFlags(CompletionFlags.DEFAULT);
    final Endpoint epA = Endpoint.create(a, pzA, recvA, reqA, connA, attr);
    final Endpoint epB = Endpoint.create(b, pzB, recvB, reqB, connB, attr);

    /** Connects A to B through a PSP of B's and waits for both ESTABLISHED events. */
    void connect() {
        DatEvent event = new DatEvent();
        PublicServicePoint psp = PublicServicePoint.createAny(b, crB, PspFlags.CONSUMER);
        epA.connect(b.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), 10_000_000, 0, null,
                Qos.BEST_EFFORT, 0);
        if (!crB.waitFor(10_000_000, 1, event)) {
            throw new IllegalStateException("no connection request");
        }
        event.cr().accept(epB, 0, null);
        expect(connA, EventNumber.CONNECTION_EVENT_ESTABLISHED, event);
        expect(connB, EventNumber.CONNECTION_EVENT_ESTABLISHED, event);
    }

    private static void expect(EventDispatcher evd, EventNumber n, DatEvent event) {
        if (!evd.waitFor(10_000_000, 1, event) || event.eventNumber() != n) {
            throw new IllegalStateException("expected " + n + ", got " + event);
        }
    }

    @Override
    public void close() {
        a.close(CloseFlags.ABRUPT);
        b.close(CloseFlags.ABRUPT);
    }
}
