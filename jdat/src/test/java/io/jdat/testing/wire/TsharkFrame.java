package io.jdat.testing.wire;

import java.util.List;
import java.util.Objects;

/**
 * What tshark made of one frame: its protocol layers, TCP facts and expert info.
 *
 * @param number the 1-based frame number
 * @param protocols {@code frame.protocols} split at the colons, e.g. {@code [eth, ethertype, ip, tcp,
 *     iwarp_mpa, iwarp_ddp_rdmap, data]}; a protocol appears once even when several PDUs of it are in the frame
 * @param layers the protocol elements of the decoded tree in order, one per PDU (three {@code iwarp_mpa} and
 *     three {@code iwarp_ddp_rdmap} for a frame holding three FPDUs)
 * @param srcPort the TCP source port, or -1 for a frame without TCP
 * @param dstPort the TCP destination port, or -1 for a frame without TCP
 * @param tcpLength the TCP payload length ({@code tcp.len}), or -1 for a frame without TCP
 * @param reassembledIn for a segment whose bytes belong to a PDU that ends in a later frame, that frame's
 *     number ({@code tcp.reassembled_in}); otherwise 0
 * @param mpaFpdus how many MPA FPDUs tshark decoded in this frame ({@code iwarp_mpa.fpdu} items)
 * @param experts the expert info items attached to the frame's tree
 * @param crcChecks the text of each {@code iwarp_mpa.crc_check} item, e.g. {@code CRC check: 0xf269ce71 (Good
 *     CRC32)}; tshark shows one only when the connection negotiated CRC, and flags a bad CRC only here, not
 *     with an expert info item
 * @param rdmapOpcodes the RDMAP opcode ({@code iwarp_rdma.opcode}) of each DDP segment tshark decoded in this
 *     frame, in order, e.g. {@code [3]} for one Send
 * @param retransmission whether tshark's TCP analysis calls the frame a retransmission (plain, fast or
 *     spurious): its payload repeats sequence space already seen, and tshark does not decode it again
 */
public record TsharkFrame(int number, List<String> protocols, List<String> layers, int srcPort, int dstPort,
        int tcpLength, int reassembledIn, int mpaFpdus, List<ExpertInfo> experts, List<String> crcChecks,
        List<Integer> rdmapOpcodes, boolean retransmission) {
    /** The MPA dissector's protocol name. */
    public static final String MPA = "iwarp_mpa";
    /** The DDP/RDMAP dissector's protocol name. */
    public static final String DDP_RDMAP = "iwarp_ddp_rdmap";

    /**
     * Copies the lists.
     *
     * @throws NullPointerException if a list is null
     */
    public TsharkFrame {
        protocols = List.copyOf(Objects.requireNonNull(protocols, "protocols"));
        layers = List.copyOf(Objects.requireNonNull(layers, "layers"));
        experts = List.copyOf(Objects.requireNonNull(experts, "experts"));
        crcChecks = List.copyOf(Objects.requireNonNull(crcChecks, "crcChecks"));
        rdmapOpcodes = List.copyOf(Objects.requireNonNull(rdmapOpcodes, "rdmapOpcodes"));
    }

    /**
     * A frame without decoded RDMAP opcodes, not a retransmission.
     *
     * @throws NullPointerException if a list is null
     */
    public TsharkFrame(int number, List<String> protocols, List<String> layers, int srcPort, int dstPort,
            int tcpLength, int reassembledIn, int mpaFpdus, List<ExpertInfo> experts, List<String> crcChecks) {
        this(number, protocols, layers, srcPort, dstPort, tcpLength, reassembledIn, mpaFpdus, experts, crcChecks,
                List.of(), false);
    }

    /**
     * Whether the frame carries TCP payload.
     *
     * @return true when {@code tcp.len} is positive
     */
    public boolean hasTcpPayload() {
        return tcpLength > 0;
    }

    /**
     * Whether tshark decoded MPA (a Request, Reply or FPDU) in this frame.
     *
     * @return true when an {@value #MPA} layer is present
     */
    public boolean isMpa() {
        return layers.contains(MPA);
    }

    /**
     * Whether tshark decoded DDP/RDMAP in this frame.
     *
     * @return true when an {@value #DDP_RDMAP} layer is present
     */
    public boolean isDdpRdmap() {
        return layers.contains(DDP_RDMAP);
    }

    /**
     * How many PDUs of a protocol the frame's tree holds.
     *
     * @param protocol a protocol name such as {@value #DDP_RDMAP}
     * @return the number of layers of that name
     */
    public int count(String protocol) {
        return (int) layers.stream().filter(protocol::equals).count();
    }

    /**
     * Whether tshark marked the frame malformed.
     *
     * @return true when the {@code _ws.malformed} pseudo-protocol is present
     */
    public boolean malformed() {
        return layers.contains("_ws.malformed") || protocols.contains("_ws.malformed");
    }

    /**
     * The MPA CRC checks that failed.
     *
     * @return the {@link #crcChecks()} entries saying {@code Bad CRC32}
     */
    public List<String> badCrcChecks() {
        return crcChecks.stream().filter(c -> c.contains("Bad")).toList();
    }

    /**
     * A one-line summary such as {@code #9 7174>60710 len=52 eth:ethertype:ip:tcp:iwarp_mpa:iwarp_ddp_rdmap}.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        return "#" + number + " " + srcPort + ">" + dstPort + " len=" + tcpLength + " " + String.join(":", protocols);
    }
}
