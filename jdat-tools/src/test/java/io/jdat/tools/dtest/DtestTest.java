package io.jdat.tools.dtest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.EventNumber;
import io.jdat.mem.MemAddress;
import io.jdat.tools.cli.Main;
import io.jdat.tools.session.SampleFailure;
import io.jdat.tools.session.SampleSide;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The dtest sample: dtest's server info and data images, a client and a server over {@code tcp} on loopback (and
 * over {@code mem}), every phase verified, and each kind of corrupted data noticed by the side that checks it.
 */
class DtestTest {
    private static final long TIMEOUT_MS = 10_000;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Dtest.Config config(String ia, SocketAddress iaAddress, int qual, int info, int size, int burst) {
        return new Dtest.Config(ia, "127.0.0.1", iaAddress, qual, info, size, burst, 10, false, false, TIMEOUT_MS,
                Dtest.DEFAULT_PROVIDER, "127.0.0.1", 0, TIMEOUT_MS); // both sides start at once: wait for the server
    }

    /** Both sides, the server on another thread; returns {client, server} results or rethrows. */
    private static Dtest.Result[] run(Dtest.Config cfg, Dtest.Tamper clientTamper, Dtest.Tamper serverTamper,
            StringWriter out) throws Exception {
        PrintWriter w = new PrintWriter(out, true);
        CompletableFuture<Dtest.Result> server = CompletableFuture.supplyAsync(
                () -> new Dtest(cfg, w, serverTamper).server());
        Dtest.Result client;
        try {
            client = new Dtest(cfg, w, clientTamper).client();
        } catch (SampleFailure e) {
            try {
                server.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException ignored) {
                // the server's failure is the interesting one; the test looks at both
            }
            throw e;
        }
        return new Dtest.Result[] {client, server.get(30, TimeUnit.SECONDS)};
    }

    private static final Dtest.Tamper NONE = new Dtest.Tamper() {
    };

