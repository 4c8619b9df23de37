package io.jdat.testing.net;

import static io.jdat.testing.net.Direction.CLIENT_TO_SERVER;
import static io.jdat.testing.net.Direction.SERVER_TO_CLIENT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link FaultProxy} in front of an {@link EchoServer}: each fault mode, in each direction where it matters. */
class FaultProxyTest {
    /** Bound on every blocking read of a test client, so a lost byte fails instead of hanging. */
    private static final int READ_TIMEOUT_MS = 5_000;
    private static final Duration WAIT = Duration.ofSeconds(5);
    /** How long "nothing arrives" is watched for: a deliberately short negative check. */
    private static final int QUIET_MS = 200;
    /** The gap between a sender's writes in the coalescing test. */
    private static final int GAP_MS = 20;

    private EchoServer echo;
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new EchoServer();
        proxy = FaultProxy.start(echo.address());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void passThroughEchoesIntactAndPassesHalfCloseOn() throws Exception {
        byte[] sent = pattern(32 * 1024, 1);
        try (Socket client = connect(proxy)) {
            client.getOutputStream().write(sent);
            client.shutdownOutput();
            Drained got = drain(client);
            assertArrayEquals(sent, got.bytes());
            assertEquals(null, got.error(), "the echo should end with a FIN passed on by the proxy, not an error");
        }
        assertTrue(proxy.awaitForwarded(SERVER_TO_CLIENT, sent.length, WAIT));
        assertEquals(sent.length, proxy.bytesForwarded(CLIENT_TO_SERVER));
        assertEquals(sent.length, proxy.bytesForwarded(SERVER_TO_CLIENT));
        assertEquals(1, proxy.connectionsAccepted());
    }

    @ParameterizedTest
    @EnumSource(Direction.class)
    void byteByByteDeliversEveryByteInOrderOneWriteEach(Direction d) throws Exception {
        proxy.byteByByte(d);
        byte[] sent = pattern(4096, 2);
        try (Socket client = connect(proxy)) {
            client.getOutputStream().write(sent);
            client.shutdownOutput();
            assertArrayEquals(sent, drain(client).bytes());
        }
        assertTrue(proxy.awaitForwarded(d, sent.length, WAIT));
        assertEquals(sent.length, proxy.writeCount(d), "one write per byte");
    }

    @Test
    void coalesceSplitsOneLargeWriteAtTheLimit() throws Exception {
        proxy.coalesce(CLIENT_TO_SERVER, 1000, Duration.ofSeconds(1));
        byte[] sent = pattern(3000, 3);
        try (Socket client = connect(proxy)) {
            client.getOutputStream().write(sent);
            assertArrayEquals(sent, readExactly(client, sent.length));
        }
        assertEquals(3000, proxy.bytesForwarded(CLIENT_TO_SERVER));
        assertEquals(3, proxy.writeCount(CLIENT_TO_SERVER), "3000 bytes in writes of at most 1000");
    }

    @ParameterizedTest
    @EnumSource(Direction.class)
    void coalesceMergesWritesSeparatedByGapsShorterThanThePause(Direction d) throws Exception {
        proxy.coalesce(d, 1000, Duration.ofSeconds(1));
        byte[] sent = pattern(1000, 4);
        try (Socket client = connect(proxy)) {
            for (int off = 0; off < sent.length; off += 200) {
                client.getOutputStream().write(sent, off, 200); // five segments: TCP_NODELAY is on
                // The gaps are the input under test, not synchronisation: long enough that a pass-through
                // proxy forwards each piece on its own, far shorter than the 1 s pause that ends a gathering.
                Thread.sleep(GAP_MS);
            }
            assertArrayEquals(sent, readExactly(client, sent.length));
        }
        assertTrue(proxy.awaitForwarded(d, sent.length, WAIT));
        assertEquals(1, proxy.writeCount(d), "five 200-byte writes, 20 ms apart, gathered into one");
    }

    @Test
    void coalesceDeliversWhatItHasOnceTheSourcePauses() throws Exception {
        proxy.coalesce(CLIENT_TO_SERVER, 1 << 20);
        try (Socket client = connect(proxy)) {
            byte[] sent = pattern(10, 5);
            client.getOutputStream().write(sent);
            assertArrayEquals(sent, readExactly(client, sent.length), "10 bytes, far below the 1 MiB limit");
        }
        assertEquals(1, proxy.writeCount(CLIENT_TO_SERVER));
    }

