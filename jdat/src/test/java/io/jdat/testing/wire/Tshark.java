package io.jdat.testing.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.xml.stream.XMLStreamException;

/**
 * Wire checks with Wireshark's command-line tools: capture loopback TCP traffic with {@code dumpcap} and
 * decode a capture with {@code tshark}, to see whether Wireshark's {@code iwarp_mpa} and
 * {@code iwarp_ddp_rdmap} dissectors accept what a transport put on the wire.
 *
 * <p>Tests call {@link #unavailableReason()} (or {@link #decoderUnavailableReason()} when they only decode)
 * and skip with that reason: a machine without Wireshark, or without the right to capture, skips these
 * checks instead of failing them.
 */
public final class Tshark {
    /** The longest wait for {@code dumpcap} to start, and for the stop marker to reach the capture file. */
    public static final Duration CAPTURE_WAIT = Duration.ofSeconds(5);
    /** The longest wait for one {@code tshark} run. */
    public static final Duration DECODE_WAIT = Duration.ofSeconds(120);

    private Tshark() {}

    /**
     * Why a live capture and its decoding cannot run here.
     *
     * @return empty when {@code tshark} and {@code dumpcap} are installed and {@code dumpcap} may capture on
     *     {@code lo}; else one line naming what is missing
     */
    public static Optional<String> unavailableReason() {
        return WiresharkTools.CAPTURE;
    }

    /**
     * Why {@link #decode(Path)} cannot run here.
     *
     * @return empty when {@code tshark} is installed and runs; else one line naming the problem
     */
    public static Optional<String> decoderUnavailableReason() {
        return WiresharkTools.DECODER;
    }

    /**
     * The first line of {@code tshark --version}.
     *
     * @return e.g. {@code TShark (Wireshark) 4.0.17 (Git v4.0.17 packaged as 4.0.17-0+deb12u3).}
     * @throws IllegalStateException if tshark is unavailable
     */
    public static String version() {
        if (WiresharkTools.DECODER.isPresent()) {
            throw new IllegalStateException(WiresharkTools.DECODER.get());
        }
        return WiresharkTools.version;
    }

    /**
     * Starts capturing loopback TCP traffic to or from the given ports into a fresh pcap file: runs
     * {@code dumpcap -i lo -P -f "tcp port A or tcp port B or udp port M" -w FILE} and returns once packets
     * really reach the file. dumpcap prints "Capturing on 'Loopback: lo'" a moment before that (packets sent
     * right after the message are lost), so after the message the capture sends UDP marker datagrams to its own
     * port M until one is in the file. The file therefore starts with one or more UDP frames.
     *
     * @param tcpPorts the TCP ports to capture (at least one; ports of either end work)
     * @return the running capture; close it to stop it and delete its file
     * @throws IllegalArgumentException if no port is given or one is outside 1 to 65535
     * @throws IllegalStateException if capturing is unavailable ({@link #unavailableReason()})
     * @throws IOException if dumpcap does not print its message, or no marker reaches the file, within
     *     {@link #CAPTURE_WAIT} each
     */
    public static Capture start(int... tcpPorts) throws IOException {
        if (tcpPorts.length == 0) {
            throw new IllegalArgumentException("no port to capture");
        }
        for (int port : tcpPorts) {
            if (port < 1 || port > 0xFFFF) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }
        if (WiresharkTools.CAPTURE.isPresent()) {
            throw new IllegalStateException(WiresharkTools.CAPTURE.get());
        }
        return new Capture(WiresharkTools.dumpcap, tcpPorts);
    }

    /**
     * The protocol layers tshark may stack in one frame ({@code gui.max_tree_depth}, 500 by default). Each MPA
     * FPDU adds two or three layers, and one TCP segment on loopback can hold up to 64 KiB of small FPDUs
     * (about 3300 FPDUs of 20 bytes): with the default, tshark 4.0 stops at the 250th FPDU or so with a
     * "Dissector bug" expert item (failed assertion {@code saved_layers_len < prefs.gui_max_tree_depth}) and
     * loses the FPDU boundaries for the rest of the stream.
     */
    public static final int MAX_TREE_DEPTH = 10_000;