    @Test
    void serverInfoIsDtests() {
        // what dtest's server writes for 10.0.2.15 (s_addr of a little-endian host printed with %08x)
        byte[] msg = Arrays.copyOf("0000:00000000:00000000:0f02000a:ofa-v2-iwarp".getBytes(StandardCharsets.US_ASCII),
                Dtest.INFO_MESSAGE);
        Dtest.ServerInfo info = Dtest.ServerInfo.parse(msg);
        assertEquals("10.0.2.15", info.address().getHostAddress());
        assertEquals("ofa-v2-iwarp", info.provider());
        assertEquals(0, info.lid());
        byte[] ours = Dtest.ServerInfo.of((Inet4Address) InetAddress.getLoopbackAddress(), "ofa-v2-siw").encode();
        assertEquals(Dtest.INFO_MESSAGE, ours.length);
        assertEquals("0000:00000000:00000000:0100007f:ofa-v2-siw", new String(ours, 0, 42, StandardCharsets.US_ASCII));
        assertEquals(0, ours[42], "NUL-terminated and padded");
        Dtest.ServerInfo ucm = Dtest.ServerInfo.parse("0012:00000a4b:00000000:00000000:ofa-v2-mlx4_0-1u".getBytes(
                StandardCharsets.US_ASCII));
        assertNull(ucm.address(), "a UCM server names no address");
        assertThrows(SampleFailure.class, () -> Dtest.ServerInfo.parse("hello".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void imagesAreDtests() {
        byte[] w = Dtest.writeImage(false, 32);
        assertEquals("client RDMA write data...", new String(w, 0, 25, StandardCharsets.US_ASCII));
        assertEquals(0, w[25]);
        for (int i = 26; i < 32; i++) {
            assertEquals('b', w[i], "dtest's fill after the text");
        }
        assertArrayEquals("serv".getBytes(StandardCharsets.US_ASCII), Dtest.writeImage(true, 4), "a small buffer");
        byte[] r = Dtest.readImage(true, w);
        assertEquals("server RDMA read data...", new String(r, 0, 24, StandardCharsets.US_ASCII));
        assertEquals(0, r[24]);
        assertEquals(0, r[25], "the write text's NUL stays");
        assertEquals('b', r[26]);
        MemorySegment got = MemorySegment.ofArray(r.clone());
        assertEquals(-1, Dtest.verifyEither(got, w, r));
        got.set(ValueLayout.JAVA_BYTE, 3, w[3]); // a byte from before the peer's rewrite: still one of the two
        assertEquals(-1, Dtest.verifyEither(got, w, r));
        got.set(ValueLayout.JAVA_BYTE, 30, (byte) 'x');
        assertEquals(30, Dtest.verifyEither(got, w, r));
    }

    @ParameterizedTest
    @CsvSource({"64, 127.0.0.1", "4096, 127.0.0.1 crc=on", "65536, 127.0.0.1 crc=on mulpdu=1442",
        "1000, 127.0.0.1 p2p=off", "100, 127.0.0.1 rev=1"})
    void clientAndServerOverTcp(int size, String params) throws Exception {
        String ia = SampleSide.registerTcp("dtest-test-" + params.replace(' ', '-'), params);
        StringWriter out = new StringWriter();
        Dtest.Result[] r = run(config(ia, null, freePort(), freePort(), size, 25), NONE, NONE, out);
        for (Dtest.Result x : r) {
            assertEquals(25, x.writes());
            assertEquals(Dtest.MAX_RDMA_RD, x.reads());
            assertEquals(Dtest.MSG_BURST, x.pingPongs());
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, x.ending());
        }
        String s = out.toString();
        assertTrue(s.contains("client: RDMA write: 25 x " + size + " bytes; the peer's " + size
                + " bytes verified: \"server RDMA write data...\""), s);
        assertTrue(s.contains("server: RDMA write: 25 x " + size + " bytes; the peer's " + size
                + " bytes verified: \"client RDMA write data...\""), s);
        assertTrue(s.contains("client: connected: private data verified (48 bytes each way)"), s);
        assertTrue(s.contains("server: message ping-pong: 100 messages of " + size + " bytes verified"), s);
    }

    @Test
    void clientAndServerOverMem() throws Exception {
        StringWriter out = new StringWriter();
        Dtest.Result[] r = run(config("mem", MemAddress.of("mem"), freePort(), freePort(), 512, 10), NONE, NONE, out);
        assertEquals(Dtest.MSG_BURST, r[0].pingPongs(), out.toString());
        assertEquals(Dtest.MSG_BURST, r[1].pingPongs(), out.toString());
    }

    /** Runs a pair whose one side tampers; returns the failure of the checking side. */
    private static SampleFailure checkerFails(boolean serverChecks, Dtest.Tamper tamper) throws Exception {
        Dtest.Config cfg = config(SampleSide.registerTcp("dtest-test-lo", "127.0.0.1"), null, freePort(), freePort(),
                256, 10);
        StringWriter out = new StringWriter();
        PrintWriter w = new PrintWriter(out, true);
        Supplier<Dtest.Result> srv = () -> new Dtest(cfg, w, serverChecks ? NONE : tamper).server();
        CompletableFuture<Dtest.Result> server = CompletableFuture.supplyAsync(srv);
        Dtest client = new Dtest(cfg, w, serverChecks ? tamper : NONE);
        SampleFailure clientFailure = null;
        try {
            client.client();
        } catch (SampleFailure e) {
            clientFailure = e;
        }
        ExecutionException se = assertThrows(ExecutionException.class, () -> server.get(30, TimeUnit.SECONDS),
                "the server must not pass: " + out);
        SampleFailure serverFailure = (SampleFailure) se.getCause();
        assertTrue(clientFailure != null, "the client must not pass either: " + out);
        return serverChecks ? serverFailure : clientFailure;
    }

    @Test
    void corruptedWriteDataFails() throws Exception {
        SampleFailure f = checkerFails(true, new Dtest.Tamper() {
            @Override
            public void writeSource(MemorySegment source) {
                source.set(ValueLayout.JAVA_BYTE, 200, (byte) 'c');
            }
        });
        assertTrue(f.getMessage().startsWith("RDMA Write data from the peer: byte 200 is 0x63, should be 0x62"),
                f.getMessage());
    }

    @Test
    void corruptedPrivateDataIsRefused() throws Exception {
        SampleFailure f = checkerFails(true, new Dtest.Tamper() {
            @Override
            public void privateData(byte[] pd) {
                pd[47] = 0;
            }
        });
        assertEquals("the connection request's private data: byte 47 is 0, should be 48", f.getMessage());
        SampleFailure g = checkerFails(false, new Dtest.Tamper() {
            @Override
            public void privateData(byte[] pd) {
                pd[0] = 7;
            }
        });
        assertEquals("the accept's private data: byte 0 is 7, should be 2", g.getMessage());
    }

    @Test
    void corruptedPongFails() throws Exception {
        SampleFailure f = checkerFails(false, new Dtest.Tamper() {
            @Override
            public void message(MemorySegment message, int index) {
                if (index == 5) {
                    message.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x55);
                }
            }
        });
        assertEquals("ping-pong message 5: first byte 0x55, should be 0xaa", f.getMessage());
    }

    // ------------------------------------------------------------------ the command

    private record Cli(int exitCode, String out, String err) {
    }

    private static Cli jdat(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new Cli(rc, out.toString(), err.toString());
    }

    @Test
    void commandRunsBothSides() throws Exception {
        String q = String.valueOf(freePort());
        String info = String.valueOf(freePort());
        CompletableFuture<Cli> server = CompletableFuture.supplyAsync(() -> jdat("dtest", "-s", "--conn-qual", q,
                "--info-port", info, "--ia-params", "127.0.0.1", "-b", "2048", "-B", "20", "--settle", "0"));
        Cli client = jdat("dtest", "-h", "127.0.0.1", "--conn-qual", q, "--info-port", info, "--ia-params",
                "127.0.0.1", "-b", "2048", "-B", "20", "--settle", "0", "-v", "-p", "--connect-timeout", "30000");
        Cli s = server.get(30, TimeUnit.SECONDS);
        assertEquals(0, client.exitCode(), client.out() + client.err());
        assertEquals(0, s.exitCode(), s.out() + s.err());
        assertTrue(client.out().endsWith("jdat dtest client: PASSED" + System.lineSeparator()), client.out());
        assertTrue(s.out().contains("jdat dtest server: listening, server info on port " + info
                + ": provider ofa-v2-iwarp, address 127.0.0.1"), s.out());
        assertTrue(client.out().contains("client: server info: provider ofa-v2-iwarp, address 127.0.0.1"),
                client.out());
    }

    @Test
    void badOptionsAreUsageErrors() {
        Cli both = jdat("dtest", "-s", "-h", "127.0.0.1");
        assertEquals(2, both.exitCode(), both.err());
        Cli size = jdat("dtest", "-h", "127.0.0.1", "-b", "0");
        assertEquals(2, size.exitCode(), size.err());
        assertTrue(size.err().contains("buffer size 0 outside 1..4194304"), size.err());
        Cli provider = jdat("dtest", "-s", "--provider", "a b");
        assertEquals(2, provider.exitCode(), provider.err());
    }

    @Test
    void noServerFailsWithExitCode1() throws Exception {
        Cli c = jdat("dtest", "-h", "127.0.0.1", "--info-port", String.valueOf(freePort()), "--timeout", "500ms");
        assertEquals(1, c.exitCode());
        assertTrue(c.err().startsWith("jdat dtest client: FAILED: no dtest server at 127.0.0.1:"), c.err());
        assertTrue(c.err().contains("(connection refused for 500 ms): start 'jdat dtest -s'"), c.err());
    }
}
