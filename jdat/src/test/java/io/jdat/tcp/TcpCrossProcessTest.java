package io.jdat.tcp;

import static io.jdat.tcp.TcpPeerMain.ACTIVE;
import static io.jdat.tcp.TcpPeerMain.PASSIVE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tcp.TcpPeerMain.Conn;
import io.jdat.tcp.TcpPeerMain.Outcome;
import io.jdat.tcp.TcpPeerMain.Peer;
import io.jdat.tcp.TcpPeerMain.S;
import io.jdat.tcp.TcpPeerMain.X;
import io.jdat.testing.net.ChildJvm;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code tcp} provider between two JVMs on 127.0.0.1: this JVM and a child running {@link TcpPeerMain}.
 * Both sides use only the DAT API; they learn each other's LMR coordinates from a DAT send, as DAT programs
 * do, and check every byte against patterns derived from the EP index, the operation and the sender's role.
 *
 * <p>No timing assertions beyond the bounded flush after a SIGKILL; every wait is generous, so only a broken
 * run waits long.
 */
public class TcpCrossProcessTest {
    /** A JVM start on a loaded machine. */
    private static final Duration START = Duration.ofSeconds(30);
    /** A whole run of the child, when this side has already finished its part. */
    private static final Duration RUN = Duration.ofSeconds(60);
    /** The survivor's bound: BROKEN on every EP and every DTO completed, after the SIGKILL. */
    private static final long FLUSH_BOUND_SECONDS = 10;
    private static final int EPS = 8;
    private static final int STREAM_EPS = 4;

    private static final Pattern HELLO = Pattern.compile("^HELLO pid=(\\d+)$");
    private static final Pattern READY = Pattern.compile("^READY port=(\\d+)(?: addr=(\\S+))?$");
    private static final Pattern RESULT = Pattern.compile("^EP (\\d+) (?:OK digest=([0-9a-f]{8})|FAIL (.*))$");
    private static final Pattern DONE = Pattern.compile("^DONE ok=(\\d+) fail=(\\d+)$");
    private static final Pattern STREAMING = Pattern.compile("^STREAM(?:ING ep=(\\d+)$| ep=(\\d+) ENDED (.*))");
    private static final Pattern ERROR = Pattern.compile("^ERROR (.*)$");

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    /** The IA both sides open. */
    protected String ia() {
        return TcpTesting.LO;
    }

    /** A second flavour of the IA, for the run with roles reversed. */
    protected String iaVariant() {
        return TcpTesting.LO_CRC;
    }

    /** The system property of the provider's receiver-not-ready timeout. */
    protected String rnrTimeoutProperty() {
        return "jdat.tcp.rnrTimeoutMillis";
    }

    /** What the child connects to, given this side's IA address. */
    protected String addressOf(java.net.SocketAddress iaAddress) {
        return "127.0.0.1";
    }

    /** Child passive, parent active: 8 EPs at once, every DTO type both ways, graceful disconnect. */
    @Test
    void childListensParentConnectsEightEpsAtOnce() throws Exception {
        parentConnectsToChild(ia(), EPS);
    }

    /** Roles reversed, with MPA CRC32c on both sides. */
    @Test
    void parentListensChildConnectsEightEpsAtOnceWithCrc() throws Exception {
        try (ChildJvm child = startPeer("client", Map.of());
                Peer p = Peer.open(iaVariant(), PASSIVE, EPS, X.SIZE)) {
            int port = p.listen();
            child.writeLine("connect " + iaVariant() + " " + addressOf(p.address()) + " " + port + " " + EPS);
            assertOutcomes(TcpPeerMain.runPassive(p), ACTIVE);
            assertChildOutcomes(child, EPS, PASSIVE);
            p.closeGracefully();
        }
    }

