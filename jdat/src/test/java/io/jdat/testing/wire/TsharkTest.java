package io.jdat.testing.wire;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Tshark} on the golden captures (they must decode as iWARP with no problem, which tests the wrapper)
 * and on live loopback captures. Skips, with the reason, where tshark or capturing is unavailable.
 */
class TsharkTest {
    private static final String REV_WARNING = "Rev field is NOT set to one as required by RFC 5044";

    @Test
    void everyGoldenCaptureDecodesAsIwarpWithoutProblems() throws IOException {
        assumeDecoder();
        for (Path file : SharedCaptures.requireAll()) {
            Tshark.Decoded d = Tshark.decode(file);
            PcapReader pcap = PcapReader.read(file);
            String name = file.getFileName().toString();
            assertEquals(pcap.frameCount(), d.frames().size(), name);
            assertEquals(pcap.segments().stream().filter(s -> s.payload().length > 0).count(),
                    d.tcpPayloadFrames().size(), name);
            assertEquals(List.of(), d.problems(), name);
            assertEquals(List.of(), d.notDecodedAsIwarp(), name);
            // The one tolerated warning: revision 2. tshark reports it only in its expert summary.
            assertTrue(d.tapExperts().stream().anyMatch(t -> t.summary().equals(REV_WARNING)
                    && t.severity() == ExpertSeverity.WARN && t.protocol().equals("IWARP_MPA")), name);
            assertTrue(d.frames().stream().flatMap(f -> f.experts().stream())
                    .allMatch(e -> e.severity().compareTo(ExpertSeverity.WARN) < 0
                            || e.message().equals("Connection reset (RST)")), name);
        }
    }

    @Test
    void rpingFramesDecodeAsTheListingSays() throws IOException {
        assumeDecoder();
        Tshark.Decoded d = Tshark.decode(SharedCaptures.require("siw-rping-veth.pcap"));
        for (int n : new int[] {4, 6}) {
            assertTrue(d.frame(n).isMpa() && !d.frame(n).isDdpRdmap(), d.frame(n).toString());
            assertEquals(0, d.frame(n).mpaFpdus());
        }
        for (int n : new int[] {8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22}) {
            assertTrue(d.frame(n).isDdpRdmap(), d.frame(n).toString());
            assertEquals(1, d.frame(n).mpaFpdus());
            assertEquals(List.of(), d.frame(n).crcChecks(), "no CRC negotiated");
        }
        assertEquals(7174, d.frame(9).srcPort());
        assertEquals(52, d.frame(9).tcpLength());
        assertFalse(d.frame(15).hasTcpPayload());
        assertThrows(IllegalArgumentException.class, () -> d.frame(27));
    }

    @Test
    void ibWriteBwSegmentsAreReassembledIntoTheirFpdus() throws IOException {
        assumeDecoder();
        Tshark.Decoded d = Tshark.decode(SharedCaptures.require("siw-ib_write_bw-veth.pcap"));
        assertFalse(d.frame(34).isMpa());
        assertEquals(1444, d.frame(34).tcpLength());
        assertEquals(35, d.frame(34).reassembledIn());
        assertTrue(d.frame(35).isDdpRdmap());
        assertEquals(4, d.frame(35).tcpLength());
    }

    /** tshark 4.0 reports a bad MPA CRC with no expert info item at all: {@link Tshark.Decoded#problems()} must. */
    @Test
    void aGoodCrcPassesAndAFlippedCrcByteIsAProblem(@TempDir Path dir) throws IOException {
        assumeDecoder();
        Path original = SharedCaptures.require("host-peer-rping-crc.pcap");
        Tshark.Decoded good = Tshark.decode(original);
        assertEquals(List.of("CRC check: 0xf269ce71 (Good CRC32)"), good.frame(9).crcChecks());
        assertEquals(3, good.frame(11).count(TsharkFrame.DDP_RDMAP));
        assertEquals(3, good.frame(11).crcChecks().size());

        byte[] bytes = Files.readAllBytes(original);
        int at = indexOf(bytes, new byte[] {(byte) 0xf2, 0x69, (byte) 0xce, 0x71});
        bytes[at] ^= (byte) 0xff;
        Tshark.Decoded bad = Tshark.decode(Files.write(dir.resolve("bad-crc.pcap"), bytes));
        assertEquals(List.of("frame 9: CRC check: 0x0d69ce71 (Bad CRC32, should be 0xf269ce71)"), bad.problems());
        assertTrue(bad.frame(9).experts().stream().noneMatch(ExpertInfo::isProblem), "tshark 4.0 adds no expert");
    }

    /** A Request announcing 772 bytes of private data: tshark waits for them, so the frames stay plain TCP. */
    @Test
    void anImpossiblePrivateDataLengthIsCaught(@TempDir Path dir) throws IOException {
        assumeDecoder();
        byte[] bytes = Files.readAllBytes(SharedCaptures.require("siw-rping-veth.pcap"));
        int key = indexOf(bytes, "MPA ID Req Frame".getBytes(US_ASCII));
        bytes[key + 18] = 0x03;
        Tshark.Decoded d = Tshark.decode(Files.write(dir.resolve("bad-pd.pcap"), bytes));
        assertFalse(d.problems().isEmpty() && d.notDecodedAsIwarp().isEmpty(), "nothing flagged");
    }