    @ParameterizedTest
    @EnumSource(Direction.class)
    void stallHoldsBytesUntilResume(Direction d) throws Exception {
        try (Socket client = connect(proxy)) {
            roundTrip(client, pattern(10, 6));
            long before = proxy.bytesForwarded(d);
            proxy.stall(d);
            byte[] held = pattern(100, 7);
            client.getOutputStream().write(held);
            assertNothingArrives(client);
            assertEquals(before, proxy.bytesForwarded(d), "nothing forwarded while stalled");
            proxy.resume(d);
            assertArrayEquals(held, readExactly(client, held.length));
        }
    }

    @Test
    void stallBeforeConnectingReadsNothingFromTheClient() throws Exception {
        proxy.stall(CLIENT_TO_SERVER);
        try (Socket client = connect(proxy)) {
            byte[] sent = pattern(100, 8);
            client.getOutputStream().write(sent);
            assertNothingArrives(client);
            assertEquals(0, proxy.bytesForwarded(CLIENT_TO_SERVER));
            proxy.resume(CLIENT_TO_SERVER);
            assertArrayEquals(sent, readExactly(client, sent.length));
        }
    }

    @ParameterizedTest
    @EnumSource(Direction.class)
    void resetAfterForwardsExactlyTheBudgetThenResetsMidMessage(Direction d) throws Exception {
        proxy.resetAfter(d, 1000);
        byte[] sent = pattern(5000, 9);
        try (Socket client = connect(proxy)) {
            try {
                client.getOutputStream().write(sent);
            } catch (IOException resetAlready) {
                // the RST may beat the end of the write; the read below still has to see it
            }
            Drained got = drain(client);
            assertTrue(got.bytes().length <= 1000, "got " + got.bytes().length + " bytes past a reset after 1000");
            assertArrayEquals(Arrays.copyOf(sent, got.bytes().length), got.bytes(), "a prefix of what was sent");
            assertTrue(got.error() != null || got.bytes().length < sent.length, "the stream must end early");
        }
        assertEquals(1000, proxy.bytesForwarded(d), "exactly the budget is forwarded in " + d);
        try (Socket again = connect(proxy)) {
            roundTrip(again, pattern(3000, 10)); // the reset fired once and disarmed
        }
    }

