package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
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
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;

/**
 * {@code n} connections between two IAs of one provider in this process (a serving IA with one PSP, a connecting
 * IA), for the tests of how a poll's cost grows with connections: every connecting EP has a receive posted, and
 * every serving EP can send it one 64-byte message ({@link #sendEach}) that a consumer receives by polling
 * ({@link #receiveEach}).
 */
public final class ManyConnections implements AutoCloseable {
    private static final int SLOT = 256;

    public final int n;
    public final InterfaceAdapter server;
    public final InterfaceAdapter client;
    /** The connecting IA's receive (and request) EVD. */
    public final EventDispatcher cdto;
    /** The serving IA's receive and request EVD. */
    public final EventDispatcher sdto;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment sbuf;
    private final MemorySegment cbuf;
    private final Lmr slmr;
    private final Lmr clmr;
    private final Endpoint[] ceps;
    private final Endpoint[] seps;
    private int round;

    /** Opens both IAs as {@code iaName} and connects {@code n} EP pairs (all ESTABLISHED on both sides). */
    public ManyConnections(String iaName, int n) {
        this.n = n;
        server = InterfaceAdapter.open(iaName, 4, null);
        client = InterfaceAdapter.open(iaName, 4, null);
        ProtectionZone spz = ProtectionZone.create(server);
        ProtectionZone cpz = ProtectionZone.create(client);
        sdto = EventDispatcher.create(server, 4 * n, null, EvdFlags.DTO);
        cdto = EventDispatcher.create(client, 4 * n, null, EvdFlags.DTO);
        EventDispatcher sconn = EventDispatcher.create(server, 2 * n, null, EvdFlags.CONNECTION);
        EventDispatcher cconn = EventDispatcher.create(client, 2 * n, null, EvdFlags.CONNECTION);
        EventDispatcher crEvd = EventDispatcher.create(server, 2 * n, null, EvdFlags.CR);
        sbuf = arena.allocate(n * SLOT, 256);
        cbuf = arena.allocate(n * SLOT, 256);
        slmr = Lmr.create(server, MemType.VIRTUAL, RegionDescription.forVa(sbuf), sbuf.byteSize(), spz, MemPriv.ALL);
        clmr = Lmr.create(client, MemType.VIRTUAL, RegionDescription.forVa(cbuf), cbuf.byteSize(), cpz, MemPriv.ALL);
        PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
        SocketAddress to = server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        ceps = new Endpoint[n];
        for (int i = 0; i < n; i++) {
            ceps[i] = Endpoint.create(client, cpz, cdto, cdto, cconn, null);
            postRecv(i);
            ceps[i].connect(to, psp.connQual(), 60_000_000, 0, null, Qos.BEST_EFFORT, 0);
        }
        seps = new Endpoint[n];
        DatEvent e = new DatEvent();
        int accepted = 0;
        int upServer = 0;
        int upClient = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while ((upServer < n || upClient < n) && System.nanoTime() < deadline) {
            if (crEvd.dequeue(e)) {
                seps[accepted] = Endpoint.create(server, spz, sdto, sdto, sconn, null);
                e.cr().accept(seps[accepted++], 0, null);
            } else if (sconn.dequeue(e)) {
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), "serving side");
                upServer++;
            } else if (cconn.dequeue(e)) {
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), "connecting side");
                upClient++;
            } else {
                Thread.onSpinWait();
            }
        }
        assertTrue(upServer == n && upClient == n, upServer + "/" + upClient + " established");
    }

    private void postRecv(int i) {
        ceps[i].postRecv(1, new LmrTriplet[] {clmr.triplet(i * SLOT, SLOT)}, i, CompletionFlags.DEFAULT);
    }

    /** Every serving EP sends 64 bytes (its index and the round in each byte). */
    public void sendEach() {
        round++;
        for (int i = 0; i < n; i++) {
            sbuf.asSlice(i * SLOT, 64).fill(tag(i));
            seps[i].postSend(1, new LmrTriplet[] {slmr.triplet(i * SLOT, 64)}, 100 + i, CompletionFlags.DEFAULT);
        }
    }

    private byte tag(int i) {
        return (byte) (1 + i + 31 * round);
    }

    /**
     * Polls both IAs' EVDs ({@code dat_evd_dequeue} only) until each connecting EP received this round's message
     * and each send completed, within {@code seconds}; checks each payload and reposts the receives.
     */
    public void receiveEach(int seconds) {
        boolean[] seen = new boolean[n]; // the serving EPs whose message arrived: each pairs with one client EP
        int received = 0;
        int sent = 0;
        DatEvent e = new DatEvent();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while ((received < n || sent < n) && System.nanoTime() < deadline) {
            if (cdto.dequeue(e)) {
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "receive " + e);
                assertEquals(64, e.transferredLength());
                int i = (int) e.userCookie();
                byte b = cbuf.get(ValueLayout.JAVA_BYTE, i * SLOT + 63);
                int from = -1;
                for (int k = 0; k < n; k++) {
                    if (tag(k) == b && !seen[k]) {
                        from = k;
                    }
                }
                assertTrue(from >= 0, "payload " + b + " on client EP " + i);
                assertEquals(b, cbuf.get(ValueLayout.JAVA_BYTE, i * SLOT), "first byte on client EP " + i);
                seen[from] = true;
                received++;
                postRecv(i);
            } else if (sdto.dequeue(e)) {
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "send " + e);
                sent++;
            } else {
                Thread.onSpinWait();
            }
        }
        assertEquals(n, received, "receives completed by polling");
        assertEquals(n, sent, "sends completed");
    }

    @Override
    public void close() {
        try {
            client.close(CloseFlags.ABRUPT);
        } finally {
            try {
                server.close(CloseFlags.ABRUPT);
            } finally {
                arena.close();
            }
        }
    }
}
