package io.jdat.testing.wire;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link PcapReader}: synthetic files for every format rule, then the golden soft-iWARP captures. */
class PcapReaderTest {
    private static final TcpEndpoint A = endpoint("192.0.2.1", 40000);
    private static final TcpEndpoint B = endpoint("192.0.2.2", 7174);
    private static final int SYN = TcpSegment.SYN;
    private static final int SYN_ACK = TcpSegment.SYN | TcpSegment.ACK;
    private static final int ACK = TcpSegment.ACK;
    private static final int PSH_ACK = TcpSegment.PSH | TcpSegment.ACK;

    @ParameterizedTest(name = "link type {0}, {1}, nanoseconds {2}, IPv6 {3}")
    @CsvSource({
        "1, LITTLE_ENDIAN, false, false", "1, BIG_ENDIAN, true, false", "1, BIG_ENDIAN, false, true",
        "113, LITTLE_ENDIAN, false, false", "276, BIG_ENDIAN, false, true", "101, LITTLE_ENDIAN, true, false",
        "228, LITTLE_ENDIAN, false, false", "229, BIG_ENDIAN, false, true", "0, LITTLE_ENDIAN, false, false",
        "0, LITTLE_ENDIAN, false, true"})
    void readsEveryLinkTypeByteOrderAndResolution(int linkType, String order, boolean nanos, boolean v6) {
        TcpEndpoint a = v6 ? endpoint("2001:db8::1", 40000) : A;
        TcpEndpoint b = v6 ? endpoint("2001:db8::2", 7174) : B;
        byte[] file = new PcapBuilder(linkType, order.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN
                : ByteOrder.LITTLE_ENDIAN, nanos)
                .tcp(a, b, 100, SYN, new byte[0])
                .tcp(b, a, 900, SYN_ACK, new byte[0])
                .tcp(a, b, 101, PSH_ACK, ascii("request"))
                .tcp(b, a, 901, PSH_ACK, ascii("reply"))
                .build();
        PcapReader pcap = PcapReader.parse(file);
        assertEquals(linkType, pcap.linkType());
        assertEquals(nanos, pcap.nanosecondTimestamps());
        assertEquals(4, pcap.frameCount());
        TcpSegment first = pcap.segments().get(0);
        assertEquals(Instant.ofEpochSecond(1_700_000_001, 123_456_789 - (nanos ? 0 : 789)), first.time());
        assertEquals(List.of(1, 2, 3, 4), pcap.segments().stream().map(TcpSegment::frame).toList());
        assertTrue(first.syn() && !first.hasAck());
        TcpStream s = single(pcap);
        assertEquals(a, s.client());
        assertEquals(b, s.server());
        assertEquals("request", text(s.clientToServer()));
        assertEquals("reply", text(s.serverToClient()));
        assertTrue(s.handshakeSeen());
        assertFalse(s.hasHole());
    }

    @Test
    void reassemblesOutOfOrderSegmentsAndIgnoresRetransmittedBytes() {
        byte[] file = ethernet()
                .tcp(A, B, 1000, SYN, new byte[0])
                .tcp(B, A, 5000, SYN_ACK, new byte[0])
                .tcp(A, B, 1001, PSH_ACK, ascii("abc"))
                .tcp(A, B, 1007, PSH_ACK, ascii("ghi"))       // before "def": out of order
                .tcp(A, B, 1004, PSH_ACK, ascii("def"))
                .tcp(A, B, 1001, PSH_ACK, ascii("XXXXXX"))    // retransmission of "abcdef": ignored
                .tcp(A, B, 1008, PSH_ACK, ascii("HIjk"))      // partial overlap: only "jk" is new
                .build();
        TcpStream s = single(PcapReader.parse(file));
        assertEquals("abcdefghijk", text(s.clientToServer()));
        assertEquals("", text(s.serverToClient()));
        assertFalse(s.hasHole());
        assertEquals(7, s.segments().size());
    }

    @Test
    void followsSequenceNumbersAcrossTheWrap() {
        byte[] file = ethernet()
                .tcp(A, B, 0xFFFF_FFFDL, SYN, new byte[0])
                .tcp(A, B, 0xFFFF_FFFEL, PSH_ACK, ascii("ab"))
                .tcp(A, B, 0x0000_0002L, PSH_ACK, ascii("ef"))
                .tcp(A, B, 0x0000_0000L, PSH_ACK, ascii("cd"))
                .build();
        assertEquals("abcdef", text(single(PcapReader.parse(file)).clientToServer()));
    }

