package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.testing.net.ChildJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Shared Receive Queue fed from another process: this JVM's EPs share one SRQ with fewer buffers than the
 * messages in flight, a child JVM ({@link SrqSenderMain}) sends on every EP at once, and every message must
 * land exactly once, in order per connection, with its exact length and bytes, the buffers going back onto the
 * SRQ as they are consumed. On {@code shm} (two processes on one host) and {@code tcp} over loopback.
 */
class SrqCrossProcessTest {
    private static final int EPS = 6;
    private static final int PER_EP = 3000;
    private static final int BUFFERS = 48;
    private static final int MAX = SrqSenderMain.MAX;
    private static final int WAIT = 30_000_000;
    private static final Pattern CONNECTED = Pattern.compile("^CONNECTED \\d+$");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {io.jdat.shm.ShmTesting.SHM, io.jdat.tcp.TcpTesting.LO})
    @DisplayName("SRQ-03 SRQ-04 SRQ-24 SPR-02 SPR-04: two JVMs: 6 EPs of one SRQ of 48 buffers take 18 000 sends of"
            + " 8-512 B from another process: each exactly once, in order per connection, exact length and bytes;"
            + " every buffer back on the SRQ at the end")
    void srqFedFromAnotherProcess(String iaName) throws Exception {
        io.jdat.shm.ShmTesting.register();
        io.jdat.tcp.TcpTesting.register();
        try (InterfaceAdapter ia = InterfaceAdapter.open(iaName, 64, null); Arena arena = Arena.ofShared()) {
            ProtectionZone pz = ProtectionZone.create(ia);
            SharedReceiveQueue srq = SharedReceiveQueue.create(ia, pz, new SrqAttr(BUFFERS, 1, Dat.SRQ_LW_DEFAULT));
            MemorySegment buf = arena.allocate((long) BUFFERS * MAX, 64);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            EventDispatcher recv = EventDispatcher.create(ia, 4 * BUFFERS, null, EvdFlags.DTO);
            EventDispatcher crEvd = EventDispatcher.create(ia, 2 * EPS, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
            Endpoint[] ep = new Endpoint[EPS];
            EventDispatcher[] conn = new EventDispatcher[EPS];
            Map<Endpoint, Integer> index = new IdentityHashMap<>();
            for (int i = 0; i < EPS; i++) {
                conn[i] = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
                ep[i] = Endpoint.createWithSrq(ia, pz, recv, EventDispatcher.create(ia, 16, null, EvdFlags.DTO),
                        conn[i], srq, io.jdat.testing.DataPath.attr());
                index.put(ep[i], i);
            }
            LmrTriplet[] iov = new LmrTriplet[1];
            for (int b = 0; b < BUFFERS; b++) {
                iov[0] = lmr.triplet((long) b * MAX, MAX);
                srq.postRecv(1, iov, b);
            }
            java.net.SocketAddress addr = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            String where = addr instanceof UnixDomainSocketAddress u ? u.getPath().toString() : "127.0.0.1";
            try (ChildJvm child = ChildJvm.start("srq-sender", SrqSenderMain.class, Map.of(),
                    List.of(iaName, where, Long.toString(psp.connQual()), Integer.toString(EPS),
                            Integer.toString(PER_EP)))) {
                DatEvent e = new DatEvent();
                for (int n = 0; n < EPS; n++) {
                    assertTrue(crEvd.waitFor(WAIT, 1, e), "connection request " + n);
                    ConnectionRequest cr = e.cr();
                    int i = ByteBuffer.wrap(cr.query(CrParam.FIELD_ALL).privateData()).getInt();
                    cr.accept(ep[i], 0, null);
                }
                for (int i = 0; i < EPS; i++) {
                    assertTrue(conn[i].waitFor(WAIT, 1, e), "EP " + i + " connection event");
                    assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), "EP " + i + ": " + e);
                }
                child.awaitLine(CONNECTED, Duration.ofSeconds(30));
                int[] next = new int[EPS];
                for (int n = 0; n < EPS * PER_EP; n++) {
                    if (!recv.waitFor(WAIT, 1, e)) {
                        fail("no receive completion within 30 s after " + n);
                    }
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status(), () -> "receive " + e);
                    Integer i = index.get(e.ep());
                    assertTrue(i != null, () -> "completion of an unknown EP: " + e);
                    long b = e.userCookie();
                    assertTrue(b >= 0 && b < BUFFERS, () -> "cookie " + e.userCookie());
                    long at = b * MAX;
                    int seq = next[i];
                    assertEquals(i, buf.get(ValueLayout.JAVA_INT_UNALIGNED, at), "sender EP of the message");
                    assertEquals(seq, buf.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4), "EP " + i + " order");
                    int len = SrqSenderMain.length(i, seq);
                    assertEquals(len, e.transferredLength(), "EP " + i + " message " + seq + " length");
                    for (int k = 8; k < len; k++) {
                        if (buf.get(ValueLayout.JAVA_BYTE, at + k) != SrqSenderMain.body(i, seq, k)) {
                            fail("EP " + i + " message " + seq + ": byte " + k + " differs");
                        }
                    }
                    next[i]++;
                    buf.asSlice(at, MAX).fill((byte) 0); // a stale byte cannot pass for the next message
                    iov[0] = lmr.triplet(at, MAX);
                    srq.postRecv(1, iov, b);
                }
                child.awaitLine(l -> l.startsWith("SENT "), Duration.ofSeconds(30));
                for (int i = 0; i < EPS; i++) {
                    assertEquals(PER_EP, next[i], "messages of EP " + i);
                    ep[i].disconnect(CloseFlags.GRACEFUL);
                    assertTrue(conn[i].waitFor(WAIT, 1, e), "EP " + i + " disconnect");
                    assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, e.eventNumber(), "EP " + i + ": " + e);
                    assertSame(ep[i], e.ep());
                }
                child.awaitLine(l -> l.equals("DONE"), Duration.ofSeconds(30));
                assertEquals(0, child.waitFor(Duration.ofSeconds(30)), "sender exit code");
            }
            SrqParam p = srq.query(SrqParam.FIELD_ALL);
            assertEquals(BUFFERS, p.availableDtoCount(), "every buffer back on the SRQ");
            assertTrue(!recv.dequeue(new DatEvent()), "no receive completion left over");
        }
    }
}
