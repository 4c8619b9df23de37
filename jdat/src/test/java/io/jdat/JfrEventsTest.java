package io.jdat;

import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR events io.jdat.Connection and io.jdat.DtoCompletion appear in a recording. */
class JfrEventsTest {
    private static final int MIB = 1 << 20;

    @Test
    void connectionEventsAndLargeOrFailedDtosAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("jdat.jfr");
        List<RecordedEvent> events;
        long writeCookie = 0x1A46E;
        try (Recording rec = new Recording()) {
            rec.enable("io.jdat.Connection");
            rec.enable("io.jdat.DtoCompletion");
            rec.start();
            // Shared, not confined: mem may copy on its connection-management thread (a write posted at once
            // after ESTABLISHED), and a confined segment refuses that thread.
            try (Pair p = new Pair().connect(); Arena arena = Arena.ofShared()) {
                MemorySegment src = arena.allocate(2 * MIB, 256);
                MemorySegment dst = arena.allocate(2 * MIB, 256);
                Lmr s = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), 2 * MIB, p.client.pz,
                        MemPriv.ALL);
                Lmr d = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(dst), 2 * MIB, p.server.pz,
                        MemPriv.ALL);
                p.client.ep.postRdmaWrite(1, new LmrTriplet[] {s.triplet(0, 2 * MIB)}, writeCookie,
                        d.remoteTriplet(0, 2 * MIB), CompletionFlags.DEFAULT);
                dtoOk(p.client.reqEvd, writeCookie, 2 * MIB);
                // a small send is below the threshold
                p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
                dtoOk(p.client.reqEvd, 2, 64);
                dtoOk(p.server.recvEvd, 1, 64);
                // a message longer than the receive buffer: both completions fail, the connection breaks
                p.server.ep.postRecv(1, iov(p.server.lmr, 0, 32), 3, CompletionFlags.DEFAULT);
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 4, CompletionFlags.DEFAULT);
                dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 3);
                p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
                p.server.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            }
            try (Pair p = new Pair()) {
                p.client.ep.connect(Pair.address(), Pair.freshQual(), 1_000_000, 0, null, Qos.BEST_EFFORT, 0);
                p.client.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            }
            rec.stop();
            rec.dump(file);
        }
        events = RecordingFile.readAllEvents(file);
        List<String> conn = events.stream().filter(e -> e.getEventType().getName().equals("io.jdat.Connection"))
                .map(e -> e.getString("event")).toList();
        assertEquals(2, conn.stream().filter("DAT_CONNECTION_EVENT_ESTABLISHED"::equals).count(), conn::toString);
        assertEquals(2, conn.stream().filter("DAT_CONNECTION_EVENT_BROKEN"::equals).count(), conn::toString);
        assertEquals(1, conn.stream().filter("DAT_CONNECTION_EVENT_NON_PEER_REJECTED"::equals).count(), conn::toString);
        RecordedEvent established = events.stream().filter(e -> e.getEventType().getName().equals("io.jdat.Connection"))
                .findFirst().orElseThrow();
        assertEquals("mem", established.getString("ia"));

        List<RecordedEvent> dtos = events.stream()
                .filter(e -> e.getEventType().getName().equals("io.jdat.DtoCompletion")).toList();
        assertTrue(dtos.stream().anyMatch(e -> e.getLong("cookie") == writeCookie
                && "RDMA_WRITE".equals(e.getString("operation")) && "SUCCESS".equals(e.getString("status"))
                && e.getLong("length") == 2 * MIB), dtos::toString);
        // the request's post-to-completion time (JFR reserves "duration" for the event's own)
        RecordedEvent write = dtos.stream().filter(e -> e.getLong("cookie") == writeCookie).findFirst().orElseThrow();
        java.time.Duration took = write.getDuration("postToCompletion");
        assertTrue(took.toNanos() > 0 && took.toSeconds() < 60, "postToCompletion " + took);
        assertTrue(dtos.stream().anyMatch(e -> e.getLong("cookie") == 3 && "RECV".equals(e.getString("operation"))
                && "ERR_LOCAL_LENGTH".equals(e.getString("status"))), dtos::toString);
        assertTrue(dtos.stream().anyMatch(e -> e.getLong("cookie") == 4 && "SEND".equals(e.getString("operation"))
                && !"SUCCESS".equals(e.getString("status"))), dtos::toString);
        assertTrue(dtos.stream().noneMatch(e -> e.getLong("cookie") == 2 || e.getLong("cookie") == 1),
                "a 64-byte DTO was recorded: " + dtos);
    }
}