    @Test
    void withoutHandshakeTheFirstSenderIsTheClient() {
        byte[] file = ethernet()
                .tcp(B, A, 77, PSH_ACK, ascii("first"))
                .tcp(A, B, 5, PSH_ACK, ascii("second"))
                .build();
        TcpStream s = single(PcapReader.parse(file));
        assertEquals(B, s.client());
        assertEquals("first", text(s.clientToServer()));
        assertEquals("second", text(s.serverToClient()));
        assertFalse(s.handshakeSeen());
    }

    @Test
    void aSynAckAloneMakesItsReceiverTheClient() {
        byte[] file = ethernet()
                .tcp(B, A, 900, SYN_ACK, new byte[0])
                .tcp(A, B, 101, PSH_ACK, ascii("up"))
                .tcp(B, A, 901, PSH_ACK, ascii("down"))
                .build();
        TcpStream s = single(PcapReader.parse(file));
        assertEquals(A, s.client());
        assertEquals("up", text(s.clientToServer()));
        assertEquals("down", text(s.serverToClient()));
    }

    @Test
    void aHoleEndsTheStreamAndIsReported() {
        byte[] file = ethernet()
                .tcp(A, B, 10, SYN, new byte[0])
                .tcp(A, B, 11, PSH_ACK, ascii("abc"))
                .tcp(A, B, 17, PSH_ACK, ascii("ghi"))
                .build();
        TcpStream s = single(PcapReader.parse(file));
        assertEquals("abc", text(s.clientToServer()));
        assertTrue(s.hasHole());
    }

    @Test
    void aNewSynBetweenTheSameEndpointsStartsANewConnection() {
        byte[] file = ethernet()
                .tcp(A, B, 10, SYN, new byte[0])
                .tcp(A, B, 11, PSH_ACK, ascii("one"))
                .tcp(A, B, 14, TcpSegment.FIN | ACK, new byte[0])
                .tcp(A, B, 5000, SYN, new byte[0])
                .tcp(A, B, 5001, PSH_ACK, ascii("two"))
                .build();
        List<TcpStream> streams = PcapReader.parse(file).streams();
        assertEquals(2, streams.size());
        assertEquals("one", text(streams.get(0).clientToServer()));
        assertEquals("two", text(streams.get(1).clientToServer()));
    }

    @Test
    void ethernetPaddingIsNotPayload() {
        byte[] file = ethernet().padEthernetTo(60)
                .tcp(A, B, 10, SYN, new byte[0])
                .tcp(A, B, 11, PSH_ACK, ascii("ab"))  // 14 + 20 + 20 + 2 = 56 bytes, padded to 60
                .build();
        PcapReader pcap = PcapReader.parse(file);
        assertArrayEquals(ascii("ab"), pcap.segments().get(1).payload());
        assertEquals("ab", text(single(pcap).clientToServer()));
    }

    @Test
    void skipsNonTcpRecordsButCountsThem() {
        byte[] arp = new byte[42];
        arp[12] = 0x08;
        arp[13] = 0x06;
        byte[] file = ethernet().frame(arp).tcp(A, B, 11, PSH_ACK, ascii("x")).build();
        PcapReader pcap = PcapReader.parse(file);
        assertEquals(2, pcap.frameCount());
        assertEquals(1, pcap.segments().size());
        assertEquals(2, pcap.segments().get(0).frame());
    }

    @Test
    void ignoresALastRecordCutShort() {
        byte[] whole = ethernet().tcp(A, B, 11, PSH_ACK, ascii("x")).tcp(A, B, 12, PSH_ACK, ascii("y")).build();
        PcapReader pcap = PcapReader.parse(Arrays.copyOf(whole, whole.length - 3));
        assertEquals(1, pcap.frameCount());
    }

    @Test
    void rejectsPcapngAndOtherFilesWithAReason(@TempDir Path dir) throws IOException {
        byte[] pcapng = {0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        Path file = Files.write(dir.resolve("x.pcapng"), pcapng);
        IOException e = assertThrows(IOException.class, () -> PcapReader.read(file));
        assertTrue(e.getMessage().contains("pcapng"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PcapReader.parse(new byte[24]));
        byte[] tokenRing = new PcapBuilder(6, ByteOrder.LITTLE_ENDIAN, false).frame(new byte[30]).build();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PcapReader.parse(tokenRing)).getMessage()
                .contains("link type 6"));
    }

