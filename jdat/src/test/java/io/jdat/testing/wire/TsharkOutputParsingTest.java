package io.jdat.testing.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.xml.stream.XMLStreamException;
import org.junit.jupiter.api.Test;

/** The parsing behind {@link Tshark#decode}, on tshark 4.0 output samples: runs without tshark. */
class TsharkOutputParsingTest {
    /** Two frames cut from real {@code -T pdml} output: an FPDU with a bad CRC, and a malformed Send. */
    private static final String PDML = """
            <?xml version="1.0" encoding="utf-8"?>
            <?xml-stylesheet type="text/xsl" href="pdml2html.xsl"?>
            <pdml version="0" creator="wireshark/4.0.17" time="x" capture_file="x.pcap">
            <packet>
              <proto name="geninfo" pos="0" showname="General information" size="106">
                <field name="num" pos="0" show="9" showname="Number" value="9" size="106"/>
              </proto>
              <proto name="frame" showname="Frame 9" size="106" pos="0">
                <field name="frame.protocols" showname="Protocols in frame: eth:ethertype:ip:tcp:iwarp_mpa:iwarp_ddp_rdmap" size="0" pos="0" show="eth:ethertype:ip:tcp:iwarp_mpa:iwarp_ddp_rdmap"/>
              </proto>
              <proto name="tcp" showname="Transmission Control Protocol" size="20" pos="34">
                <field name="tcp.srcport" showname="Source Port: 7174" size="2" pos="34" show="7174" value="1c06"/>
                <field name="tcp.dstport" showname="Destination Port: 60710" size="2" pos="36" show="60710" value="ed26"/>
                <field name="tcp.len" showname="TCP Segment Len: 52" size="0" pos="34" show="52"/>
                <field name="tcp.analysis" showname="SEQ/ACK analysis" size="0" pos="34" show="" value="">
                  <field name="_ws.expert" showname="Expert Info (Note/Sequence): This frame undergoes the connection closing" size="0" pos="46">
                    <field name="tcp.connection.fin_passive" showname="x" size="0" pos="0" show="" value=""/>
                    <field name="_ws.expert.message" showname="Message: This frame undergoes the connection closing" hide="yes" size="0" pos="0" show="This frame undergoes the connection closing"/>
                    <field name="_ws.expert.severity" showname="Severity level: Note" size="0" pos="0" show="4194304"/>
                    <field name="_ws.expert.group" showname="Group: Sequence" size="0" pos="0" show="33554432"/>
                  </field>
                </field>
              </proto>
              <proto name="iwarp_mpa" showname="iWARP Marker Protocol data unit Aligned framing" size="52" pos="54">
                <field name="iwarp_mpa.fpdu" showname="FPDU" size="52" pos="54" show="" value="">
                  <field name="iwarp_mpa.ulpdulength" showname="ULPDU length: 46 bytes" size="2" pos="54" show="46" value="002e"/>
                  <field name="iwarp_mpa.crc_check" showname="CRC check: 0x0d69ce71 (Bad CRC32, should be 0xf269ce71)" size="4" pos="102" show="0x0d69ce71" value="0d69ce71"/>
                </field>
              </proto>
              <proto name="iwarp_ddp_rdmap" showname="iWARP DDP/RDMAP" size="46" pos="56">
                <field name="iwarp_rdma.opcode" showname=".... 0001 = OpCode: Read Request (0x1)" size="1" pos="57" show="0x01" value="41"/>
              </proto>
            </packet>
            <packet>
              <proto name="geninfo" pos="0" showname="General information" size="94">
                <field name="num" pos="0" show="11" showname="Number" value="b" size="94"/>
              </proto>
              <proto name="frame" showname="Frame 11" size="94" pos="0">
                <field name="frame.protocols" showname="Protocols in frame" size="0" pos="0" show="eth:ethertype:ip:tcp:iwarp_mpa:iwarp_ddp_rdmap:rpcordma:_ws.malformed"/>
              </proto>
              <proto name="tcp" showname="Transmission Control Protocol" size="32" pos="34">
                <field name="tcp.len" showname="TCP Segment Len: 28" size="0" pos="34" show="28"/>
                <field name="tcp.analysis.retransmission" showname="This frame is a (suspected) retransmission" size="0" pos="34" show="" value=""/>
              </proto>
              <proto name="iwarp_mpa" showname="iWARP MPA" size="28" pos="66">
                <field name="iwarp_mpa.fpdu" showname="FPDU" size="28" pos="66" show="" value=""/>
              </proto>
              <proto name="iwarp_ddp_rdmap" showname="iWARP DDP/RDMAP" size="22" pos="68"/>
              <proto name="_ws.malformed" showname="[Malformed Packet: RPCoRDMA]" size="0" pos="66">
                <field name="_ws.expert" showname="Expert Info (Error/Malformed): Malformed Packet (Exception occurred)" size="0" pos="66">
                  <field name="_ws.malformed.expert" showname="Malformed Packet (Exception occurred)" size="0" pos="0" show="" value=""/>
                  <field name="_ws.expert.message" showname="Message: Malformed Packet (Exception occurred)" hide="yes" size="0" pos="0" show="Malformed Packet (Exception occurred)"/>
                  <field name="_ws.expert.severity" showname="Severity level: Error" size="0" pos="0" show="8388608"/>
                  <field name="_ws.expert.group" showname="Group: Malformed" size="0" pos="0" show="117440512"/>
                </field>
                <proto name="_ws.malformed" showname="Malformed Packet" hide="yes" size="0" pos="66"/>
              </proto>
            </packet>
            </pdml>
            """;

