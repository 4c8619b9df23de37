package io.jdat.shm;

import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A hostile peer: the test maps a live connection's file a third time and writes random bytes into a part of
 * it (a ring's data or header, a status block, a staging area) while both sides move data. Each side must
 * either go on correctly (the garbage landed where nothing reads it any more) or break the connection with
 * an error; every completed transfer carries the right bytes, nothing outside the transfer windows of the
 * registered memory changes, nothing hangs, and the JVM survives to connect again.
 */
@ExtendWith(ShmTesting.KeepConnectionFiles.class)
class ShmHostileTest {
    private static final int ROUNDS = 60;
    private static final long WAIT_NANOS = 10_000_000_000L;

    /** Where the garbage goes, as {offset, length} in the connection file. */
    private static long[] target(int kind, int ring, int staging, SplittableRandom rnd) {
        long ringLen = ConnectionLayout.ringLength(ring);
        return switch (kind) {
            case 0 -> new long[] {ConnectionLayout.ringOffset(ring, false) + RingDescriptor.HEADER_LENGTH, ring};
            case 1 -> new long[] {ConnectionLayout.ringOffset(ring, true) + RingDescriptor.HEADER_LENGTH, ring};
            case 2 -> new long[] {ConnectionLayout.ringOffset(ring, rnd.nextBoolean()), RingDescriptor.HEADER_LENGTH};
            case 3 -> new long[] {ConnectionLayout.blockOffset(rnd.nextBoolean()), ConnectionLayout.BLOCK_LENGTH};
            case 4 -> new long[] {ConnectionLayout.stagingOffset(ring, staging, rnd.nextBoolean()), staging};
            default -> new long[] {0, ConnectionLayout.RINGS + 2 * ringLen};
        };
    }

    static Stream<String> ias() {
        return Stream.of(ShmTesting.SHM, ShmTesting.SHM_BOUNCE);
    }

    @Test
    @DisplayName("random bytes written into a live mapping break the connection or are harmless; data is right,"
            + " registered memory outside the windows untouched, no hang")
    void garbageIntoLiveMapping() throws IOException {
        SplittableRandom rnd = new SplittableRandom(0x5eed);
        Map<String, Integer> outcomes = new HashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            String ia = round % 2 == 0 ? ShmTesting.SHM : ShmTesting.SHM_BOUNCE;
            int kind = round % 6;
            String outcome = round(ia, kind, rnd, round);
            outcomes.merge(kind + ":" + outcome, 1, Integer::sum);
        }
        System.out.println("garbageIntoLiveMapping (kind:outcome=count): " + outcomes);
        // The JVM and the provider still work.
        try (Pair p = new Pair(ShmTesting.SHM, null, 16).connect()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
            p.client.expectDto(p.client.reqEvd, 2);
            p.server.expectDto(p.server.recvEvd, 1);
        }
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.endsWith("broken")), "some garbage broke: " + outcomes);
    }

    @Test
    @DisplayName("a peer truncates the connection file under a live connection (SIGBUS on the next access, raised"
            + " late by compiled code): that connection breaks at both ends and every DTO completes; another"
            + " connection between the same IAs goes on; the JVM survives")
    void truncatedConnectionFile() throws IOException {
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect()) {
            // A second connection between the same two IAs, the other way round (its connection file lives in
            // the server IA's directory, so the client's holds only the first one's).
            EventDispatcher crEvd = EventDispatcher.create(p.client.ia, 4, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.createAny(p.client.ia, crEvd, PspFlags.CONSUMER);
            EventDispatcher aDto = EventDispatcher.create(p.server.ia, 64, null, EvdFlags.DTO);
            EventDispatcher aConn = EventDispatcher.create(p.server.ia, 4, null, EvdFlags.CONNECTION);
            EventDispatcher bDto = EventDispatcher.create(p.client.ia, 64, null, EvdFlags.DTO);
            EventDispatcher bConn = EventDispatcher.create(p.client.ia, 4, null, EvdFlags.CONNECTION);
            Endpoint a = Endpoint.create(p.server.ia, p.server.pz, aDto, aDto, aConn, DataPath.attr());
            Endpoint b = Endpoint.create(p.client.ia, p.client.pz, bDto, bDto, bConn, DataPath.attr());
            a.connect(p.client.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), 5_000_000, 0,
                    null, Qos.BEST_EFFORT, 0);
            p.client.next(crEvd).cr().accept(b, 0, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.server.next(aConn).eventNumber());
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.client.next(bConn).eventNumber());
            // Warm the paths up, so that the fault below is likely to hit compiled code.
            for (int i = 0; i < 20_000; i++) {
                p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
                p.client.expectDto(p.client.reqEvd, 2);
                p.server.expectDto(p.server.recvEvd, 1);
            }
            try (FileChannel ch = FileChannel.open(ShmTesting.connectionFile(p), StandardOpenOption.WRITE)) {
                ch.truncate(4096); // keeps the header and the status blocks, drops the rings
            }
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
            DatEvent e = p.client.next(p.client.reqEvd);
            assertEquals(2, e.userCookie());
            assertTrue(e.status() != DtoCompletionStatus.SUCCESS, e.toString());
            p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            DatEvent r = p.server.next(p.server.recvEvd);
            assertEquals(DtoCompletionStatus.ERR_FLUSHED, r.status(), r.toString());
            p.server.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            // The other connection of the same IAs still carries data both ways.
            for (int i = 0; i < 100; i++) {
                b.postRecv(1, iov(p.client.lmr, 4096, 64), 3, CompletionFlags.DEFAULT);
                a.postSend(1, iov(p.server.lmr, 4096, 64), 4, CompletionFlags.DEFAULT);
                a.postRecv(1, iov(p.server.lmr, 8192, 64), 5, CompletionFlags.DEFAULT);
                b.postSend(1, iov(p.client.lmr, 8192, 64), 6, CompletionFlags.DEFAULT);
                for (int k = 0; k < 2; k++) {
                    DatEvent x = p.server.next(aDto);
                    assertEquals(DtoCompletionStatus.SUCCESS, x.status(), x.toString());
                    DatEvent y = p.client.next(bDto);
                    assertEquals(DtoCompletionStatus.SUCCESS, y.status(), y.toString());
                }
            }
            assertTrue(!aConn.dequeue(new DatEvent()) && !bConn.dequeue(new DatEvent()), "the other connection broke");
        }
        try (Pair p = new Pair(ShmTesting.SHM, null, 16).connect()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
            p.server.expectDto(p.server.recvEvd, 1);
        }
    }

    private static String round(String ia, int kind, SplittableRandom rnd, int round) throws IOException {
        try (Pair p = new Pair(ia, null, 64).connect(); Arena arena = Arena.ofShared()) {
            MemorySegment map = ShmTesting.mapConnectionFile(p, arena);
            int ring = map.get(ValueLayout.JAVA_INT, ConnectionLayout.RING_CAPACITY_OFFSET);
            int staging = map.get(ValueLayout.JAVA_INT, ConnectionLayout.STAGING_SIZE_OFFSET);
            // Windows: client [0, 8K) sources and [16K, 24K) read sink; server [0, 4K) recv, [8K, 12K) write target,
            // [32K, 40K) read source. Everything else stays sentinel.
            MemorySegment c = p.client.buf;
            MemorySegment s = p.server.buf;
            sentinel(c);
            sentinel(s);
            fill(c, 0, 8192, round);
            fill(s, 32768, 8192, round + 1000);
            long[] where = target(kind, ring, staging, rnd);
            long n = Math.max(1, where[1] / (1 + rnd.nextInt(8)));
            long at = where[0] + (rnd.nextLong(Math.max(1, where[1] - n)) & -8L);
            for (long k = 0; k < n; k += 8) {
                map.set(ValueLayout.JAVA_LONG_UNALIGNED, at + k, rnd.nextLong());
            }
            // Traffic both ways: a send up, an RDMA Write, an RDMA Read, a send down.
            int len = 1 + rnd.nextInt(4000);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 4096), 1, CompletionFlags.DEFAULT);
            p.client.ep.postRecv(1, iov(p.client.lmr, 8192, 4096), 2, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, len), 3, CompletionFlags.DEFAULT);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 4096), 4, p.server.lmr.remoteTriplet(8192, 4096),
                    CompletionFlags.DEFAULT);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 16384, 8192), 5, p.server.lmr.remoteTriplet(32768, 8192),
                    CompletionFlags.DEFAULT);
            p.server.ep.postSend(1, iov(p.server.lmr, 32768, 100), 6, CompletionFlags.DEFAULT);
            Map<Long, DtoCompletionStatus> done = new HashMap<>();
            boolean broken = false;
            long deadline = System.nanoTime() + WAIT_NANOS;
            DatEvent e = new DatEvent();
            EventDispatcher[] evds = {p.client.reqEvd, p.client.recvEvd, p.server.reqEvd, p.server.recvEvd,
                    p.client.connEvd, p.server.connEvd};
            while (done.size() < 6 && System.nanoTime() < deadline) {
                boolean any = false;
                for (EventDispatcher evd : evds) {
                    while (evd.dequeue(e)) {
                        any = true;
                        if (e.eventNumber() == EventNumber.DTO_COMPLETION_EVENT) {
                            done.put(e.userCookie(), e.status());
                        } else {
                            assertTrue(e.eventNumber() == EventNumber.CONNECTION_EVENT_BROKEN
                                    || e.eventNumber() == EventNumber.CONNECTION_EVENT_DISCONNECTED, e.toString());
                            broken = true;
                        }
                    }
                }
                if (!any) {
                    Thread.onSpinWait();
                }
            }
            assertEquals(6, done.size(), "round " + round + " (" + ia + ", kind " + kind + "): every DTO completes,"
                    + " got " + done + ", broken " + broken);
            // What succeeded carries the right bytes.
            if (done.get(1L) == DtoCompletionStatus.SUCCESS) {
                assertPattern(s, 0, len, round, 0, "round " + round + " send up");
            }
            if (done.get(4L) == DtoCompletionStatus.SUCCESS) {
                assertPattern(s, 8192, 4096, round, 0, "round " + round + " write");
            }
            if (done.get(5L) == DtoCompletionStatus.SUCCESS) {
                assertPattern(c, 16384, 8192, round + 1000, 0, "round " + round + " read");
            }
            if (done.get(2L) == DtoCompletionStatus.SUCCESS) {
                assertPattern(c, 8192, 100, round + 1000, 0, "round " + round + " send down");
            }
            assertUntouched(s, 12288, 32768 - 12288, "server between windows");
            assertUntouched(s, 40960, s.byteSize() - 40960, "server after windows");
            assertUntouched(c, 24576, c.byteSize() - 24576, "client after windows");
            assertUntouched(s, 4096, 4096, "server between recv and write windows");
            return broken ? "broken" : done.values().stream().allMatch(st -> st == DtoCompletionStatus.SUCCESS)
                    ? "harmless" : "errors";
        }
    }
}