    /**
     * The tshark command {@link #decode(Path)} runs for the per-frame decoding: two passes (so that a segment
     * knows the frame its PDU is reassembled in), PDML output, {@code --disable-protocol rpcordma}
     * (tshark 4.0 otherwise takes 4-byte Send payloads for RPC-over-RDMA and flags them malformed),
     * {@code gui.max_tree_depth} raised to {@link #MAX_TREE_DEPTH}, and {@code tcp.reassemble_out_of_order}
     * on: dumpcap on a multi-CPU loopback sometimes records a segment before the one that precedes it, and
     * tshark 4.0 by default then leaves the PDUs around the gap undecoded.
     *
     * @param pcap the capture
     * @return the program and its arguments
     */
    public static List<String> decodeCommand(Path pcap) {
        return List.of(WiresharkTools.tshark, "-2", "-r", pcap.toString(), "--disable-protocol", "rpcordma", "-o",
                "gui.max_tree_depth:" + MAX_TREE_DEPTH, "-o", "tcp.reassemble_out_of_order:TRUE", "-T", "pdml");
    }

    /**
     * The tshark command {@link #decode(Path)} runs for the expert summary: one pass (the MPA dissector raises
     * its start-up warnings only in the first pass), the same preferences as {@link #decodeCommand(Path)},
     * and {@code -q -z expert}.
     *
     * @param pcap the capture
     * @return the program and its arguments
     */
    public static List<String> expertCommand(Path pcap) {
        return List.of(WiresharkTools.tshark, "-r", pcap.toString(), "--disable-protocol", "rpcordma", "-o",
                "gui.max_tree_depth:" + MAX_TREE_DEPTH, "-o", "tcp.reassemble_out_of_order:TRUE", "-q", "-z",
                "expert");
    }

    /**
     * Decodes a capture with tshark: runs {@link #decodeCommand(Path)} and {@link #expertCommand(Path)} with
     * an empty Wireshark configuration directory, so that no personal preference changes the result.
     *
     * @param pcap a pcap or pcapng file
     * @return the frames and the expert summary
     * @throws IllegalStateException if tshark is unavailable ({@link #decoderUnavailableReason()})
     * @throws IOException if tshark fails (the message holds its standard error) or its output cannot be parsed
     */
    public static Decoded decode(Path pcap) throws IOException {
        if (WiresharkTools.DECODER.isPresent()) {
            throw new IllegalStateException(WiresharkTools.DECODER.get());
        }
        List<TsharkFrame> frames = decodeFrames(pcap);
        ToolRun experts = ToolRun.run(expertCommand(pcap), WiresharkTools.environment(), DECODE_WAIT);
        if (experts.exitCode() != 0) {
            throw new IOException("tshark exit " + experts.exitCode() + ": " + String.join(" ", experts.command())
                    + "\n" + experts.errors());
        }
        return new Decoded(pcap, frames, ExpertTotals.parse(experts.stdout()));
    }

