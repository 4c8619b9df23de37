package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import io.jdat.testing.wire.Capture;
import io.jdat.testing.wire.ExpertInfo;
import io.jdat.testing.wire.ExpertSeverity;
import io.jdat.testing.wire.Fpdu;
import io.jdat.testing.wire.IrdOrd;
import io.jdat.testing.wire.IwarpConnection;
import io.jdat.testing.wire.IwarpStreamDecoder;
import io.jdat.testing.wire.MpaFrame;
import io.jdat.testing.wire.PcapReader;
import io.jdat.testing.wire.ReadRequest;
import io.jdat.testing.wire.TcpSegment;
import io.jdat.testing.wire.TcpStream;
import io.jdat.testing.wire.Tshark;
import io.jdat.testing.wire.TsharkFrame;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Wire check: captures the {@code tcp} provider's own loopback traffic with {@code dumpcap} and checks it
 * twice. Wireshark's dissectors ({@link Tshark}) must decode every frame as {@code iwarp_mpa} /
 * {@code iwarp_ddp_rdmap}, as many FPDUs as the reference decoder finds, with good CRCs and no malformed or
 * error expert info; the only iWARP expert infos allowed are tshark 4.0's two notes on RFC 6581 start-up frames
 * (revision 2, and the enhanced flag 0x10 that RFC 5044 still calls reserved), and the only other ones above
 * Note are TCP's sequence analysis of loopback (window full, zero window, a retransmission, the reset after a
 * Terminate). The reference decoder ({@link IwarpStreamDecoder}) checks what tshark does not: the IRD/ORD
 * block, queue numbers and MSNs, MO and TO continuity, the L flag, the MULPDU, pad bytes, the CRC byte order,
 * and how the streams end.
 *
 * <p>Each run uses two connections: one exchanging every message type and ending gracefully, one ending with
 * a Terminate after an RDMA Write to an STag that does not exist. Skipped only where
 * {@link Tshark#unavailableReason()} says tshark or dumpcap cannot run ({@code .ci/run} installs them).
 */
class TcpWireCheckTest {
    /** tshark 4.0's note on every revision 2 Request and Reply. */
    static final String REV_NOTE = "Rev field is NOT set to one as required by RFC 5044";
    /** tshark 4.0's note on the RFC 6581 enhanced flag (0x10), a reserved bit for RFC 5044. */
    static final String RES_NOTE = "Res field is NOT set to zero as required by RFC 5044";

    private static final int PD_LENGTH = 40;
    private static final int[] SEND_SIZES = {0, 64, 3000, 70000};
    private static final int SE_SIZE = 64;
    private static final int SMALL = 64;
    private static final int BIG = 200 * 1024;
    /** The initiator's max_rdma_read_in / out; the responder's are the other way round, so nothing is clamped. */
    private static final int CLIENT_IRD = 3;
    private static final int CLIENT_ORD = 5;
    private static final int SERVER_IRD = CLIENT_ORD;
    private static final int SERVER_ORD = CLIENT_IRD;

    private static final long BUF = 1 << 20;
    // Client buffer: Send source at 0, RDMA Write source, Read sinks, the Send from the server.
    private static final long C_WRITE_SRC = 0x20000;
    private static final long C_READ_SMALL = 0x60000;
    private static final long C_READ_BIG = 0x80000;
    private static final long C_RECV = 0xF0000;
    // Server buffer: receive buffers from 0, RDMA Write target, Read source, the Send to the client.
    private static final long S_RECV_STRIDE = 70016;
    private static final long S_WRITE_DST = 0x60000;
    private static final long S_READ_SRC = 0xA0000;
    private static final long S_SEND_SRC = 0xF0000;

    /** One configuration: the registry entry and what it puts on the wire. */
    private record Setup(String iaName, boolean crc, int mulpdu, int revision) {
        boolean rtr() {
            return revision == 2; // p2p is on by default; RFC 6581 RTR needs revision 2
        }
    }

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    void crcOff() throws Exception {
        check(new Setup(TcpTesting.LO, false, TcpConfig.LOOPBACK_MULPDU, 2));
    }

    @Test
    void crcOn() throws Exception {
        check(new Setup(TcpTesting.LO_CRC, true, TcpConfig.LOOPBACK_MULPDU, 2));
    }

    @Test
    void crcOnWithSmallFpdus() throws Exception {
        check(new Setup(TcpTesting.LO_SMALL, true, 100, 2));
    }

    @Test
    void revision1() throws Exception {
        check(new Setup(TcpTesting.LO_REV1, false, TcpConfig.LOOPBACK_MULPDU, 1));
    }

    // ------------------------------------------------------------------ one run

    /** What the traffic was, for the checks. */
    private record Traffic(int mainPort, int terminatePort, byte[] requestPd, byte[] replyPd, int serverStag,
            long serverBase, int bogusStag, int clientIrd, int clientOrd, int serverIrd, int serverOrd) {
    }

    private static void check(Setup s) throws Exception {
        Assumptions.assumeTrue(Tshark.unavailableReason().isEmpty(),
                () -> "tcp wire check skipped: " + Tshark.unavailableReason().orElseThrow());
        EpAttr attr = DataPath.attr().maxRdmaReadIn(CLIENT_IRD).maxRdmaReadOut(CLIENT_ORD);
        try (Pair p = new Pair(s.iaName(), attr, 64)) {
            EpAttr serverAttr = attr.copy().maxRdmaReadIn(SERVER_IRD).maxRdmaReadOut(SERVER_ORD);
            p.server.ep.modify(EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN | EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT,
                    new EpParam().epAttr(serverAttr));
            MemorySegment cbuf = p.client.arena.allocate(BUF, 4096);
            MemorySegment sbuf = p.server.arena.allocate(BUF, 4096);
            Lmr clmr = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(cbuf), BUF, p.client.pz,
                    MemPriv.ALL);
            Lmr slmr = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sbuf), BUF, p.server.pz,
                    MemPriv.ALL);
            for (long i = 0; i < BUF; i++) {
                cbuf.set(ValueLayout.JAVA_BYTE, i, DataPath.pat(1, i));
                sbuf.set(ValueLayout.JAVA_BYTE, i, DataPath.pat(2, i));
            }
            // Both service points first: the capture must see the MPA Request of each connection.
            p.psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            PublicServicePoint psp2 = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            Traffic t = new Traffic((int) p.psp.connQual(), (int) psp2.connQual(), bytes(PD_LENGTH, 3),
                    bytes(PD_LENGTH, 4), slmr.rmrContext(), slmr.registeredAddress(), slmr.rmrContext() ^ 0x5A,
                    CLIENT_IRD, CLIENT_ORD, SERVER_IRD, SERVER_ORD);
            assertEquals(List.of(CLIENT_IRD, CLIENT_ORD, SERVER_IRD, SERVER_ORD),
                    List.of(readIn(p.client.ep), readOut(p.client.ep), readIn(p.server.ep), readOut(p.server.ep)),
                    "EP max_rdma_read_in/out as configured");
            SocketAddress to = p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            try (Capture capture = Tshark.start(t.mainPort(), t.terminatePort())) {
                exchangeEverything(p, t, to, clmr, slmr, cbuf, sbuf);
                provokeTerminate(p, t, to, attr, serverAttr, clmr, slmr);
                Path file = capture.stop();
                try {
                    int fpdus = checkWithReferenceDecoder(s, t, PcapReader.read(file));
                    checkWithTshark(s, Tshark.decode(file), fpdus);
                } catch (AssertionError e) {
                    Path kept = Path.of("target", "tcp-wire-check", s.iaName() + ".pcap");
                    Files.createDirectories(kept.getParent());
                    Files.copy(file, kept, StandardCopyOption.REPLACE_EXISTING);
                    throw new AssertionError(e.getMessage() + " (capture kept at " + kept.toAbsolutePath() + ")", e);
                }
            }
            psp2.free();
        }
    }

    /**
     * Connection 1: MPA Request and Reply with private data, the RTR, Sends of 0, 64, 3000 and 70000 bytes, a
     * Send with SE, a Send the other way, RDMA Writes and Reads of 64 bytes and 200 KiB, a graceful disconnect.
     */
    private static void exchangeEverything(Pair p, Traffic t, SocketAddress to, Lmr clmr, Lmr slmr,
            MemorySegment cbuf, MemorySegment sbuf) {
        p.client.ep.connect(to, t.mainPort(), 5_000_000, PD_LENGTH, t.requestPd(), Qos.BEST_EFFORT, 0);
        DatEvent cr = p.server.next(p.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        assertArrayEquals(t.requestPd(), cr.cr().query(CrParam.FIELD_ALL).privateData(), "request private data");
        cr.cr().accept(p.server.ep, PD_LENGTH, t.replyPd());
        p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);

        // Sends (the last with SE), and one Send back.
        int n = SEND_SIZES.length + 1;
        for (int i = 0; i < n; i++) {
            p.server.ep.postRecv(1, new LmrTriplet[] {slmr.triplet(i * S_RECV_STRIDE, S_RECV_STRIDE)}, 100 + i,
                    CompletionFlags.DEFAULT);
        }
        p.client.ep.postRecv(1, new LmrTriplet[] {clmr.triplet(C_RECV, SMALL)}, 150, CompletionFlags.DEFAULT);
        for (int i = 0; i < n; i++) {
            int size = i < SEND_SIZES.length ? SEND_SIZES[i] : SE_SIZE;
            LmrTriplet[] iov = size == 0 ? new LmrTriplet[0] : new LmrTriplet[] {clmr.triplet(0, size)};
            p.client.ep.postSend(iov.length, iov, 200 + i,
                    i < SEND_SIZES.length ? CompletionFlags.DEFAULT : CompletionFlags.SOLICITED_WAIT);
        }
        p.server.ep.postSend(1, new LmrTriplet[] {slmr.triplet(S_SEND_SRC, SMALL)}, 250, CompletionFlags.DEFAULT);
        for (int i = 0; i < n; i++) {
            p.client.expectDto(p.client.reqEvd, 200 + i);
        }
        for (int i = 0; i < n; i++) {
            int size = i < SEND_SIZES.length ? SEND_SIZES[i] : SE_SIZE;
            assertEquals(size, p.server.expectDto(p.server.recvEvd, 100 + i).transferredLength(), "Send " + i);
            assertEquals(-1, cbuf.asSlice(0, size).mismatch(sbuf.asSlice(i * S_RECV_STRIDE, size)), "Send " + i);
        }
        p.server.expectDto(p.server.reqEvd, 250);
        p.client.expectDto(p.client.recvEvd, 150);

        // RDMA Writes of 64 B and 200 KiB, then RDMA Reads of 64 B and 200 KiB.
        p.client.ep.postRdmaWrite(1, new LmrTriplet[] {clmr.triplet(C_WRITE_SRC, SMALL)}, 300,
                slmr.remoteTriplet(S_WRITE_DST, SMALL), CompletionFlags.DEFAULT);
        p.client.ep.postRdmaWrite(1, new LmrTriplet[] {clmr.triplet(C_WRITE_SRC, BIG)}, 301,
                slmr.remoteTriplet(S_WRITE_DST, BIG), CompletionFlags.DEFAULT);
        p.client.ep.postRdmaRead(1, new LmrTriplet[] {clmr.triplet(C_READ_SMALL, SMALL)}, 302,
                slmr.remoteTriplet(S_READ_SRC, SMALL), CompletionFlags.DEFAULT);
        p.client.ep.postRdmaRead(1, new LmrTriplet[] {clmr.triplet(C_READ_BIG, BIG)}, 303,
                slmr.remoteTriplet(S_READ_SRC, BIG), CompletionFlags.DEFAULT);
        for (int c = 300; c <= 303; c++) {
            p.client.expectDto(p.client.reqEvd, c);
        }
        assertEquals(-1, cbuf.asSlice(C_WRITE_SRC, BIG).mismatch(sbuf.asSlice(S_WRITE_DST, BIG)), "RDMA Write data");
        assertEquals(-1, cbuf.asSlice(C_READ_SMALL, SMALL).mismatch(sbuf.asSlice(S_READ_SRC, SMALL)), "Read data");
        assertEquals(-1, cbuf.asSlice(C_READ_BIG, BIG).mismatch(sbuf.asSlice(S_READ_SRC, BIG)), "Read data");

        p.client.ep.disconnect(CloseFlags.GRACEFUL);
        p.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    /** Connection 2: an RDMA Write to an STag that does not exist; the target answers with a Terminate. */
    private static void provokeTerminate(Pair p, Traffic t, SocketAddress to, EpAttr clientAttr, EpAttr serverAttr,
            Lmr clmr, Lmr slmr) {
        Endpoint cep = Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd, p.client.reqEvd, p.client.connEvd,
                clientAttr);
        Endpoint sep = Endpoint.create(p.server.ia, p.server.pz, p.server.recvEvd, p.server.reqEvd, p.server.connEvd,
                serverAttr);
        cep.connect(to, t.terminatePort(), 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent cr = p.server.next(p.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        cr.cr().accept(sep, 0, null);
        p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        cep.postRdmaWrite(1, new LmrTriplet[] {clmr.triplet(C_WRITE_SRC, SMALL)}, 400,
                new RmrTriplet(t.bogusStag(), slmr.registeredAddress() + S_WRITE_DST, SMALL), CompletionFlags.DEFAULT);
        p.server.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
        p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
        assertEquals(400, p.client.next(p.client.reqEvd).userCookie(), "the RDMA Write to a bogus STag completes");
    }

    // ------------------------------------------------------------------ tshark

    private static void checkWithTshark(Setup s, Tshark.Decoded d, int referenceFpdus) {
        assertEquals(List.of(), d.problems(), "tshark: malformed or error expert info, or a bad CRC");
        assertEquals(List.of(), d.notDecodedAsIwarp(), "tshark: frames not decoded as iwarp_mpa / iwarp_ddp_rdmap");
        int fpdus = d.frames().stream().mapToInt(TsharkFrame::mpaFpdus).sum();
        assertEquals(referenceFpdus, fpdus, "tshark: as many FPDUs as the reference decoder found");

        List<String> crcs = d.frames().stream().flatMap(f -> f.crcChecks().stream()).toList();
        if (s.crc()) {
            assertEquals(fpdus, crcs.size(), "tshark: a CRC check for every FPDU with CRC on");
            assertTrue(crcs.stream().allMatch(c -> c.endsWith("(Good CRC32)")), "tshark: every CRC good: " + crcs);
        } else {
            assertEquals(List.of(), crcs, "tshark: no CRC check with CRC off");
        }

        // iWARP expert info: tshark 4.0's two notes on revision 2 start-up frames, nothing else.
        Set<String> allowed = s.revision() == 2 ? Set.of(REV_NOTE, RES_NOTE) : Set.of();
        List<String> iwarpTotals = d.tapExperts().stream().filter(e -> e.protocol().startsWith("IWARP"))
                .map(e -> e.severity() + "/" + e.group() + ": " + e.summary()).toList();
        List<String> unexpected = d.tapExperts().stream()
                .filter(e -> e.protocol().startsWith("IWARP") && !allowed.contains(e.summary()))
                .map(e -> e.severity() + "/" + e.group() + ": " + e.summary()).toList();
        assertEquals(List.of(), unexpected, "tshark: iWARP expert info other than the revision 2 notes");
        if (s.revision() == 2) {
            assertTrue(iwarpTotals.stream().anyMatch(e -> e.endsWith(REV_NOTE)),
                    "tshark: the revision 2 note is raised (else the expert summary went unread): " + iwarpTotals);
        }
        // Other expert info above Note: only TCP's sequence analysis (window full, zero window, a loopback
        // retransmission, the reset after a Terminate), which says nothing about the iWARP wire format; the
        // reference decoder checks that the streams are whole and how they end.
        List<String> others = new ArrayList<>();
        for (TsharkFrame f : d.frames()) {
            for (ExpertInfo e : f.experts()) {
                boolean iwarp = e.protocol().startsWith("iwarp");
                if (iwarp ? !allowed.contains(e.message())
                        : e.severity().compareTo(ExpertSeverity.NOTE) > 0 && !isTcpSequence(e.protocol(), e.group())) {
                    others.add("frame " + f.number() + ": " + e);
                }
            }
        }
        d.tapExperts().stream().filter(e -> !e.protocol().startsWith("IWARP")
                && e.severity().compareTo(ExpertSeverity.NOTE) > 0 && !isTcpSequence(e.protocol(), e.group()))
                .forEach(e -> others.add("summary: " + e.severity() + "/" + e.group() + " (" + e.protocol() + "): "
                        + e.summary()));
        assertEquals(List.of(), others, "tshark: expert info other than the revision 2 notes and TCP sequence"
                + " analysis");

        Set<Integer> seen = d.frames().stream().flatMap(f -> f.rdmapOpcodes().stream())
                .collect(Collectors.toCollection(TreeSet::new));
        Map<Integer, String> expected = new TreeMap<>(Map.of(0x0, "Write", 0x1, "Read Request", 0x2, "Read Response",
                0x3, "Send", 0x5, "Send with SE", 0x7, "Terminate"));
        List<String> missing = expected.entrySet().stream().filter(e -> !seen.contains(e.getKey()))
                .map(Map.Entry::getValue).toList();
        assertEquals(List.of(), missing, "tshark: RDMAP opcodes not decoded (decoded: " + seen + ")");
        assertTrue(expected.keySet().containsAll(seen), "tshark: unexpected RDMAP opcodes " + seen);
    }

    private static boolean isTcpSequence(String protocol, String group) {
        return protocol.equalsIgnoreCase("tcp") && group.equals("Sequence");
    }

    // ------------------------------------------------------------------ reference decoder

    /** @return the number of FPDUs of both connections */
    private static int checkWithReferenceDecoder(Setup s, Traffic t, PcapReader pcap) {
        TcpStream mainStream = stream(pcap, t.mainPort());
        TcpStream termStream = stream(pcap, t.terminatePort());
        // How the streams end: a graceful disconnect is a FIN each way; the Terminate's sender never resets (it
        // sends a FIN after the Terminate unless its peer, which resets a BROKEN stream, is quicker).
        assertTrue(mainStream.segments().stream().noneMatch(TcpSegment::rst), "reference: no reset on the"
                + " gracefully disconnected connection");
        assertEquals(Set.of(mainStream.client(), mainStream.server()), mainStream.segments().stream()
                .filter(TcpSegment::fin).map(TcpSegment::source).collect(Collectors.toSet()),
                "reference: a FIN each way after a graceful disconnect");
        assertTrue(termStream.segments().stream().noneMatch(g -> g.rst() && g.source().equals(termStream.server())),
                "reference: the sender of the Terminate does not reset the stream");
        IwarpConnection main = connection(mainStream);
        IwarpConnection term = connection(termStream);
        for (IwarpConnection c : List.of(main, term)) {
            checkStartup(s, t, c, c == main);
            for (Fpdu f : c.allFpdus()) {
                checkFraming(s, c, f);
            }
        }
        checkMainMessages(s, t, main);
        checkTerminate(s, t, term);
        return main.allFpdus().size() + term.allFpdus().size();
    }

    private static TcpStream stream(PcapReader pcap, int port) {
        List<TcpStream> streams = pcap.streams().stream().filter(st -> st.server().port() == port).toList();
        assertEquals(1, streams.size(), "one TCP connection to port " + port + ": " + streams);
        TcpStream st = streams.get(0);
        assertTrue(st.handshakeSeen() && !st.hasHole(), "whole connection captured: " + st);
        return st;
    }

    private static IwarpConnection connection(TcpStream st) {
        IwarpConnection c = IwarpStreamDecoder.decode(st);
        assertTrue(c.isMpa() && c.initiatorIsClient() && c.accepted(), "MPA connection: " + st);
        assertEquals(0, c.initiatorUndecoded(), "reference: initiator bytes outside whole FPDUs: " + st);
        assertEquals(0, c.responderUndecoded(), "reference: responder bytes outside whole FPDUs: " + st);
        return c;
    }

    /** MPA Request and Reply: revision, flags, the IRD/ORD block, the private data. */
    private static void checkStartup(Setup s, Traffic t, IwarpConnection c, boolean main) {
        for (MpaFrame f : List.of(c.request(), c.reply())) {
            String what = "reference: MPA " + f;
            assertEquals(s.revision(), f.revision(), what + ": revision");
            assertEquals(s.crc() ? MpaFrame.CRC : 0, f.flags() & MpaFrame.CRC, what + ": flag C");
            assertEquals(0, f.flags() & (MpaFrame.MARKERS | MpaFrame.REJECT | 0x0F), what + ": M, R, reserved bits");
            byte[] pd = main ? (f.request() ? t.requestPd() : t.replyPd()) : new byte[0];
            assertArrayEquals(pd, f.ulpPrivateData(), what + ": private data");
            if (s.revision() == 2) {
                assertTrue(f.enhanced(), what + ": revision 2 with the enhanced flag");
                IrdOrd block = f.irdOrd().orElseThrow();
                IrdOrd expected = f.request()
                        ? new IrdOrd(t.clientIrd(), t.clientOrd(), true, false, true, false)
                        : new IrdOrd(t.serverIrd(), t.serverOrd(), true, false, true, false);
                assertEquals(expected, block, what + ": IRD/ORD block = the EP's max_rdma_read_in/out, P2P with"
                        + " a zero-length RDMA Write as RTR");
            } else {
                assertEquals(0, f.flags() & MpaFrame.ENHANCED, what + ": no enhanced flag in revision 1");
                assertTrue(f.irdOrd().isEmpty(), what + ": no IRD/ORD block in revision 1");
            }
        }
        if (s.rtr()) {
            Fpdu rtr = c.initiatorFpdus().get(0);
            assertTrue(rtr.tagged() && rtr.opcode() == 0 && rtr.last() && rtr.ulpduLength() == Fpdu.TAGGED_HEADER,
                    "reference: the initiator's first FPDU is the RTR, a zero-length RDMA Write: " + rtr);
        }
    }

    /** Every FPDU: versions, reserved bits, MULPDU, pad, CRC (least-significant byte first). */
    private static void checkFraming(Setup s, IwarpConnection c, Fpdu f) {
        String what = "reference: " + f + " at " + f.offset();
        assertEquals(1, f.ddpVersion(), what + ": DDP version");
        assertEquals(1, f.rdmapVersion(), what + ": RDMAP version");
        assertEquals(0, f.ddpControl() & 0x3C, what + ": DDP reserved bits");
        assertEquals(0, f.rdmapControl() & 0x30, what + ": RDMAP reserved bits");
        assertTrue(f.ulpduLength() <= s.mulpdu(), what + ": ULPDU of " + f.ulpduLength() + " bytes > MULPDU "
                + s.mulpdu());
        assertArrayEquals(new byte[f.padLength()], f.padBytes(), what + ": pad bytes zero");
        if (c.crcInUse()) {
            assertTrue(f.crcValid(), what + ": CRC32c least-significant byte first");
        } else {
            assertArrayEquals(new byte[4], f.crcField(), what + ": CRC field zero with CRC off");
        }
        if (!f.tagged()) {
            assertEquals(0, f.invalidateStag(), what + ": RsvdULP zero");
        }
    }

    /** One RDMAP message: its segments in order. */
    private record Message(int opcode, List<Fpdu> segments) {
        long size() {
            return segments.stream().mapToLong(f -> f.ulpduLength() - f.headerLength()).sum();
        }
    }

    /** Splits FPDUs into messages at the L flag, per queue for untagged ones and per opcode for tagged ones. */
    private static List<Message> messages(List<Fpdu> fpdus, boolean tagged, int opcodeOrQn) {
        List<Message> out = new ArrayList<>();
        List<Fpdu> open = new ArrayList<>();
        for (Fpdu f : fpdus) {
            if (f.tagged() != tagged || (tagged ? f.opcode() != opcodeOrQn : f.qn() != opcodeOrQn)) {
                continue;
            }
            open.add(f);
            if (f.last()) {
                out.add(new Message(open.get(0).opcode(), List.copyOf(open)));
                open.clear();
            }
        }
        assertEquals(List.of(), open, "reference: segments after the last L flag");
        return out;
    }

    /** Untagged messages: QN, MSN from 1, MO from 0 and increasing, one opcode, L on the last segment only. */
    private static void checkUntagged(List<Message> msgs, int qn, String what) {
        for (int m = 0; m < msgs.size(); m++) {
            long mo = 0;
            List<Fpdu> segs = msgs.get(m).segments();
            for (int i = 0; i < segs.size(); i++) {
                Fpdu f = segs.get(i);
                String at = "reference: " + what + " message " + (m + 1) + " segment " + (i + 1) + " " + f;
                assertEquals(qn, f.qn(), at + ": QN");
                assertEquals(m + 1, f.msn(), at + ": MSN 1, 2, 3...");
                assertEquals(mo, Integer.toUnsignedLong(f.mo()), at + ": MO continues the message");
                assertEquals(msgs.get(m).opcode(), f.opcode(), at + ": one opcode per message");
                assertEquals(i == segs.size() - 1, f.last(), at + ": L only on the last segment");
                mo += f.ulpduLength() - f.headerLength();
            }
        }
    }

    /** Tagged messages: one STag, TO increasing without gaps, L on the last segment only. */
    private static void checkTagged(List<Message> msgs, List<Integer> stags, List<Long> tos, String what) {
        assertEquals(stags.size(), msgs.size(), "reference: " + what + " messages");
        for (int m = 0; m < msgs.size(); m++) {
            long to = tos.get(m);
            List<Fpdu> segs = msgs.get(m).segments();
            for (int i = 0; i < segs.size(); i++) {
                Fpdu f = segs.get(i);
                String at = "reference: " + what + " " + (m + 1) + " segment " + (i + 1) + " " + f;
                assertEquals((int) stags.get(m), f.stag(), at + ": STag");
                assertEquals(to, f.to(), at + ": TO increases with the data");
                assertEquals(i == segs.size() - 1, f.last(), at + ": L only on the last segment");
                to += f.ulpduLength() - f.headerLength();
            }
        }
    }

    private static void checkMainMessages(Setup s, Traffic t, IwarpConnection c) {
        List<Fpdu> ini = c.initiatorFpdus().subList(s.rtr() ? 1 : 0, c.initiatorFpdus().size());
        List<Fpdu> resp = c.responderFpdus();
        assertTrue(ini.stream().noneMatch(f -> f.opcode() == 2 || f.opcode() == 7), "reference: initiator opcodes");

        List<Message> sends = messages(ini, false, 0);
        checkUntagged(sends, 0, "Send");
        assertEquals(List.of(0L, 64L, 3000L, 70000L, (long) SE_SIZE), sends.stream().map(Message::size).toList(),
                "reference: Send sizes");
        assertEquals(List.of(3, 3, 3, 3, 5), sends.stream().map(Message::opcode).toList(),
                "reference: Send opcodes (Send, then Send with SE)");
        // The MULPDU of a connection comes from its MSS at establishment (issue 14 item 8), at most s.mulpdu():
        // the first segment of a message longer than it shows it.
        int mulpdu = sends.get(3).segments().get(0).ulpduLength();
        assertTrue(mulpdu <= s.mulpdu(), "reference: MULPDU " + mulpdu + " <= " + s.mulpdu());
        int sendMaxSegment = mulpdu - Fpdu.UNTAGGED_HEADER;
        assertEquals((70000 + sendMaxSegment - 1) / sendMaxSegment, sends.get(3).segments().size(),
                "reference: the 70000-byte Send in full MULPDU segments");

        List<Message> reads = messages(ini, false, 1);
        checkUntagged(reads, 1, "Read Request");
        assertEquals(2, reads.size(), "reference: Read Requests");
        List<ReadRequest> rr = reads.stream().map(m -> {
            assertEquals(1, m.segments().size(), "reference: a Read Request is one segment");
            assertEquals(1, m.opcode(), "reference: Read Request opcode on QN 1");
            return m.segments().get(0).readRequest();
        }).toList();
        assertEquals(List.of(SMALL, BIG), rr.stream().map(ReadRequest::size).toList(), "reference: Read sizes");
        for (ReadRequest r : rr) {
            assertEquals(t.serverStag(), r.sourceStag(), "reference: Read source STag = the server's rmr_context");
            assertEquals(t.serverBase() + S_READ_SRC, r.sourceTo(), "reference: Read source TO = the address");
        }
        assertTrue(ini.stream().allMatch(f -> f.tagged() ? f.opcode() == 0 : f.qn() == 0 || f.qn() == 1),
                "reference: initiator sends only Writes, Sends and Read Requests");

        List<Message> writes = messages(ini, true, 0);
        checkTagged(writes, List.of(t.serverStag(), t.serverStag()),
                List.of(t.serverBase() + S_WRITE_DST, t.serverBase() + S_WRITE_DST), "RDMA Write");
        assertEquals(List.of((long) SMALL, (long) BIG), writes.stream().map(Message::size).toList(),
                "reference: RDMA Write sizes");

        List<Message> responses = messages(resp, true, 2);
        checkTagged(responses, rr.stream().map(ReadRequest::sinkStag).toList(),
                rr.stream().map(ReadRequest::sinkTo).toList(), "Read Response");
        assertEquals(List.of((long) SMALL, (long) BIG), responses.stream().map(Message::size).toList(),
                "reference: Read Response sizes");
        assertTrue(responses.get(1).segments().size() > 1, "reference: the 200 KiB Read Response is many segments");

        List<Message> back = messages(resp, false, 0);
        checkUntagged(back, 0, "responder Send");
        assertEquals(List.of((long) SMALL), back.stream().map(Message::size).toList(), "reference: the Send back");
        assertEquals(responses.stream().mapToInt(m -> m.segments().size()).sum() + 1, resp.size(),
                "reference: the responder sends only Read Responses and one Send");
    }

    private static void checkTerminate(Setup s, Traffic t, IwarpConnection c) {
        List<Fpdu> ini = c.initiatorFpdus().subList(s.rtr() ? 1 : 0, c.initiatorFpdus().size());
        assertEquals(1, ini.size(), "reference: one RDMA Write on the Terminate connection: " + ini);
        assertEquals(t.bogusStag(), ini.get(0).stag(), "reference: the Write names the bogus STag");
        assertEquals(1, c.responderFpdus().size(), "reference: one Terminate: " + c.responderFpdus());
        Fpdu f = c.responderFpdus().get(0);
        String what = "reference: Terminate " + f;
        assertFalse(f.tagged(), what);
        assertEquals(7, f.opcode(), what + ": opcode");
        assertEquals(2, f.qn(), what + ": QN 2");
        assertEquals(1, f.msn(), what + ": MSN 1");
        assertEquals(0, f.mo(), what + ": MO 0");
        assertTrue(f.last(), what + ": L");
        byte[] ctl = f.payload();
        assertTrue(ctl.length >= 4, what + ": control word");
        assertEquals(List.of(1, 1, 0), List.of((ctl[0] & 0xF0) >>> 4, ctl[0] & 0x0F, ctl[1] & 0xFF),
                what + ": layer DDP, tagged buffer error, invalid STag");
    }

    // ------------------------------------------------------------------ helpers

    private static int readIn(Endpoint ep) {
        return ep.query(EpParam.FIELD_EP_ATTR_ALL).epAttr().maxRdmaReadIn();
    }

    private static int readOut(Endpoint ep) {
        return ep.query(EpParam.FIELD_EP_ATTR_ALL).epAttr().maxRdmaReadOut();
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = DataPath.pat(seed, i);
        }
        return b;
    }
}
