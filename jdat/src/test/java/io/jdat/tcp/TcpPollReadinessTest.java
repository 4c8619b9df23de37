package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A consumer's poll on a {@code tcp} IA with many connections visits only the ready ones (issue 18): an empty
 * {@code dat_evd_dequeue} asks the selector once and reads no socket (it read every connection's socket before,
 * one system call each: 5 ms at 1024 connections), and what arrives on any connection is still received by the
 * polling consumer. Counted with {@link TcpProgress#consumerVisits}, not timed.
 */
class TcpPollReadinessTest {
    private static final int N = 16;
    private static final int SLOT = 256;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    @DisplayName("EVQ-01, SND-01: with 16 idle connections an empty dat_evd_dequeue visits none; a Send on each arrives")
    void emptyPollVisitsNoConnection() {
        InterfaceAdapter server = InterfaceAdapter.open(TcpTesting.LO, 4, null);
        InterfaceAdapter client = InterfaceAdapter.open(TcpTesting.LO, 4, null);
        try (Arena arena = Arena.ofShared()) {
            ProtectionZone spz = ProtectionZone.create(server);
            ProtectionZone cpz = ProtectionZone.create(client);
            EventDispatcher sdto = EventDispatcher.create(server, 4 * N, null, EvdFlags.DTO);
            EventDispatcher cdto = EventDispatcher.create(client, 4 * N, null, EvdFlags.DTO);
            EventDispatcher sconn = EventDispatcher.create(server, 2 * N, null, EvdFlags.CONNECTION);
            EventDispatcher cconn = EventDispatcher.create(client, 2 * N, null, EvdFlags.CONNECTION);
            EventDispatcher crEvd = EventDispatcher.create(server, 2 * N, null, EvdFlags.CR);
            MemorySegment sbuf = arena.allocate(N * SLOT, 256);
            MemorySegment cbuf = arena.allocate(N * SLOT, 256);
            Lmr slmr = Lmr.create(server, MemType.VIRTUAL, RegionDescription.forVa(sbuf), sbuf.byteSize(), spz,
                    MemPriv.ALL);
            Lmr clmr = Lmr.create(client, MemType.VIRTUAL, RegionDescription.forVa(cbuf), cbuf.byteSize(), cpz,
                    MemPriv.ALL);
            PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
            SocketAddress to = server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            Endpoint[] ceps = new Endpoint[N];
            for (int i = 0; i < N; i++) {
                ceps[i] = Endpoint.create(client, cpz, cdto, cdto, cconn, null);
                ceps[i].postRecv(1, new LmrTriplet[] {clmr.triplet(i * SLOT, SLOT)}, i, CompletionFlags.DEFAULT);
                ceps[i].connect(to, psp.connQual(), 60_000_000, 0, null, Qos.BEST_EFFORT, 0);
            }
            Endpoint[] seps = new Endpoint[N];
            DatEvent e = new DatEvent();
            int accepted = 0;
            int upServer = 0;
            int upClient = 0;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while ((upServer < N || upClient < N) && System.nanoTime() < deadline) {
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
            assertTrue(upServer == N && upClient == N, upServer + "/" + upClient + " established");

            // one Send on every connection, received by a consumer that only polls (dat_evd_dequeue)
            for (int i = 0; i < N; i++) {
                sbuf.asSlice(i * SLOT, 64).fill((byte) (i + 1));
                seps[i].postSend(1, new LmrTriplet[] {slmr.triplet(i * SLOT, 64)}, 100 + i,
                        CompletionFlags.DEFAULT);
            }
            int received = 0;
            int sent = 0;
            boolean[] seen = new boolean[N + 1]; // the server's i-th EP sends bytes i + 1, whichever client EP it got
            deadline = System.nanoTime() + 30_000_000_000L;
            while ((received < N || sent < N) && System.nanoTime() < deadline) {
                if (cdto.dequeue(e)) {
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "receive " + e);
                    assertEquals(64, e.transferredLength());
                    int i = (int) e.userCookie();
                    int b = cbuf.get(ValueLayout.JAVA_BYTE, i * SLOT + 63);
                    assertTrue(b >= 1 && b <= N && !seen[b], "payload " + b + " on client EP " + i);
                    assertEquals(b, cbuf.get(ValueLayout.JAVA_BYTE, i * SLOT), "first byte of " + i);
                    seen[b] = true;
                    received++;
                } else if (sdto.dequeue(e)) {
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "send " + e);
                    sent++;
                } else {
                    Thread.onSpinWait();
                }
            }
            assertEquals(N, received, "receives completed by polling");
            assertEquals(N, sent, "sends completed");

            // every connection idle now: an empty poll reads no socket
            long before = TcpProgress.consumerVisits;
            for (int k = 0; k < 1000; k++) {
                assertFalse(cdto.dequeue(e), "an event on an idle IA: " + e);
            }
            assertEquals(0, TcpProgress.consumerVisits - before,
                    "connections visited by 1000 empty polls of an IA with " + N + " idle connections");
        } finally {
            client.close(CloseFlags.ABRUPT);
            server.close(CloseFlags.ABRUPT);
        }
    }
}