    /**
     * A child streams 1 MiB RDMA Writes and sends into this JVM on four EPs; this side has receives, RDMA
     * Reads and sends outstanding on each. SIGKILL the child: every EP here must see BROKEN and every DTO
     * complete (receives flushed, Reads flushed or failed) within the bound, the IA must then close
     * gracefully, and a fresh IA must work with a fresh child.
     *
     * <p>The streamer posts no receive for our sends, so their bytes wait unread in its socket when it dies
     * and its kernel answers with a reset: an abortive end whatever the instant of the kill. (Had its socket
     * been drained, the kernel would send a FIN after the last bytes written; a FIN that happens to fall
     * between two FPDUs looks exactly like a graceful close, and the survivor reports DISCONNECTED.)
     */
    @Test
    void sigkilledPeerMidTransferBreaksEveryEpAndFlushesEveryDto() throws Exception {
        AtomicBoolean killed = new AtomicBoolean();
        CountDownLatch streaming = new CountDownLatch(STREAM_EPS);
        CountDownLatch ended = new CountDownLatch(STREAM_EPS);
        List<Survivor> survivors = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        // The streamer must not give up on our sends (receiver not ready) while it ignores them.
        try (ChildJvm child = startPeer("streamer", Map.of(rnrTimeoutProperty(), "600000"));
                Peer p = Peer.open(ia(), PASSIVE, STREAM_EPS, S.SIZE)) {
            for (Conn c : p.conns) {
                Survivor s = new Survivor(c, killed, streaming, ended);
                s.prepare();
                survivors.add(s);
            }
            int port = p.listen();
            child.writeLine("stream " + ia() + " " + addressOf(p.address()) + " " + port + " " + STREAM_EPS);
            for (int k = 0; k < STREAM_EPS; k++) {
                Conn c = p.acceptNext();
                threads.add(Thread.ofPlatform().name("survivor-" + c.index).start(survivors.get(c.index)));
            }
            assertTrue(streaming.await(RUN.toSeconds(), TimeUnit.SECONDS), () -> "not streaming: " + survivors);
            for (Survivor s : survivors) {
                if (s.failure != null) {
                    throw new AssertionError("EP " + s.c.index + " failed before the kill", s.failure);
                }
            }
            Set<Integer> streamers = new TreeSet<>();
            while (streamers.size() < STREAM_EPS) {
                Matcher m = await(child, STREAMING, RUN);
                if (m.group(1) == null) {
                    fail("the streamer stopped before the kill: " + m.group(0));
                }
                streamers.add(Integer.parseInt(m.group(1)));
            }

            killed.set(true);
            child.kill();
            boolean allEnded = ended.await(FLUSH_BOUND_SECONDS, TimeUnit.SECONDS);
            assertTrue(allEnded, () -> "within " + FLUSH_BOUND_SECONDS + " s of the SIGKILL, not every EP saw BROKEN"
                    + " with every DTO completed: " + survivors);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(FLUSH_BOUND_SECONDS));
            }
            assertEquals(137, child.waitFor(START), "the child died of SIGKILL");
            for (Survivor s : survivors) {
                s.assertFlushed();
            }
            p.closeGracefully();
        }
        // The transport is still usable: a new IA, a new child.
        parentConnectsToChild(ia(), 2);
    }

    // ------------------------------------------------------------------ exchange helpers

    private static ChildJvm startPeer(String name, Map<String, String> props) throws IOException {
        Map<String, String> all = new HashMap<>(props);
        if (Boolean.getBoolean("jdat.tcp.trace")) {
            all.put("jdat.tcp.trace", "true"); // trace both sides
        }
        ChildJvm child = ChildJvm.start(name, TcpPeerMain.class, all, List.of());
        await(child, HELLO, START);
        return child;
    }

    private void parentConnectsToChild(String iaName, int eps) throws Exception {
        try (ChildJvm child = startPeer("server", Map.of())) {
            child.writeLine("listen " + iaName + " " + eps);
            Matcher ready = await(child, READY, START);
            int port = Integer.parseInt(ready.group(1));
            String host = ready.group(2) != null ? ready.group(2) : "127.0.0.1";
            try (Peer p = Peer.open(iaName, ACTIVE, eps, X.SIZE)) {
                assertOutcomes(TcpPeerMain.runActive(p, host, port), PASSIVE);
                assertChildOutcomes(child, eps, ACTIVE);
                p.closeGracefully();
            }
        }
    }

    /** The child's next line matching {@code p}; fails at once on an {@code ERROR} line. */
    private static Matcher await(ChildJvm child, Pattern p, Duration timeout) {
        Matcher m = child.awaitLine(Pattern.compile(p.pattern() + "|" + ERROR.pattern()), timeout);
        Matcher error = ERROR.matcher(m.group(0));
        if (error.matches()) {
            fail("child " + child.name() + " while waiting for /" + p + "/: " + m.group(0));
        }
        Matcher own = p.matcher(m.group(0));
        if (!own.find()) {
            throw new IllegalStateException(m.group(0));
        }
        return own;
    }

    /** This side's outcomes: all OK, with the digest of what the peer of role {@code peerRole} sends. */
    private static void assertOutcomes(List<Outcome> outcomes, int peerRole) {
        AssertionError failed = null;
        for (Outcome o : outcomes) {
            if (o.error() != null) {
                if (failed == null) {
                    failed = new AssertionError("EP " + o.ep() + " failed in this JVM: " + o.error(), o.error());
                } else {
                    failed.addSuppressed(o.error());
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
        for (Outcome o : outcomes) {
            assertEquals(TcpPeerMain.expectedDigest(peerRole, o.ep()), o.digest(), "digest of EP " + o.ep());
        }
    }

    /** The child's verdicts: every EP OK with the digest of what this side (role {@code myRole}) sent. */
    private static void assertChildOutcomes(ChildJvm child, int eps, int myRole) {
        Map<Integer, String> results = new TreeMap<>();
        for (int k = 0; k < eps; k++) {
            Matcher m = await(child, RESULT, RUN);
            int ep = Integer.parseInt(m.group(1));
            if (m.group(3) != null) {
                fail("child " + child.name() + ": EP " + ep + " failed: " + m.group(3));
            }
            results.put(ep, m.group(2));
        }
        Matcher done = await(child, DONE, RUN);
        assertEquals(eps + " 0", done.group(1) + " " + done.group(2), "child verdict " + done.group(0));
        assertEquals(eps, results.size(), "child reported every EP once: " + results);
        for (int i = 0; i < eps; i++) {
            assertEquals(String.format("%08x", TcpPeerMain.expectedDigest(myRole, i)), results.get(i),
                    "digest of what the child received on EP " + i);
        }
    }

    // ------------------------------------------------------------------ the survivor of a SIGKILL

    /**
     * One EP of the surviving side: takes the streamer's control message, posts an RDMA Read the streamer
     * serves, three 1 MiB sends it never receives and two more Reads stuck behind them, and keeps
     * {@link S#RECV_SLOTS} receives posted for the streamer's sends, reposting each one that completes (the
     * streamer sends only {@link S#STREAM_SENDS}, so they are still posted when it dies). Runs until it saw
     * BROKEN and every DTO it posted completed.
     */
    private static final class Survivor implements Runnable {
        private static final long CTRL_RECV = 1;
        private static final long CTRL_SEND = 101;
        private static final long READ_SERVED = 201;
        private static final long[] READS_STUCK = {202, 203};
        private static final long[] SENDS = {301, 302, 303};

        final Conn c;
        private final AtomicBoolean killed;
        private final CountDownLatch streaming;
        private final CountDownLatch ended;
        private final byte[] expectedSend;
        private final byte[] expectedRead;
        // Confined to the survivor thread until `ended` counts down.
        private final Set<Long> outstanding = new HashSet<>();
        private final Set<Long> receives = new HashSet<>();
        private final Map<Long, Integer> slotOf = new HashMap<>();
        private final Map<Long, DtoCompletionStatus> statuses = new TreeMap<>();
        private long nextCookie = 10;
        private int dataReceived;
        private boolean readServed;
        private boolean signalled;
        private volatile boolean broken;
        private volatile String progress = "not started";
        volatile Throwable failure;

        Survivor(Conn c, AtomicBoolean killed, CountDownLatch streaming, CountDownLatch ended) {
            this.c = c;
            this.killed = killed;
            this.streaming = streaming;
            this.ended = ended;
            this.expectedSend = TcpPeerMain.pattern(ACTIVE, c.index, TcpPeerMain.OP_STREAM_SEND, S.MIB);
            this.expectedRead = TcpPeerMain.pattern(ACTIVE, c.index, TcpPeerMain.OP_STREAM_READ_SOURCE, S.READ_LEN);
        }

        /** Before accepting: the send source, the control receive and the data receives. */
        void prepare() {
            c.put(S.STREAM_SRC, TcpPeerMain.pattern(PASSIVE, c.index, TcpPeerMain.OP_STREAM_SEND, S.MIB));
            recv(CTRL_RECV, c.iov(S.CTRL_IN, X.CTRL_BUF));
            for (int slot = 0; slot < S.RECV_SLOTS; slot++) {
                postSlot(slot);
            }
        }

        @Override
        public void run() {
            try {
                c.awaitConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                TcpPeerMain.writeCtrl(c, S.CTRL_OUT, c.lmr.remoteTriplet(S.TARGET, S.MIB), new RmrTriplet(0, 0, 0));
                request(CTRL_SEND);
                c.postSend(CTRL_SEND, c.iov(S.CTRL_OUT, X.CTRL_LEN));
                while (!(broken && outstanding.isEmpty())) {
                    progress = "broken=" + broken + ", outstanding=" + new TreeSet<>(outstanding) + ", data received "
                            + dataReceived;
                    DatEvent e = c.next(TcpPeerMain.WAIT_NANOS);
                    if (e == null) {
                        throw new AssertionError("EP " + c.index + ": no event for "
                                + TcpPeerMain.WAIT_NANOS / 1_000_000_000 + " s; " + progress);
                    }
                    handle(e);
                }
                progress = "ended: " + statuses;
            } catch (RuntimeException | Error e) {
                failure = e;
                progress = "failed: " + e;
            } finally {
                if (!signalled) {
                    streaming.countDown();
                }
                ended.countDown();
            }
        }

        private void handle(DatEvent e) {
            if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
                if (e.eventNumber() == EventNumber.CONNECTION_EVENT_BROKEN && !broken && killed.get()) {
                    broken = true;
                    return;
                }
                throw new AssertionError("EP " + c.index + ": " + e + (killed.get() ? "" : " before the kill"));
            }
            long cookie = e.userCookie();
            if (!outstanding.remove(cookie)) {
                throw new AssertionError("EP " + c.index + ": a completion of cookie " + cookie
                        + ", which is not outstanding: " + e);
            }
            DtoCompletionStatus st = e.status();
            statuses.put(cookie, st);
            if (st != DtoCompletionStatus.SUCCESS) {
                if (!killed.get()) {
                    throw new AssertionError("EP " + c.index + ": before the kill: " + e);
                }
                if (receives.contains(cookie) && st != DtoCompletionStatus.ERR_FLUSHED) {
                    throw new AssertionError("EP " + c.index + ": a receive ended with " + st + ": " + e);
                }
                return;
            }
            if (cookie == CTRL_RECV) {
                RmrTriplet source = TcpPeerMain.readCtrl(c, S.CTRL_IN)[1];
                assertEquals(S.READ_LEN, source.segmentLength(), "the streamer's RDMA Read source");
                read(READ_SERVED, 0, source);
                for (long s : SENDS) {
                    request(s);
                    c.postSend(s, c.iov(S.STREAM_SRC, S.MIB));
                }
                read(READS_STUCK[0], 1, source);
                read(READS_STUCK[1], 2, source);
            } else if (slotOf.containsKey(cookie)) {
                int slot = slotOf.remove(cookie);
                assertEquals(S.MIB, e.transferredLength(), "EP " + c.index + " streamed send length");
                TcpPeerMain.check("EP " + c.index + " streamed send", expectedSend, c.get(S.RECV[slot], S.MIB));
                dataReceived++;
                postSlot(slot); // flushed at once if the EP broke meanwhile: RECV_SLOTS stay posted either way
            } else if (cookie == READ_SERVED) {
                TcpPeerMain.check("EP " + c.index + " RDMA Read", expectedRead, c.get(S.SINK[0], S.READ_LEN));
                readServed = true;
            } else if (cookie == READS_STUCK[0] || cookie == READS_STUCK[1]) {
                throw new AssertionError("EP " + c.index + ": RDMA Read " + cookie
                        + " completed, yet the streamer never reads past our first send");
            }
            if (!signalled && readServed && dataReceived >= 2) {
                signalled = true;
                streaming.countDown();
            }
        }

        private void postSlot(int slot) {
            long cookie = nextCookie++;
            slotOf.put(cookie, slot);
            recv(cookie, c.iov(S.RECV[slot], S.MIB));
        }

        private void recv(long cookie, LmrTriplet[] iov) {
            outstanding.add(cookie);
            receives.add(cookie);
            c.postRecv(cookie, iov);
        }

        private void request(long cookie) {
            outstanding.add(cookie);
        }

        private void read(long cookie, int sink, RmrTriplet source) {
            request(cookie);
            LmrTriplet[] iov = c.iov(S.SINK[sink], S.READ_LEN);
            c.ep.postRdmaRead(1, iov, cookie, source, 0);
        }

        /** After the run: BROKEN seen, the stuck Reads failed, receives flushed, the EP idle and disconnected. */
        void assertFlushed() {
            if (failure != null) {
                throw new AssertionError("EP " + c.index + " failed", failure);
            }
            assertTrue(broken, "EP " + c.index + " saw CONNECTION_EVENT_BROKEN");
            assertTrue(outstanding.isEmpty(), "EP " + c.index + " outstanding " + outstanding);
            for (long r : READS_STUCK) {
                assertNotEquals(DtoCompletionStatus.SUCCESS, statuses.get(r), "EP " + c.index + " stuck Read " + r);
            }
            long flushedReceives = receives.stream().filter(r -> statuses.get(r) == DtoCompletionStatus.ERR_FLUSHED)
                    .count();
            assertEquals(S.RECV_SLOTS, flushedReceives, "EP " + c.index + " receives flushed: " + statuses);
            assertTrue(dataReceived >= 2 && readServed, "EP " + c.index + " moved data before the kill");
            Endpoint.Status st = c.ep.getStatus();
            assertEquals(EpState.DISCONNECTED, st.epState(), "EP " + c.index);
            assertTrue(st.recvIdle() && st.requestIdle(), "EP " + c.index + " idle: " + st);
        }

        @Override
        public String toString() {
            return "EP " + c.index + " [" + progress + (failure != null ? ", failure " + failure : "") + "]";
        }
    }
}