    private static final String EXPERT_REPORT = """

            Errors (16)
            =============
               Frequency      Group           Protocol  Summary
                      16  Malformed           RPCoRDMA  Malformed Packet (Exception occurred)

            Warns (9)
            =============
               Frequency      Group           Protocol  Summary
                       4    Request          IWARP_MPA  Res field is NOT set to zero as required by RFC 5044
                       4    Request          IWARP_MPA  Rev field is NOT set to one as required by RFC 5044
                       1 Dissector bug                TCP  Made-up item with a two-word group

            Notes (4)
            =============
               Frequency      Group           Protocol  Summary
                       2   Sequence                TCP  This frame initiates the connection closing
            """;

    @Test
    void pdmlFramesCarryLayersPortsExpertsAndCrcChecks() throws XMLStreamException {
        List<TsharkFrame> frames = PdmlFrames.parse(new ByteArrayInputStream(PDML.getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, frames.size());
        TsharkFrame f9 = frames.get(0);
        assertEquals(9, f9.number());
        assertEquals(List.of("eth", "ethertype", "ip", "tcp", "iwarp_mpa", "iwarp_ddp_rdmap"), f9.protocols());
        assertEquals(List.of("geninfo", "frame", "tcp", "iwarp_mpa", "iwarp_ddp_rdmap"), f9.layers());
        assertEquals(List.of(7174, 60710, 52, 0, 1), List.of(f9.srcPort(), f9.dstPort(), f9.tcpLength(),
                f9.reassembledIn(), f9.mpaFpdus()));
        assertTrue(f9.isMpa() && f9.isDdpRdmap() && !f9.malformed());
        assertEquals(List.of(new ExpertInfo("tcp", ExpertSeverity.NOTE, "Sequence",
                "This frame undergoes the connection closing")), f9.experts());
        assertEquals(List.of("CRC check: 0x0d69ce71 (Bad CRC32, should be 0xf269ce71)"), f9.badCrcChecks());
        assertEquals(List.of(1), f9.rdmapOpcodes());

        TsharkFrame f11 = frames.get(1);
        assertTrue(f11.malformed());
        assertTrue(f11.retransmission() && !f9.retransmission());
        assertEquals(-1, f11.srcPort());
        assertEquals(List.of(new ExpertInfo("_ws.malformed", ExpertSeverity.ERROR, "Malformed",
                "Malformed Packet (Exception occurred)")), f11.experts());
        assertTrue(f11.experts().get(0).isProblem());

        Tshark.Decoded decoded = new Tshark.Decoded(Path.of("x.pcap"), frames, ExpertTotals.parse(EXPERT_REPORT));
        assertEquals(List.of("frame 9: CRC check: 0x0d69ce71 (Bad CRC32, should be 0xf269ce71)",
                "frame 11: Error/Malformed (_ws.malformed): Malformed Packet (Exception occurred)"),
                decoded.problems());
        assertEquals(List.of(), decoded.notDecodedAsIwarp());
    }

    @Test
    void expertReportRowsKeepSeverityGroupProtocolAndCount() {
        List<ExpertTotal> totals = ExpertTotals.parse(EXPERT_REPORT);
        assertEquals(List.of(
                new ExpertTotal(ExpertSeverity.ERROR, "Malformed", "RPCoRDMA", "Malformed Packet (Exception occurred)",
                        16),
                new ExpertTotal(ExpertSeverity.WARN, "Request", "IWARP_MPA",
                        "Res field is NOT set to zero as required by RFC 5044", 4),
                new ExpertTotal(ExpertSeverity.WARN, "Request", "IWARP_MPA",
                        "Rev field is NOT set to one as required by RFC 5044", 4),
                new ExpertTotal(ExpertSeverity.WARN, "Dissector bug", "TCP", "Made-up item with a two-word group", 1),
                new ExpertTotal(ExpertSeverity.NOTE, "Sequence", "TCP", "This frame initiates the connection closing",
                        2)), totals);
        assertTrue(totals.get(0).isProblem());
        assertFalse(totals.get(1).isProblem());
    }

    @Test
    void aPayloadFrameOutsideIwarpIsReportedUnlessReassembledIntoOneOrRetransmitted() {
        TsharkFrame head = frame(34, List.of("eth", "ip", "tcp"), 1444, 35, 0);
        TsharkFrame tail = frame(35, List.of("eth", "ip", "tcp", "iwarp_mpa", "iwarp_ddp_rdmap"), 4, 0, 1);
        TsharkFrame plain = frame(36, List.of("eth", "ip", "tcp"), 5, 0, 0);
        TsharkFrame lonely = frame(37, List.of("eth", "ip", "tcp", "iwarp_mpa"), 40, 0, 1);
        List<String> tcp = List.of("eth", "ip", "tcp");
        TsharkFrame again = new TsharkFrame(38, tcp, tcp, 1, 2, 1444, 0, 0, List.of(), List.of(), List.of(), true);
        Tshark.Decoded d = new Tshark.Decoded(Path.of("x"), List.of(head, tail, plain, lonely, again), List.of());
        assertEquals(List.of("frame 36: 5 payload bytes not decoded as iwarp_mpa: eth:ip:tcp",
                "frame 37: 1 MPA FPDUs but 0 iwarp_ddp_rdmap layers"), d.notDecodedAsIwarp());
        assertEquals(List.of(head, tail, plain, lonely, again), d.tcpPayloadFrames());
    }

    private static TsharkFrame frame(int n, List<String> layers, int len, int reassembledIn, int fpdus) {
        return new TsharkFrame(n, layers, layers, 1, 2, len, reassembledIn, fpdus, List.of(), List.of());
    }
}