    @Test
    void resetGivesTheClientConnectionReset() throws Exception {
        proxy.resetAfter(CLIENT_TO_SERVER, 10);
        try (Socket client = connect(proxy)) {
            client.getOutputStream().write(pattern(20, 11));
            Drained got = drain(client);
            assertNotEquals(null, got.error(), "a RST, not a FIN, after " + got.bytes().length + " bytes");
            assertTrue(String.valueOf(got.error().getMessage()).contains("reset"), got.error().toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Direction.class)
    void corruptAtFlipsExactlyOneByteOfTheFirstConnectionReachingTheOffset(Direction d) throws Exception {
        proxy.corruptAt(d, 1234, (byte) 0x5A);
        try (Socket shortOne = connect(proxy)) {
            roundTrip(shortOne, pattern(1000, 12)); // ends before offset 1234: untouched, still armed
        }
        byte[] sent = pattern(4000, 13);
        byte[] got;
        try (Socket client = connect(proxy)) {
            client.getOutputStream().write(sent);
            client.shutdownOutput();
            got = drain(client).bytes();
        }
        assertEquals(sent.length, got.length);
        for (int i = 0; i < sent.length; i++) {
            byte expected = i == 1234 ? (byte) (sent[i] ^ 0x5A) : sent[i];
            assertEquals(expected, got[i], "byte " + i);
        }
        try (Socket after = connect(proxy)) {
            roundTrip(after, pattern(4000, 14)); // fired once
        }
    }

    @Test
    void refuseNewResetsOnlyNewConnections() throws Exception {
        try (Socket existing = connect(proxy)) {
            roundTrip(existing, pattern(10, 15));
            proxy.refuseNew(true);
            assertResetOrEndedAtOnce(proxy);
            assertTrue(proxy.awaitConnections(2, WAIT));
            roundTrip(existing, pattern(10, 16));
            proxy.refuseNew(false);
            try (Socket welcome = connect(proxy)) {
                roundTrip(welcome, pattern(10, 17));
            }
        }
        assertEquals(3, proxy.connectionsAccepted());
    }

    @Test
    void awaitConnectionsWaitsForAcceptedConnections() throws Exception {
        assertFalse(proxy.awaitConnections(1, Duration.ofMillis(20)));
        try (Socket a = connect(proxy); Socket b = connect(proxy)) {
            assertTrue(proxy.awaitConnections(2, WAIT));
            roundTrip(a, pattern(10, 20));
            roundTrip(b, pattern(10, 21));
            assertFalse(proxy.awaitConnections(3, Duration.ofMillis(20)));
            assertEquals(2, proxy.connectionsAccepted());
        }
    }

    @Test
    void unreachableTargetResetsTheClient() throws Exception {
        InetSocketAddress nobody;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = new InetSocketAddress(gone.getInetAddress(), gone.getLocalPort());
        }
        try (FaultProxy toNowhere = FaultProxy.start(nobody)) {
            assertResetOrEndedAtOnce(toNowhere);
        }
    }

    @Test
    void closeEndsStalledConnectionsAndStopsListening() throws Exception {
        Socket client = connect(proxy);
        try (client) {
            roundTrip(client, pattern(10, 18));
            proxy.stall(SERVER_TO_CLIENT);
            client.getOutputStream().write(pattern(10, 19));
            assertTimeoutPreemptively(Duration.ofSeconds(3), proxy::close);
            drain(client); // ends (EOF or reset) instead of timing out
        }
        assertThrows(ConnectException.class, () -> connect(proxy).close());
    }

    @Test
    void rejectsMeaninglessArguments() {
        assertThrows(IllegalArgumentException.class, () -> proxy.coalesce(CLIENT_TO_SERVER, 0));
        assertThrows(IllegalArgumentException.class, () -> proxy.coalesce(CLIENT_TO_SERVER, 10, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> proxy.resetAfter(CLIENT_TO_SERVER, -1));
        assertThrows(IllegalArgumentException.class, () -> proxy.corruptAt(CLIENT_TO_SERVER, -1, (byte) 1));
        assertThrows(IllegalArgumentException.class, () -> proxy.corruptAt(CLIENT_TO_SERVER, 0, (byte) 0));
    }

    // ------------------------------------------------------------------ helpers

    /** How a client's stream ended: the bytes read, then null for EOF or the error that ended it. */
    private record Drained(byte[] bytes, IOException error) {}

    private static Socket connect(FaultProxy p) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout(READ_TIMEOUT_MS);
        s.connect(p.address(), READ_TIMEOUT_MS);
        return s;
    }

    /**
     * Connects to {@code p} and asserts the connection is reset (the RST may already fail the connect) or
     * ends before delivering any byte.
     */
    private static void assertResetOrEndedAtOnce(FaultProxy p) throws IOException {
        Socket s;
        try {
            s = connect(p);
        } catch (SocketException e) {
            assertTrue(String.valueOf(e.getMessage()).contains("reset"), e.toString());
            return;
        }
        try (s) {
            Drained got = drain(s);
            assertEquals(0, got.bytes().length);
        }
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void roundTrip(Socket s, byte[] data) throws IOException {
        s.getOutputStream().write(data);
        assertArrayEquals(data, readExactly(s, data.length));
    }

    private static byte[] readExactly(Socket s, int n) throws IOException {
        try {
            byte[] b = s.getInputStream().readNBytes(n);
            assertEquals(n, b.length, "stream ended early");
            return b;
        } catch (SocketTimeoutException e) {
            return fail("fewer than " + n + " bytes within " + READ_TIMEOUT_MS + " ms");
        }
    }

    /** Reads until EOF or a connection error; a read timeout fails the test. */
    private static Drained drain(Socket s) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            InputStream in = s.getInputStream();
            for (int n; (n = in.read(buf)) >= 0; ) {
                got.write(buf, 0, n);
            }
            return new Drained(got.toByteArray(), null);
        } catch (SocketTimeoutException e) {
            return fail("stream did not end within " + READ_TIMEOUT_MS + " ms after " + got.size() + " bytes");
        } catch (IOException e) {
            return new Drained(got.toByteArray(), e);
        }
    }

    private static void assertNothingArrives(Socket s) throws IOException {
        s.setSoTimeout(QUIET_MS);
        try {
            int b = s.getInputStream().read();
            fail("read " + b + " while the proxy was stalled");
        } catch (SocketTimeoutException expected) {
            // nothing arrived
        } finally {
            s.setSoTimeout(READ_TIMEOUT_MS);
        }
    }
}
