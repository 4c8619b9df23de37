package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14 item 11 on {@code shm}: does a graceful close lose data reported complete? No: an {@code shm}
 * request completes only once the peer handled its record (placed the Send, moved the RDMA bytes), and a
 * closing side's close state is seen by the peer only after every record it published before. This checks
 * it the way the tcp fault showed: many large RDMA Writes and Sends, the graceful disconnect and the IA close
 * right after the last completion; the peer has every byte and sees DISCONNECTED, not BROKEN.
 */
class ShmGracefulCloseTest {
    private static final int WRITE = 64 * 1024;
    private static final int WRITES = 64;
    private static final int SENDS = 8;
    private static final int SEND = 20_000;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {ShmTesting.SHM, ShmTesting.SHM_BOUNCE})
    @DisplayName("DSC-06 DSC-11 DSC-17: 64 RDMA Writes of 64 KiB and 8 Sends all completed, then a graceful"
            + " disconnect and IA close at once: every byte is at the peer, which sees DISCONNECTED")
    void gracefulCloseRightAfterTheLastCompletionLosesNothing(String ia) {
        EpAttr attr = new EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(SENDS + 2)
                .maxRequestDtos(WRITES + SENDS + 2).maxRecvIov(2).maxRequestIov(2).maxRdmaReadIov(2)
                .maxRdmaWriteIov(2).maxRdmaReadIn(2).maxRdmaReadOut(2);
        try (Pair p = new Pair(ia, attr, WRITES + SENDS + 8)) {
            long size = (long) WRITES * WRITE + (long) SENDS * SEND;
            MemorySegment src = p.client.arena.allocate(size, 256);
            MemorySegment dst = p.server.arena.allocate(size, 256);
            DataPath.fill(src, 0, size, 5);
            DataPath.sentinel(dst);
            Lmr cl = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), size, p.client.pz,
                    MemPriv.ALL);
            Lmr sl = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(dst), size, p.server.pz,
                    MemPriv.ALL);
            long sendBase = (long) WRITES * WRITE;
            for (int i = 0; i < SENDS; i++) {
                p.server.ep.postRecv(1, new LmrTriplet[] {sl.triplet(sendBase + (long) i * SEND, SEND)}, 100 + i,
                        CompletionFlags.DEFAULT);
            }
            p.connect();
            for (int i = 0; i < WRITES; i++) {
                p.client.ep.postRdmaWrite(1, new LmrTriplet[] {cl.triplet((long) i * WRITE, WRITE)}, i,
                        sl.remoteTriplet((long) i * WRITE, WRITE), CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < SENDS; i++) {
                p.client.ep.postSend(1, new LmrTriplet[] {cl.triplet(sendBase + (long) i * SEND, SEND)}, 100 + i,
                        CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < WRITES + SENDS; i++) {
                DatEvent e = p.client.next(p.client.reqEvd);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "" + e);
            }
            p.client.ep.disconnect(CloseFlags.GRACEFUL);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.client.ep.free();
            cl.free();
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (int i = 0; i < SENDS; i++) {
                DatEvent e = p.server.next(p.server.recvEvd);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "receive " + i + ": " + e);
                assertEquals(100 + i, e.userCookie());
            }
            DataPath.assertPattern(dst, 0, size, 5, 0, "the server's memory");
        }
    }
}