    @Test
    void liveCaptureRecordsAPlainExchangeAndFlagsItAsNotIwarp() throws Exception {
        assumeCapture();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Capture capture = Tshark.start(server.getLocalPort())) {
            CompletableFuture<Void> serverSide = CompletableFuture.runAsync(() -> {
                try (Socket s = server.accept()) {
                    assertArrayEquals("ping".getBytes(US_ASCII), new DataInputStream(s.getInputStream()).readNBytes(4));
                    s.getOutputStream().write("pong".getBytes(US_ASCII));
                    s.shutdownOutput();
                    s.getInputStream().readAllBytes();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                client.getOutputStream().write("ping".getBytes(US_ASCII));
                client.shutdownOutput();
                assertArrayEquals("pong".getBytes(US_ASCII), client.getInputStream().readAllBytes());
            }
            serverSide.get(10, TimeUnit.SECONDS);
            Path file = capture.stop();
            assertEquals(List.of(server.getLocalPort()), capture.ports());

            TcpStream stream = PcapReader.read(file).streams().get(0);
            assertEquals(server.getLocalPort(), stream.server().port());
            assertEquals("ping", new String(stream.clientToServer(), US_ASCII));
            assertEquals("pong", new String(stream.serverToClient(), US_ASCII));
            assertTrue(stream.segments().get(0).syn(), "capture complete from the SYN");
            assertTrue(stream.segments().stream().filter(TcpSegment::fin).count() == 2, "both FINs captured");

            Tshark.Decoded d = Tshark.decode(file);
            List<TsharkFrame> payload = d.tcpPayloadFrames();
            assertEquals(List.of(4, 4), payload.stream().map(TsharkFrame::tcpLength).toList());
            assertTrue(payload.stream().allMatch(f -> f.srcPort() == server.getLocalPort()
                    || f.dstPort() == server.getLocalPort()));
            assertEquals(2, d.notDecodedAsIwarp().size(), d.notDecodedAsIwarp().toString());
            assertEquals(List.of(), d.problems());
        }
    }

    /** Replays the CRC capture's two streams over a real loopback connection: our own traffic, decoded clean. */
    @Test
    void liveReplayOfSiwTrafficDecodesAsIwarpWithGoodCrcs() throws Exception {
        assumeCapture();
        TcpStream golden = PcapReader.read(SharedCaptures.require("host-peer-rping-crc.pcap")).streams().get(0);
        IwarpConnection decoded = IwarpStreamDecoder.decode(golden);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Capture capture = Tshark.start(server.getLocalPort())) {
            CompletableFuture<byte[]> serverSide = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    s.setTcpNoDelay(true);
                    byte[] request = new DataInputStream(s.getInputStream()).readNBytes(decoded.request().length());
                    send(s.getOutputStream(), golden.serverToClient(), decoded.reply().length(),
                            decoded.responderFpdus());
                    s.shutdownOutput();
                    return concat(request, s.getInputStream().readAllBytes());
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] fromServer;
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                client.setTcpNoDelay(true);
                InputStream in = client.getInputStream();
                OutputStream out = client.getOutputStream();
                out.write(golden.clientToServer(), 0, decoded.request().length());
                byte[] reply = new DataInputStream(in).readNBytes(decoded.reply().length());
                send(out, golden.clientToServer(), -1, decoded.initiatorFpdus());
                client.shutdownOutput();
                fromServer = concat(reply, in.readAllBytes());
            }
            assertArrayEquals(golden.clientToServer(), serverSide.get(10, TimeUnit.SECONDS));
            assertArrayEquals(golden.serverToClient(), fromServer);
            Path file = capture.stop();

            TcpStream replayed = PcapReader.read(file).streams().get(0);
            assertArrayEquals(golden.clientToServer(), replayed.clientToServer());
            assertArrayEquals(golden.serverToClient(), replayed.serverToClient());

            Tshark.Decoded d = Tshark.decode(file);
            assertEquals(List.of(), d.problems());
            assertEquals(List.of(), d.notDecodedAsIwarp());
            assertEquals(decoded.allFpdus().size(), d.frames().stream().mapToInt(TsharkFrame::mpaFpdus).sum());
            List<String> crcs = d.frames().stream().flatMap(f -> f.crcChecks().stream()).toList();
            assertEquals(decoded.allFpdus().size(), crcs.size());
            assertTrue(crcs.stream().allMatch(c -> c.endsWith("(Good CRC32)")), crcs.toString());
            assertTrue(d.tapExperts().stream().anyMatch(t -> t.summary().equals(REV_WARNING)));
        }
    }

    @Test
    void startRejectsBadPorts() {
        assertThrows(IllegalArgumentException.class, Tshark::start);
        assertThrows(IllegalArgumentException.class, () -> Tshark.start(0));
        assertThrows(IllegalArgumentException.class, () -> Tshark.start(65536));
    }

    /** Writes the handshake frame (if {@code handshake >= 0} bytes of it remain unsent) then one write per FPDU. */
    private static void send(OutputStream out, byte[] stream, int handshake, List<Fpdu> fpdus) throws IOException {
        if (handshake >= 0) {
            out.write(stream, 0, handshake);
            out.flush();
        }
        for (Fpdu f : fpdus) {
            out.write(stream, f.offset(), f.length());
            out.flush();
        }
    }

    private static void assumeDecoder() {
        Assumptions.assumeTrue(Tshark.decoderUnavailableReason().isEmpty(),
                () -> "tshark wire check skipped: " + Tshark.decoderUnavailableReason().orElseThrow());
    }

    private static void assumeCapture() {
        Assumptions.assumeTrue(Tshark.unavailableReason().isEmpty(),
                () -> "live capture wire check skipped: " + Tshark.unavailableReason().orElseThrow());
    }

    private static int indexOf(byte[] data, byte[] token) {
        outer:
        for (int i = 0; i + token.length <= data.length; i++) {
            for (int j = 0; j < token.length; j++) {
                if (data[i + j] != token[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("token not found");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
