package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RegionDescription;
import io.jdat.testing.Pair;
import io.jdat.testing.net.ChildJvm;
import java.lang.foreign.MemorySegment;
import java.net.UnixDomainSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 18 item 1: ring format v4 (the consumer's position rides on its records, head is stored one pass late)
 * must not lose a completion or deliver one twice when a connection ends in the middle of a dense two-way stream
 * of Sends, RDMA Writes and RDMA Reads (64 B inline, 3000 B, 24 KiB past the inline size). Both sides stream at
 * once ({@link StreamEnd}, one thread each); one side ends the connection after a number of completions that
 * varies per run; then both drain their EVDs.
 *
 * <p>On every side that survives: each request and receive it posted completes exactly once (a completion of a
 * cookie that is not outstanding fails), in posting order (SND-12), successfully or flushed (DSC-03, DSC-04,
 * DSC-17), never a success after a failure on the same queue (DSC-05); the connection ends with one event
 * (DSC-11, DSC-17, RWR-09). Across the two: a Send that completed at its sender was received, each Send is
 * received at most once and in order (SND-09, SND-12), a Write that completed is in the target's memory (RWR-02),
 * a Read that completed has its bytes (RDR). A graceful disconnect lets every request posted before it succeed
 * (DSC-06). A refused RDMA Write (a context the target never gave) fails alone with
 * {@code DAT_DTO_ERR_REMOTE_ACCESS}: every request before it succeeds (the target handled them: their position
 * reaches the requester although head is stored late), every one after it is flushed (RWR-09, DSC-05).
 */
class ShmStreamEndingTest {
    /** How long a side may take to drain after the ending. */
    private static final long DRAIN_NANOS = 20_000_000_000L;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    /** The EP attributes both sides use. */
    static EpAttr attr() {
        return new EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(StreamEnd.RECEIVES + 4)
                .maxRequestDtos(StreamEnd.WINDOW + 4).maxRecvIov(1).maxRequestIov(1).maxRdmaReadIov(1)
                .maxRdmaWriteIov(1).maxRdmaReadIn(StreamEnd.READS).maxRdmaReadOut(StreamEnd.READS);
    }

    enum Ending {
        CLIENT_GRACEFUL, CLIENT_ABRUPT, SERVER_GRACEFUL, SERVER_ABRUPT, SERVER_IA_CLOSE, CLIENT_REFUSED_WRITE
    }

    static List<Arguments> cases() {
        List<Arguments> a = new ArrayList<>();
        for (String ia : new String[] {ShmTesting.SHM, ShmTesting.SHM_SMALL}) {
            for (Ending e : Ending.values()) {
                for (int at : new int[] {40, 1500}) {
                    a.add(Arguments.of(ia, e, at));
                }
            }
        }
        return a;
    }

    private record Side(Pair.Side side, StreamEnd stream) {
    }

    private static StreamEnd stream(String name, Pair.Side s) {
        MemorySegment buf = s.arena.allocate(StreamEnd.BYTES, 4096);
        Lmr lmr = Lmr.create(s.ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), s.pz, MemPriv.ALL);
        return new StreamEnd(name, s.ep, s.recvEvd, s.reqEvd, s.connEvd, lmr, buf);
    }

    @ParameterizedTest(name = "{0} {1} after {2}")
    @MethodSource("cases")
    @DisplayName("DSC-03 DSC-04 DSC-05 DSC-06 DSC-11 DSC-17 SND-09 SND-12 RWR-02 RWR-09: a connection ended in the"
            + " middle of a two-way stream of Sends, Writes and Reads: every DTO completes exactly once, in order")
    void endingInTheMiddleOfAStreamCompletesEveryDtoOnce(String ia, Ending ending, int at) throws Exception {
        Pair p = new Pair(ia, attr(), 256);
        try {
            StreamEnd client = stream("client", p.client);
            StreamEnd server = stream("server", p.server);
            client.peer(server.writeArea(), server.readSource());
            server.peer(client.writeArea(), client.readSource());
            client.postReceives();
            server.postReceives();
            if (ending == Ending.CLIENT_REFUSED_WRITE) {
                client.badWriteAt = at + 1 + (at % 3 == 1 ? 0 : (at % 3 == 0 ? 1 : 2)); // a Write: index % 3 == 1
                client.badWriteAt -= (client.badWriteAt % 3) - 1;
            }
            p.connect();
            boolean clientEnds = ending == Ending.CLIENT_GRACEFUL || ending == Ending.CLIENT_ABRUPT;
            boolean iaClosed = ending == Ending.SERVER_IA_CLOSE;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread serverThread = Thread.ofPlatform().name("stream-server").start(() -> {
                try {
                    drive(server, clientEnds || ending == Ending.CLIENT_REFUSED_WRITE ? null : ending, at, p.server);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            try {
                drive(client, clientEnds ? ending : null, at, p.client);
            } finally {
                serverThread.join(DRAIN_NANOS / 1_000_000 + 5000);
            }
            if (failure.get() != null) {
                throw new AssertionError("server side", failure.get());
            }
            assertTrue(!serverThread.isAlive(), "the server's stream ended: " + server.pending());
            // late duplicates: nothing more may come
            long quiet = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < quiet) {
                client.step(n -> { });
                if (!iaClosed) {
                    server.step(n -> { });
                }
            }
            List<String> errors = new ArrayList<>(client.errors);
            if (!iaClosed) {
                errors.addAll(server.errors);
                client.checkWritesLanded(server);
                server.checkWritesLanded(client);
                errors.addAll(client.errors);
                errors.addAll(server.errors);
            }
            assertEquals(List.of(), errors.stream().distinct().toList(), client + "; " + server);
            assertTrue(client.requestsOk > 0 && client.receivesOk > 0, "the client streamed: " + client);
            EventNumber expected = ending == Ending.CLIENT_REFUSED_WRITE || iaClosed
                    ? EventNumber.CONNECTION_EVENT_BROKEN : EventNumber.CONNECTION_EVENT_DISCONNECTED;
            assertEquals(expected, client.ended, "the client's ending");
            if (!iaClosed) {
                assertEquals(expected, server.ended, "the server's ending");
                // a Send completes at its sender only once placed at the receiver, received once each, in order
                assertTrue(client.sendsOk <= server.sendsReceived(), "client Sends completed " + client.sendsOk
                        + ", received by the server " + server.sendsReceived());
                assertTrue(server.sendsOk <= client.sendsReceived(), "server Sends completed " + server.sendsOk
                        + ", received by the client " + client.sendsReceived());
            }
            switch (ending) {
                case CLIENT_GRACEFUL -> assertEquals(0, client.requestsFlushed + client.failures.size(),
                        "DSC-06: the graceful closer's requests finish successfully: " + client);
                case SERVER_GRACEFUL -> assertEquals(0, server.requestsFlushed + server.failures.size(),
                        "DSC-06: the graceful closer's requests finish successfully: " + server);
                case CLIENT_REFUSED_WRITE -> {
                    assertEquals(Map.of(client.badWriteCookie, DtoCompletionStatus.ERR_REMOTE_ACCESS), client.failures,
                            "RWR-09: the refused Write alone fails: " + client);
                    assertEquals(client.badWriteCookie, client.firstFailedRequest,
                            "every request before the refused Write succeeded: " + client);
                }
                default -> {
                    assertEquals(Map.of(), client.failures, "only successes and flushes: " + client);
                    if (!iaClosed) {
                        assertEquals(Map.of(), server.failures, "only successes and flushes: " + server);
                    }
                }
            }
        } finally {
            close(p);
        }
    }

    /** Closes {@code p}'s IAs (the one a case closed already is skipped) and arenas. */
    private static void close(Pair p) {
        for (Pair.Side s : new Pair.Side[] {p.client, p.server}) {
            try {
                s.ia.close(CloseFlags.ABRUPT);
            } catch (io.jdat.DatException e) {
                // closed by the case (SERVER_IA_CLOSE)
            }
            s.arena.close();
        }
    }

    /** Streams on {@code s} until its connection ended and everything completed; ends it with {@code ending}. */
    private static void drive(StreamEnd s, Ending ending, int at, Pair.Side side) {
        boolean[] fired = {false};
        boolean[] reached = {false};
        long deadline = System.nanoTime() + 60_000_000_000L;
        long drainBy = Long.MAX_VALUE;
        while (!s.done()) {
            s.step(n -> {
                if (n >= at) {
                    reached[0] = true;
                }
            });
            // End in the middle of a two-way stream: after `at` completions and once a receive completed here too
            // (a small ring can let one side's first 40 requests complete before the peer's first Send arrives).
            if (ending != null && !fired[0] && reached[0] && s.receivesOk > 0) {
                fired[0] = true;
                switch (ending) {
                    case CLIENT_GRACEFUL, SERVER_GRACEFUL -> s.disconnect(true);
                    case CLIENT_ABRUPT, SERVER_ABRUPT -> s.disconnect(false);
                    case SERVER_IA_CLOSE -> {
                        s.stopPosting();
                        side.ia.close(CloseFlags.ABRUPT);
                        return;
                    }
                    default -> { }
                }
            }
            if (s.ended != null && drainBy == Long.MAX_VALUE) {
                drainBy = System.nanoTime() + DRAIN_NANOS;
            }
            long now = System.nanoTime();
            if (now > drainBy || now > deadline) {
                throw new AssertionError("not drained: " + s.pending());
            }
        }
    }

    @Test
    @DisplayName("DSC-03 DSC-04 DSC-05 SND-12: the peer process SIGKILLed in the middle of a two-way stream: every DTO"
            + " of the survivor completes exactly once, in order, successfully or flushed, and the EP sees BROKEN")
    void peerKilledInTheMiddleOfAStreamCompletesEveryDtoOnce() throws Exception {
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 256)) {
            StreamEnd server = stream("server", p.server);
            server.postReceives();
            PublicServicePoint psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            String dir = ((UnixDomainSocketAddress) p.serverAddress()).getPath().toString();
            try (ChildJvm child = ChildJvm.start("stream-peer", StreamPeerMain.class, ShmTesting.SHM, dir,
                    Long.toString(psp.connQual()))) {
                DatEvent cr = new DatEvent();
                // a child JVM starts in seconds, more on a loaded machine
                assertTrue(p.crEvd.waitFor(60_000_000, 1, cr), "the child's connection request within 60 s");
                assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
                ConnectionRequest req = cr.cr();
                server.peer(req.query(io.jdat.CrParam.FIELD_ALL).privateData());
                byte[] mine = server.privateData();
                req.accept(p.server.ep, mine.length, mine);
                p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                child.awaitLine(l -> l.startsWith("CONNECTED"), Duration.ofSeconds(30));
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (server.completions < 3000) {
                    server.step(n -> { });
                    assertTrue(System.nanoTime() < deadline && server.ended == null, "streaming: " + server);
                }
                child.kill();
                long drainBy = System.nanoTime() + DRAIN_NANOS;
                while (!server.done()) {
                    server.step(n -> { });
                    assertTrue(System.nanoTime() < drainBy, "drained after the kill: " + server.pending());
                }
                long quiet = System.nanoTime() + 200_000_000L;
                while (System.nanoTime() < quiet) {
                    server.step(n -> { });
                }
                assertEquals(List.of(), server.errors, server.toString());
                assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, server.ended, server.toString());
                assertEquals(Map.of(), server.failures, "only successes and flushes: " + server);
                assertTrue(server.requestsOk > 0 && server.receivesOk > 0, server.toString());
            }
        }
    }
}