    // ---- the golden captures ------------------------------------------------------------------------------

    @Test
    void rpingHasOneConnectionWithTheMpaKeysAndTheListingsLengths() throws IOException {
        PcapReader pcap = PcapReader.read(SharedCaptures.require("siw-rping-veth.pcap"));
        assertEquals(1, pcap.linkType());
        assertEquals(26, pcap.frameCount());
        assertEquals(26, pcap.segments().size());
        TcpStream s = single(pcap);
        assertEquals(endpoint("10.9.0.2", 45946), s.client());
        assertEquals(endpoint("10.9.0.1", 7174), s.server());
        assertEquals("MPA ID Req Frame", text(Arrays.copyOf(s.clientToServer(), 16)));
        assertEquals("MPA ID Rep Frame", text(Arrays.copyOf(s.serverToClient(), 16)));
        // The listing's final FIN carries Seq=353 (client) and Seq=457 (server): 352 and 456 data bytes.
        assertEquals(352, s.clientToServer().length);
        assertEquals(456, s.serverToClient().length);
        assertFalse(s.hasHole());
    }

    /** Every connection of every capture, with the data lengths the FIN sequence numbers of the .txt imply. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "siw-rping-veth.pcap,        10.9.0.2:45946,  10.9.0.1:7174,   352,   456",
        "siw-ib_write_bw-veth.pcap,  10.9.0.2:37329,  10.9.0.1:18515,  868,   868",
        "siw-ib_write_bw-veth.pcap,  10.9.0.2:52731,  10.9.0.1:18515,  83144, 24",
        "host-peer-rping-crc.pcap,   10.0.2.2:60710,  10.0.2.15:7174,  6304,  6408",
        "siw-handshakes.pcap,        10.0.2.2:50886,  10.0.2.15:7174,  24,    24",
        "siw-handshakes.pcap,        10.0.2.2:50888,  10.0.2.15:7174,  20,    0",
        "siw-handshakes.pcap,        10.0.2.2:52936,  10.0.2.15:7175,  0,     0",
        "siw-handshakes.pcap,        10.0.2.15:54789, 10.0.2.100:9999, 35,    24"})
    void everyCapturedConnectionHasTheListingsLengths(String file, String client, String server, int up, int down)
            throws IOException {
        PcapReader pcap = PcapReader.read(SharedCaptures.require(file));
        TcpStream s = pcap.streams().stream().filter(t -> t.client().toString().equals(client)).findFirst()
                .orElseThrow(() -> new AssertionError("no connection from " + client + " in " + pcap.streams()));
        assertEquals(server, s.server().toString());
        assertEquals(up, s.clientToServer().length);
        assertEquals(down, s.serverToClient().length);
        assertTrue(s.handshakeSeen());
        assertFalse(s.hasHole());
        // No retransmissions in these captures: the streams are exactly the payloads, in capture order.
        assertEquals(up, payloadSum(s, s.client()));
        assertEquals(down, payloadSum(s, s.server()));
    }

    @Test
    void capturesHoldExactlyTheListedConnections() throws IOException {
        assertEquals(1, PcapReader.read(SharedCaptures.require("siw-rping-veth.pcap")).streams().size());
        assertEquals(2, PcapReader.read(SharedCaptures.require("siw-ib_write_bw-veth.pcap")).streams().size());
        assertEquals(1, PcapReader.read(SharedCaptures.require("host-peer-rping-crc.pcap")).streams().size());
        assertEquals(4, PcapReader.read(SharedCaptures.require("siw-handshakes.pcap")).streams().size());
    }

    private static int payloadSum(TcpStream s, TcpEndpoint sender) {
        return s.segments().stream().filter(g -> g.source().equals(sender)).mapToInt(g -> g.payload().length).sum();
    }

    private static PcapBuilder ethernet() {
        return new PcapBuilder(1, ByteOrder.LITTLE_ENDIAN, false);
    }

    private static TcpStream single(PcapReader pcap) {
        List<TcpStream> streams = pcap.streams();
        assertEquals(1, streams.size(), () -> "streams: " + streams);
        return streams.get(0);
    }

    private static TcpEndpoint endpoint(String ip, int port) {
        try {
            return new TcpEndpoint(InetAddress.getByName(ip), port);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(US_ASCII);
    }

    private static String text(byte[] b) {
        return new String(b, US_ASCII);
    }
}
