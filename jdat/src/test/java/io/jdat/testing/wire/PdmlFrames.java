package io.jdat.testing.wire;

import java.io.FilterInputStream;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/** Streams tshark's PDML output ({@code -T pdml}) into {@link TsharkFrame}s. */
final class PdmlFrames {
    private PdmlFrames() {}

    /**
     * Reads a whole PDML document.
     *
     * @param pdml the document
     * @return one frame per {@code packet} element, in order
     * @throws XMLStreamException if the document is not well-formed XML
     */
    static List<TsharkFrame> parse(InputStream pdml) throws XMLStreamException {
        XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        XMLStreamReader xml = factory.createXMLStreamReader(new FilterInputStream(pdml) {
            @Override
            public void close() {
                // the caller owns the stream (the JDK's reader closes it at the end of the document)
            }
        });
        List<TsharkFrame> frames = new ArrayList<>();
        try {
            FrameBuilder frame = null;
            Deque<String> elements = new ArrayDeque<>(); // "proto:NAME" or "field:NAME", innermost first
            while (xml.hasNext()) {
                int event = xml.next();
                if (event == XMLStreamReader.START_ELEMENT) {
                    String tag = xml.getLocalName();
                    String name = xml.getAttributeValue(null, "name");
                    if (tag.equals("packet")) {
                        frame = new FrameBuilder();
                        elements.clear();
                    } else if (frame != null && tag.equals("proto")) {
                        frame.layers.add(name);
                        elements.push("proto:" + name);
                    } else if (frame != null && tag.equals("field")) {
                        frame.field(name, xml.getAttributeValue(null, "show"),
                                xml.getAttributeValue(null, "showname"), innermostProto(elements));
                        elements.push("field:" + name);
                    }
                } else if (event == XMLStreamReader.END_ELEMENT) {
                    String tag = xml.getLocalName();
                    if (tag.equals("packet") && frame != null) {
                        frames.add(frame.build());
                        frame = null;
                    } else if (frame != null && (tag.equals("proto") || tag.equals("field")) && !elements.isEmpty()) {
                        String ended = elements.pop();
                        if (ended.equals("field:_ws.expert")) {
                            frame.endExpert();
                        }
                    }
                }
            }
        } finally {
            xml.close();
        }
        return frames;
    }

    private static String innermostProto(Deque<String> elements) {
        for (String e : elements) {
            if (e.startsWith("proto:")) {
                return e.substring(6);
            }
        }
        return "";
    }

    /** Collects one {@code packet} element. */
    private static final class FrameBuilder {
        int number;
        List<String> protocols = List.of();
        final List<String> layers = new ArrayList<>();
        int srcPort = -1;
        int dstPort = -1;
        int tcpLength = -1;
        int reassembledIn;
        int mpaFpdus;
        final List<ExpertInfo> experts = new ArrayList<>();
        final List<String> crcChecks = new ArrayList<>();
        final List<Integer> rdmapOpcodes = new ArrayList<>();
        boolean retransmission;
        String expertProto;
        String expertMessage;
        ExpertSeverity expertSeverity;
        String expertGroup;

        void field(String name, String show, String showname, String proto) {
            if (name == null) {
                return;
            }
            switch (name) {
                case "num" -> number = number == 0 ? Integer.parseInt(show) : number;
                case "frame.number" -> number = Integer.parseInt(show);
                case "frame.protocols" -> protocols = Arrays.asList(show.split(":"));
                case "tcp.srcport" -> srcPort = srcPort < 0 ? Integer.parseInt(show) : srcPort;
                case "tcp.dstport" -> dstPort = dstPort < 0 ? Integer.parseInt(show) : dstPort;
                case "tcp.len" -> tcpLength = tcpLength < 0 ? Integer.parseInt(show) : tcpLength;
                case "tcp.reassembled_in" -> reassembledIn = reassembledIn == 0 ? Integer.parseInt(show)
                        : reassembledIn;
                case "iwarp_mpa.fpdu" -> mpaFpdus++;
                case "iwarp_mpa.crc_check" -> crcChecks.add(showname == null ? show : showname);
                case "iwarp_rdma.opcode" -> rdmapOpcodes.add(Integer.decode(show));
                case "tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
                        "tcp.analysis.spurious_retransmission" -> retransmission = true;
                case "_ws.expert" -> {
                    expertProto = proto;
                    expertMessage = null;
                    expertSeverity = null;
                    expertGroup = null;
                }
                case "_ws.expert.message" -> expertMessage = show;
                case "_ws.expert.severity" -> expertSeverity = ExpertSeverity.ofCode(Integer.decode(show));
                case "_ws.expert.group" -> expertGroup = showname != null && showname.startsWith("Group: ")
                        ? showname.substring("Group: ".length()) : show;
                default -> { }
            }
        }

        void endExpert() {
            if (expertSeverity != null) {
                experts.add(new ExpertInfo(expertProto, expertSeverity, expertGroup == null ? "" : expertGroup,
                        expertMessage == null ? "" : expertMessage));
            }
        }

        TsharkFrame build() {
            return new TsharkFrame(number, protocols, layers, srcPort, dstPort, tcpLength, reassembledIn, mpaFpdus,
                    experts, crcChecks, rdmapOpcodes, retransmission);
        }
    }
}