    private static List<TsharkFrame> decodeFrames(Path pcap) throws IOException {
        List<String> command = decodeCommand(pcap);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(WiresharkTools.environment());
        Process process = builder.start();
        process.getOutputStream().close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread errReader = Thread.ofVirtual().start(() -> drain(process.getErrorStream(), err));
        List<TsharkFrame> frames;
        try (InputStream out = process.getInputStream()) {
            frames = PdmlFrames.parse(out);
            out.transferTo(OutputStream.nullOutputStream());
        } catch (XMLStreamException e) {
            process.destroyForcibly();
            throw new IOException("unreadable PDML from " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
        try {
            if (!process.waitFor(DECODE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("tshark did not end within " + DECODE_WAIT + ": " + String.join(" ", command));
            }
            errReader.join(DECODE_WAIT.toMillis());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (process.exitValue() != 0) {
            ToolRun run = new ToolRun(command, process.exitValue(), "", err.toString(StandardCharsets.UTF_8));
            throw new IOException("tshark exit " + run.exitCode() + ": " + String.join(" ", command) + "\n"
                    + run.errors());
        }
        return frames;
    }

    private static void drain(InputStream in, ByteArrayOutputStream to) {
        try (in) {
            in.transferTo(to);
        } catch (IOException e) {
            // the process ended; keep what was read
        }
    }

    /**
     * What tshark made of a capture.
     *
     * @param file the capture that was decoded
     * @param frames every frame, in order
     * @param tapExperts the expert summary ({@code -z expert}), which also holds items not attached to frames
     */
    public record Decoded(Path file, List<TsharkFrame> frames, List<ExpertTotal> tapExperts) {
        /**
         * Copies the lists.
         *
         * @throws NullPointerException if a field is null
         */
        public Decoded {
            Objects.requireNonNull(file, "file");
            frames = List.copyOf(frames);
            tapExperts = List.copyOf(tapExperts);
        }

        /**
         * One frame by number.
         *
         * @param number a 1-based frame number
         * @return that frame
         * @throws IllegalArgumentException if the capture has no such frame
         */
        public TsharkFrame frame(int number) {
            for (TsharkFrame f : frames) {
                if (f.number() == number) {
                    return f;
                }
            }
            throw new IllegalArgumentException("no frame " + number + " in " + file + " (" + frames.size()
                    + " frames)");
        }

        /**
         * The frames that carry TCP payload.
         *
         * @return the frames with {@code tcp.len > 0}, in order
         */
        public List<TsharkFrame> tcpPayloadFrames() {
            return frames.stream().filter(TsharkFrame::hasTcpPayload).toList();
        }

        /**
         * Everything tshark reported as broken: expert items of severity Error or group Malformed (per frame,
         * plus those of the expert summary not already seen in a frame) and failed MPA CRC checks (which
         * tshark 4.0 reports without an expert item). Warnings, such as the MPA dissector's "Rev field is NOT
         * set to one" for revision 2, are not problems.
         *
         * @return one line per problem, e.g. {@code frame 9: CRC check: 0x0d69ce71 (Bad CRC32, should be
         *     0xf269ce71)}; empty for a clean capture
         */
        public List<String> problems() {
            List<String> out = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (TsharkFrame f : frames) {
                for (ExpertInfo e : f.experts()) {
                    seen.add(e.message());
                    if (e.isProblem()) {
                        out.add("frame " + f.number() + ": " + e);
                    }
                }
                if (f.malformed() && f.experts().stream().noneMatch(ExpertInfo::isProblem)) {
                    out.add("frame " + f.number() + ": malformed (" + String.join(":", f.protocols()) + ")");
                }
                for (String crc : f.badCrcChecks()) {
                    out.add("frame " + f.number() + ": " + crc);
                }
            }
            for (ExpertTotal t : tapExperts) {
                if (t.isProblem() && !seen.contains(t.summary())) {
                    out.add("expert summary: " + t.severity() + "/" + t.group() + " (" + t.protocol() + "): "
                            + t.summary() + " x" + t.count());
                }
            }
            return out;
        }

        /**
         * The TCP payload that tshark did not decode as iWARP: every frame with TCP payload must either hold
         * an {@code iwarp_mpa} layer or be a segment of a PDU reassembled in a frame that does, and every
         * frame must hold as many {@code iwarp_ddp_rdmap} layers as MPA FPDUs. A TCP retransmission is
         * exempt from the first rule: tshark decodes the sequence space it repeats where it first saw it
         * (loopback drops and retransmits when a receiver's buffer is full). A caller that must know that
         * nothing was lost compares the number of FPDUs with an independent count.
         *
         * @return one line per offending frame; empty when all payload decodes as iWARP
         */
        public List<String> notDecodedAsIwarp() {
            List<String> out = new ArrayList<>();
            for (TsharkFrame f : frames) {
                if (f.hasTcpPayload() && !f.isMpa() && !f.retransmission()
                        && !(f.reassembledIn() > 0 && frame(f.reassembledIn()).isMpa())) {
                    out.add("frame " + f.number() + ": " + f.tcpLength() + " payload bytes not decoded as "
                            + TsharkFrame.MPA + ": " + String.join(":", f.protocols()));
                }
                if (f.mpaFpdus() != f.count(TsharkFrame.DDP_RDMAP)) {
                    out.add("frame " + f.number() + ": " + f.mpaFpdus() + " MPA FPDUs but "
                            + f.count(TsharkFrame.DDP_RDMAP) + " " + TsharkFrame.DDP_RDMAP + " layers");
                }
            }
            return out;
        }
    }
}
