package io.jdat.testing.wire;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** {@link IwarpStreamDecoder} against the facts the golden captures' README states, and on made-up streams. */
class IwarpStreamDecoderTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void crc32cCheckValue() {
        CRC32C crc = new CRC32C();
        crc.update("123456789".getBytes(US_ASCII));
        assertEquals(0xE3069283L, crc.getValue());
    }

    /** Every stream of every capture frames cleanly, and every header obeys the RFCs' fixed values. */
    @Test
    void everyStreamOfEveryCaptureDecodes() throws IOException {
        int mpaConnections = 0;
        int fpdus = 0;
        for (Path file : SharedCaptures.requireAll()) {
            for (TcpStream s : PcapReader.read(file).streams()) {
                IwarpConnection c = IwarpStreamDecoder.decode(s);
                String where = file.getFileName() + " " + s;
                assertEquals(0, c.initiatorUndecoded(), where);
                assertEquals(0, c.responderUndecoded(), where);
                if (!c.isMpa()) {
                    // Only the connection refused with an RST carries no MPA at all, and it carries nothing.
                    assertEquals(0, s.clientToServer().length + s.serverToClient().length, where);
                    continue;
                }
                mpaConnections++;
                assertTrue(c.initiatorIsClient(), where);
                assertEquals(0, c.request().flags() & (MpaFrame.REJECT | 0x0F), where);
                for (Fpdu f : c.allFpdus()) {
                    fpdus++;
                    String what = where + " " + f;
                    assertEquals(1, f.ddpVersion(), what);
                    assertEquals(1, f.rdmapVersion(), what);
                    assertEquals(0, f.ddpControl() & 0x3C, what);
                    assertEquals(0, f.rdmapControl() & 0x30, what);
                    if (!f.tagged()) {
                        assertEquals(0, f.mo(), what + ": MO is always 0");
                        assertEquals(0, f.invalidateStag(), what);
                    }
                    if (c.crcInUse()) {
                        assertTrue(f.crcValid(), what);
                    } else {
                        assertArrayEquals(new byte[4], f.crcField(), what + ": siw sends a zero CRC field");
                    }
                }
            }
        }
        assertEquals(7, mpaConnections);
        assertEquals(6 + 8 + 10 + 12 + 16 + 16 + 60, fpdus);
    }

    /**
     * siw does not zero the pad: in the one FPDU with pad bytes (a 2-byte perftest Send, each way) the pad
     * repeats bytes of the previous Send. A receiver must ignore the pad's value (and CRC it as received).
     */
    @Test
    void siwSendsStalePadBytes() throws IOException {
        List<String> padded = new ArrayList<>();
        for (Path file : SharedCaptures.requireAll()) {
            for (TcpStream s : PcapReader.read(file).streams()) {
                for (Fpdu f : IwarpStreamDecoder.decode(s).allFpdus()) {
                    if (f.padLength() > 0) {
                        padded.add(file.getFileName() + " " + s.client().port() + " msn " + f.msn() + " payload "
                                + HEX.formatHex(f.payload()) + " pad " + HEX.formatHex(f.padBytes()));
                    }
                }
            }
        }
        assertEquals(List.of("siw-ib_write_bw-veth.pcap 37329 msn 4 payload 3300 pad 0040",
                "siw-ib_write_bw-veth.pcap 37329 msn 4 payload 3300 pad 0040"), padded);
    }

    @Test
    void rpingHandshakeCarriesTheRevision2IrdOrdBlock() throws IOException {
        IwarpConnection c = rping();
        for (MpaFrame f : List.of(c.request(), c.reply())) {
            assertEquals(0x10, f.flags(), f.toString());
            assertEquals(2, f.revision());
            assertTrue(f.enhanced());
            assertEquals("00010001", HEX.formatHex(f.privateData()));
            assertEquals(new IrdOrd(1, 1, false, false, false, false), f.irdOrd().orElseThrow());
            assertEquals(0, f.ulpPrivateData().length);
        }
        assertTrue(c.request().request());
        assertFalse(c.reply().request());
        assertFalse(c.crcInUse());
        assertTrue(c.accepted());
    }

    @Test
    void rpingMessagesFollowTheIterationWithSendsOnQueue0AndReadRequestsOnQueue1() throws IOException {
        IwarpConnection c = rping();
        assertEquals(List.of("Send", "Read Response", "Send", "Send", "Read Response", "Send"),
                c.initiatorFpdus().stream().map(Fpdu::opcodeName).toList());
        assertEquals(List.of("Read Request", "Send", "Write", "Send", "Read Request", "Send", "Write", "Send"),
                c.responderFpdus().stream().map(Fpdu::opcodeName).toList());
        for (List<Fpdu> side : List.of(c.initiatorFpdus(), c.responderFpdus())) {
            List<Integer> sendMsns = new ArrayList<>();
            List<Integer> readMsns = new ArrayList<>();
            for (Fpdu f : side) {
                assertTrue(f.last(), f.toString());
                switch (f.opcode()) {
                    case 3 -> {
                        assertEquals(0, f.qn());
                        sendMsns.add(f.msn());
                    }
                    case 1 -> {
                        assertEquals(1, f.qn());
                        readMsns.add(f.msn());
                    }
                    default -> assertTrue(f.tagged(), f.toString());
                }
            }
            assertEquals(List.of(1, 2, 3, 4), sendMsns);
            assertEquals(side == c.responderFpdus() ? List.of(1, 2) : List.of(), readMsns);
        }
    }

    /** README: the Read Request of frame 9, and the client's Read Response that answers it. */
    @Test
    void rpingFrame9IsTheReadRequestWithThe28ByteHeader() throws IOException {
        PcapReader pcap = PcapReader.read(SharedCaptures.require("siw-rping-veth.pcap"));
        TcpSegment frame9 = pcap.segments().stream().filter(s -> s.frame() == 9).findFirst().orElseThrow();
        assertEquals(2 + 18 + 28 + 4, frame9.payload().length);
        Fpdu f = Fpdu.parse(frame9.payload(), 0);
        assertEquals(46, f.ulpduLength());
        assertEquals(0, f.padLength());
        assertFalse(f.tagged());
        assertEquals(1, f.qn());
        assertEquals(1, f.msn());
        assertEquals(new ReadRequest(0x80b9a800, 0x56334c5e6620L, 64, 0x99d64a00, 0x56122fdbc9b0L), f.readRequest());

        Fpdu response = rping().initiatorFpdus().get(1);
        assertEquals(2, response.opcode());
        assertTrue(response.tagged());
        assertEquals(0x80b9a800, response.stag());
        assertEquals(0x56334c5e6620L, response.to());
        assertEquals(64, response.payload().length);
    }

    /**
     * The regression fact for the transport: the CRC field holds CRC-32C over length + ULPDU + pad, least
     * significant byte first. README: value 0x71ce69f2 is on the wire as {@code f2 69 ce 71} in frame 9.
     */
    @Test
    void hostPeerCrcIsCrc32cOverLengthUlpduAndPadSentLeastSignificantByteFirst() throws IOException {
        PcapReader pcap = PcapReader.read(SharedCaptures.require("host-peer-rping-crc.pcap"));
        TcpSegment frame9 = pcap.segments().stream().filter(s -> s.frame() == 9).findFirst().orElseThrow();
        Fpdu readRequest = Fpdu.parse(frame9.payload(), 0);
        assertEquals(0x71ce69f2, crc32c(readRequest.crcInput()));
        assertEquals("f269ce71", HEX.formatHex(readRequest.crcField()));

        IwarpConnection c = IwarpStreamDecoder.decode(pcap.streams().get(0));
        assertEquals(MpaFrame.CRC | MpaFrame.ENHANCED, c.request().flags());
        assertEquals(MpaFrame.CRC | MpaFrame.ENHANCED, c.reply().flags());
        assertTrue(c.crcInUse());
        assertEquals(22, c.allFpdus().size());
        for (Fpdu f : c.allFpdus()) {
            int crc = crc32c(f.crcInput());
            assertEquals(2 + f.ulpduLength() + f.padLength(), f.crcInput().length);
            assertArrayEquals(bytes(crc, ByteOrder.LITTLE_ENDIAN), f.crcField(), f.toString());
            assertFalse(java.util.Arrays.equals(bytes(crc, ByteOrder.BIG_ENDIAN), f.crcField()),
                    () -> f + ": CRC would also match big-endian");
        }
    }

    @Test
    void ibWriteBw4096ByteWritesAreThreeSegmentsWithIncreasingTo() throws IOException {
        List<TcpStream> streams = PcapReader.read(SharedCaptures.require("siw-ib_write_bw-veth.pcap")).streams();
        IwarpConnection params = IwarpStreamDecoder.decode(streams.get(0));
        IwarpConnection test = IwarpStreamDecoder.decode(streams.get(1));
        assertEquals(52731, streams.get(1).client().port());
        for (IwarpConnection c : List.of(params, test)) {
            assertEquals(new IrdOrd(0, 0, false, false, false, false), c.request().irdOrd().orElseThrow());
            assertEquals(new IrdOrd(0, 0, false, false, false, false), c.reply().irdOrd().orElseThrow());
        }
        assertTrue(params.allFpdus().stream().allMatch(f -> f.opcode() == 3 && f.payload().length >= 2
                && f.payload().length <= 56));

        List<Fpdu> writes = test.initiatorFpdus();
        assertEquals(60, writes.size());
        for (int m = 0; m < 20; m++) {
            List<Fpdu> message = writes.subList(3 * m, 3 * m + 3);
            assertEquals(List.of(false, false, true), message.stream().map(Fpdu::last).toList(), "write " + m);
            assertEquals(List.of(1428, 1428, 1240), message.stream().map(f -> f.payload().length).toList());
            for (int i = 0; i < 3; i++) {
                assertEquals(0, message.get(i).opcode());
                assertTrue(message.get(i).tagged());
                assertEquals(message.get(0).stag(), message.get(i).stag());
                assertEquals(message.get(0).to() + 1428L * i, message.get(i).to(), "write " + m + " segment " + i);
            }
        }
        assertEquals(List.of(), test.responderFpdus());
    }

    @Test
    void handshakeCornerCases() throws IOException {
        List<TcpStream> streams = PcapReader.read(SharedCaptures.require("siw-handshakes.pcap")).streams();
        IwarpConnection markers = IwarpStreamDecoder.decode(streams.get(0));
        assertEquals(MpaFrame.MARKERS | MpaFrame.ENHANCED, markers.request().flags());
        assertEquals(new IrdOrd(1, 1, false, false, false, false), markers.request().irdOrd().orElseThrow());
        assertEquals(MpaFrame.REJECT | MpaFrame.ENHANCED, markers.reply().flags());
        assertTrue(markers.reply().reject());
        assertEquals(4, markers.reply().pdLength());
        assertEquals(new IrdOrd(0, 0, false, false, false, false), markers.reply().irdOrd().orElseThrow());
        assertFalse(markers.accepted());

        IwarpConnection rev3 = IwarpStreamDecoder.decode(streams.get(1));
        assertEquals(3, rev3.request().revision());
        assertEquals(0, rev3.request().flags());
        assertEquals(0, rev3.request().pdLength());
        assertFalse(rev3.request().enhanced());
        assertNull(rev3.reply());

        assertFalse(IwarpStreamDecoder.decode(streams.get(2)).isMpa());

        IwarpConnection pdata = IwarpStreamDecoder.decode(streams.get(3));
        assertEquals("10.0.2.15", streams.get(3).client().address().getHostAddress());
        assertEquals(15, pdata.request().pdLength());
        assertEquals("00030005" + HEX.formatHex("HELLO-PDATA".getBytes(US_ASCII)),
                HEX.formatHex(pdata.request().privateData()));
        assertEquals(new IrdOrd(3, 5, false, false, false, false), pdata.request().irdOrd().orElseThrow());
        assertEquals("HELLO-PDATA", new String(pdata.request().ulpPrivateData(), US_ASCII));
        assertEquals(new IrdOrd(1, 1, false, false, false, false), pdata.reply().irdOrd().orElseThrow());
    }

    // ---- made-up streams ----------------------------------------------------------------------------------

    @Test
    void decodesHeadersAndCountsAPartialLastFpduAsUndecoded() {
        byte[] request = mpa(MpaFrame.REQUEST_KEY, MpaFrame.CRC | MpaFrame.ENHANCED, 2, "c00a8003" + "abcd");
        byte[] reply = mpa(MpaFrame.REPLY_KEY, MpaFrame.ENHANCED, 2, "00020001");
        // Send with Invalidate, QN 0, MSN 7, MO 0, invalidate STag 0x11223344, 3 payload bytes: pad 1.
        byte[] send = fpdu("43" + "44" + "11223344" + "00000000" + "00000007" + "00000000" + "aabbcc");
        // Tagged Write, not last, STag 0x01020304, TO 0x1122334455667788, 2 payload bytes: pad 2.
        byte[] write = fpdu("81" + "40" + "01020304" + "1122334455667788" + "eeff");
        byte[] ini = concat(request, send, write, new byte[] {0, 40, 1, 2, 3});
        IwarpConnection c = IwarpStreamDecoder.decode(ini, reply);
        assertEquals(new IrdOrd(0x000a, 0x0003, true, true, true, false), c.request().irdOrd().orElseThrow());
        assertEquals("abcd", HEX.formatHex(c.request().ulpPrivateData()));
        assertTrue(c.crcInUse());
        assertEquals(2, c.initiatorFpdus().size());
        assertEquals(5, c.initiatorUndecoded());
        assertEquals(0, c.responderUndecoded());

        Fpdu s = c.initiatorFpdus().get(0);
        assertEquals(request.length, s.offset());
        assertEquals("Send with Invalidate", s.opcodeName());
        assertEquals(List.of(false, true, 0, 7, 0, 0x11223344, 1), List.of(s.tagged(), s.last(), s.qn(), s.msn(),
                s.mo(), s.invalidateStag(), s.padLength()));
        assertEquals("aabbcc", HEX.formatHex(s.payload()));
        assertTrue(s.crcValid());
        assertThrows(IllegalStateException.class, s::stag);
        assertThrows(IllegalStateException.class, s::readRequest);

        Fpdu w = c.initiatorFpdus().get(1);
        assertEquals(List.of(true, false, 0, 0x01020304, 0x1122334455667788L, 2), List.of(w.tagged(), w.last(),
                w.opcode(), w.stag(), w.to(), w.padLength()));
        assertEquals("eeff", HEX.formatHex(w.payload()));
        assertThrows(IllegalStateException.class, w::qn);
    }

    @Test
    void aStreamWithoutTheRequestKeyIsNotMpa() {
        byte[] http = "GET / HTTP/1.1\r\n\r\n".getBytes(US_ASCII);
        IwarpConnection c = IwarpStreamDecoder.decode(http, new byte[3]);
        assertFalse(c.isMpa());
        assertEquals(http.length, c.initiatorUndecoded());
        assertEquals(3, c.responderUndecoded());
        assertThrows(IllegalArgumentException.class, () -> MpaFrame.parse(http, 0));
    }

    @Test
    void aTruncatedCrcFieldIsDetected() {
        byte[] send = fpdu("43" + "03" + "00000000" + "00000000" + "00000001" + "00000000");
        send[send.length - 1] ^= 1;
        assertFalse(Fpdu.parse(send, 0).crcValid());
        assertThrows(IllegalArgumentException.class, () -> Fpdu.parse(send, 3));
    }

    private static IwarpConnection rping() throws IOException {
        return IwarpStreamDecoder.decode(PcapReader.read(SharedCaptures.require("siw-rping-veth.pcap")).streams()
                .get(0));
    }

    private static int crc32c(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    private static byte[] bytes(int value, ByteOrder order) {
        return ByteBuffer.allocate(4).order(order).putInt(value).array();
    }

    private static byte[] mpa(String key, int flags, int revision, String privateDataHex) {
        byte[] pd = HEX.parseHex(privateDataHex);
        return ByteBuffer.allocate(20 + pd.length).put(key.getBytes(US_ASCII)).put((byte) flags)
                .put((byte) revision).putShort((short) pd.length).put(pd).array();
    }

    /** An FPDU around the given ULPDU, with zero pad and a valid CRC (least significant byte first). */
    private static byte[] fpdu(String ulpduHex) {
        byte[] ulpdu = HEX.parseHex(ulpduHex);
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu.length + Fpdu.pad(ulpdu.length) + 4);
        b.putShort((short) ulpdu.length).put(ulpdu).position(b.capacity() - 4);
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(crc32c(java.util.Arrays.copyOf(b.array(), b.capacity() - 4)));
        return b.array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void fpduPadKeepsFourByteAlignment() {
        for (int len = 0; len < 64; len++) {
            assertEquals(0, (2 + len + Fpdu.pad(len)) % 4, "ulpdu " + len);
            assertTrue(Fpdu.pad(len) < 4);
        }
        assertAll(() -> assertEquals(2, Fpdu.pad(0)), () -> assertEquals(0, Fpdu.pad(46)),
                () -> assertEquals(1, Fpdu.pad(21)));
        assertNotEquals(0, Fpdu.pad(1428 + 14 + 1)); // odd sizes need pad
    }
}
