package io.jdat.testing.wire;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a classic libpcap capture file and extracts its TCP segments and connections.
 *
 * <p>Supported: both byte orders, microsecond and nanosecond time stamps; link types null/loopback (0),
 * Ethernet (1, with 802.1Q/802.1ad tags), raw IP (101, 228 IPv4, 229 IPv6), OpenBSD loopback (108), Linux
 * cooked SLL (113) and SLL2 (276); IPv4 and IPv6 (skipping hop-by-hop, routing and destination-options
 * headers). Ignored: non-TCP packets and IP fragments. Not supported: pcapng (write pcap with
 * {@code dumpcap -P}).
 */
public final class PcapReader {
    private static final int LINK_NULL = 0;
    private static final int LINK_ETHERNET = 1;
    private static final int LINK_RAW = 101;
    private static final int LINK_LOOP = 108;
    private static final int LINK_SLL = 113;
    private static final int LINK_IPV4 = 228;
    private static final int LINK_IPV6 = 229;
    private static final int LINK_SLL2 = 276;

    private final int linkType;
    private final boolean nanoseconds;
    private final int frameCount;
    private final List<TcpSegment> segments;

    private PcapReader(int linkType, boolean nanoseconds, int frameCount, List<TcpSegment> segments) {
        this.linkType = linkType;
        this.nanoseconds = nanoseconds;
        this.frameCount = frameCount;
        this.segments = List.copyOf(segments);
    }

    /**
     * Reads and parses a capture file.
     *
     * @param file a classic pcap file
     * @return the parsed capture
     * @throws IOException if the file cannot be read, or is not a pcap file this reader supports (the message
     *     says why)
     */
    public static PcapReader read(Path file) throws IOException {
        try {
            return parse(Files.readAllBytes(file));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses the bytes of a capture file. A last record cut short (a capture still being written) is ignored.
     *
     * @param file the whole file
     * @return the parsed capture
     * @throws IllegalArgumentException if the bytes are not a supported pcap file
     */
    public static PcapReader parse(byte[] file) {
        if (file.length < 24) {
            throw new IllegalArgumentException("too short for a pcap header: " + file.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int magic = in.getInt(0);
        boolean nanos;
        switch (magic) {
            case 0xA1B2C3D4 -> nanos = false;
            case 0xA1B23C4D -> nanos = true;
            case 0xD4C3B2A1 -> {
                in.order(ByteOrder.BIG_ENDIAN);
                nanos = false;
            }
            case 0x4D3CB2A1 -> {
                in.order(ByteOrder.BIG_ENDIAN);
                nanos = true;
            }
            case 0x0A0D0D0A -> throw new IllegalArgumentException("pcapng is not supported: write pcap (dumpcap -P)");
            default -> throw new IllegalArgumentException(String.format("not a pcap file (magic 0x%08x)", magic));
        }
        int linkType = in.getInt(20) & 0x0FFF_FFFF;
        List<TcpSegment> segments = new ArrayList<>();
        int pos = 24;
        int frame = 0;
        while (pos + 16 <= file.length) {
            long seconds = in.getInt(pos) & 0xFFFF_FFFFL;
            long fraction = in.getInt(pos + 4) & 0xFFFF_FFFFL;
            int captured = in.getInt(pos + 8);
            if (captured < 0 || pos + 16 + captured > file.length) {
                break;
            }
            frame++;
            Instant time = Instant.ofEpochSecond(seconds, nanos ? fraction : fraction * 1000);
            ByteBuffer packet = ByteBuffer.wrap(file, pos + 16, captured).slice().order(ByteOrder.BIG_ENDIAN);
            TcpSegment segment = linkLayer(linkType, frame, time, packet);
            if (segment != null) {
                segments.add(segment);
            }
            pos += 16 + captured;
        }
        return new PcapReader(linkType, nanos, frame, segments);
    }

    /**
     * The link-layer header type of the file.
     *
     * @return the LINKTYPE_ value, e.g. 1 for Ethernet
     */
    public int linkType() {
        return linkType;
    }

    /**
     * Whether the file's time stamps have nanosecond resolution.
     *
     * @return true for the nanosecond magic number, false for microseconds
     */
    public boolean nanosecondTimestamps() {
        return nanoseconds;
    }

    /**
     * The number of packet records in the file, TCP or not.
     *
     * @return the record count
     */
    public int frameCount() {
        return frameCount;
    }

    /**
     * Every TCP segment of the capture.
     *
     * @return an unmodifiable list in capture order
     */
    public List<TcpSegment> segments() {
        return segments;
    }

    /**
     * The TCP connections of the capture, each reassembled into its two byte streams. Segments belong to the
     * same connection when they join the same two endpoints; a new SYN between endpoints whose connection
     * already has a different SYN or data starts a new connection.
     *
     * @return the connections in the order of their first captured segment
     */
    public List<TcpStream> streams() {
        List<Connection> all = new ArrayList<>();
        Map<List<TcpEndpoint>, Connection> open = new HashMap<>();
        for (TcpSegment s : segments) {
            List<TcpEndpoint> key = key(s.source(), s.destination());
            Connection c = open.get(key);
            boolean opening = s.syn() && !s.hasAck();
            if (c == null || opening && c.startsOver(s)) {
                c = new Connection();
                all.add(c);
                open.put(key, c);
            }
            c.add(s);
        }
        List<TcpStream> streams = new ArrayList<>();
        for (Connection c : all) {
            streams.add(c.toStream());
        }
        return streams;
    }

    private static List<TcpEndpoint> key(TcpEndpoint a, TcpEndpoint b) {
        return a.toString().compareTo(b.toString()) <= 0 ? List.of(a, b) : List.of(b, a);
    }

    /** The segments of one connection while {@link #streams()} sorts them. */
    private static final class Connection {
        private final List<TcpSegment> segments = new ArrayList<>();
        private final Map<TcpEndpoint, StreamAssembler> directions = new LinkedHashMap<>();
        private TcpEndpoint client;
        private TcpEndpoint server;
        private boolean handshakeSeen;
        private long clientIsn = -1;
        private boolean truncated;

        boolean startsOver(TcpSegment syn) {
            return clientIsn >= 0 ? clientIsn != syn.seq() : segments.stream().anyMatch(s -> s.payload().length > 0);
        }

        void add(TcpSegment s) {
            segments.add(s);
            truncated |= s.truncated();
            if (s.syn() && !s.hasAck()) {
                client = s.source();
                server = s.destination();
                handshakeSeen = true;
                clientIsn = s.seq();
            } else if (s.syn() && !handshakeSeen) {
                client = s.destination();
                server = s.source();
                handshakeSeen = true;
            } else if (client == null) {
                client = s.source();
                server = s.destination();
            }
            StreamAssembler direction = directions.computeIfAbsent(s.source(), e -> new StreamAssembler());
            if (s.syn()) {
                direction.syn(s.seq());
                direction.add((s.seq() + 1) & 0xFFFF_FFFFL, s.payload());
            } else {
                direction.add(s.seq(), s.payload());
            }
        }

        TcpStream toStream() {
            StreamAssembler.Assembled up = directions.getOrDefault(client, new StreamAssembler()).assemble();
            StreamAssembler.Assembled down = directions.getOrDefault(server, new StreamAssembler()).assemble();
            return new TcpStream(client, server, handshakeSeen, segments, up.bytes(), down.bytes(),
                    truncated || up.hole() || down.hole());
        }
    }

    private static TcpSegment linkLayer(int linkType, int frame, Instant time, ByteBuffer p) {
        int limit = p.limit();
        return switch (linkType) {
            case LINK_NULL, LINK_LOOP -> limit < 4 ? null : ip(frame, time, p.position(4).slice());
            case LINK_RAW, LINK_IPV4, LINK_IPV6 -> ip(frame, time, p);
            case LINK_ETHERNET -> {
                int offset = 12;
                while (offset + 2 <= limit) {
                    int type = p.getShort(offset) & 0xFFFF;
                    if (type == 0x8100 || type == 0x88A8 || type == 0x9100) {
                        offset += 4;
                    } else {
                        yield type == 0x0800 || type == 0x86DD ? ip(frame, time, p.position(offset + 2).slice()) : null;
                    }
                }
                yield null;
            }
            case LINK_SLL -> limit < 16 ? null : etherTypeIp(p.getShort(14), frame, time, p.position(16).slice());
            case LINK_SLL2 -> limit < 20 ? null : etherTypeIp(p.getShort(0), frame, time, p.position(20).slice());
            default -> throw new IllegalArgumentException("unsupported link type " + linkType);
        };
    }

    private static TcpSegment etherTypeIp(short etherType, int frame, Instant time, ByteBuffer p) {
        int type = etherType & 0xFFFF;
        return type == 0x0800 || type == 0x86DD ? ip(frame, time, p) : null;
    }

    private static TcpSegment ip(int frame, Instant time, ByteBuffer p) {
        p.order(ByteOrder.BIG_ENDIAN);
        if (p.limit() < 1) {
            return null;
        }
        int version = (p.get(0) & 0xFF) >>> 4;
        if (version == 4) {
            if (p.limit() < 20) {
                return null;
            }
            int headerLength = (p.get(0) & 0x0F) * 4;
            int totalLength = p.getShort(2) & 0xFFFF;
            int fragment = p.getShort(6) & 0x3FFF; // MF flag and fragment offset
            if (p.get(9) != 6 || fragment != 0 || headerLength < 20 || p.limit() < headerLength) {
                return null;
            }
            int end = totalLength == 0 ? Integer.MAX_VALUE : totalLength; // 0: segmentation offload
            return tcp(frame, time, address(p, 12, 4), address(p, 16, 4), p, headerLength, end);
        }
        if (version == 6) {
            if (p.limit() < 40) {
                return null;
            }
            int payloadLength = p.getShort(4) & 0xFFFF;
            int next = p.get(6) & 0xFF;
            int offset = 40;
            while (next == 0 || next == 43 || next == 60) {
                if (p.limit() < offset + 8) {
                    return null;
                }
                next = p.get(offset) & 0xFF;
                offset += ((p.get(offset + 1) & 0xFF) + 1) * 8;
            }
            if (next != 6) {
                return null;
            }
            int end = payloadLength == 0 ? Integer.MAX_VALUE : 40 + payloadLength;
            return tcp(frame, time, address(p, 8, 16), address(p, 24, 16), p, offset, end);
        }
        return null;
    }

    private static InetAddress address(ByteBuffer p, int offset, int length) {
        byte[] raw = new byte[length];
        p.get(offset, raw);
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // only thrown for a bad length
        }
    }

    /**
     * Parses the TCP header at {@code offset}; {@code ipEnd} is where the IP datagram ends according to its
     * header (the captured bytes may stop earlier, or run on into link-layer padding).
     */
    private static TcpSegment tcp(int frame, Instant time, InetAddress src, InetAddress dst, ByteBuffer p,
            int offset, int ipEnd) {
        if (p.limit() < offset + 20) {
            return null;
        }
        int srcPort = p.getShort(offset) & 0xFFFF;
        int dstPort = p.getShort(offset + 2) & 0xFFFF;
        long seq = p.getInt(offset + 4) & 0xFFFF_FFFFL;
        long ack = p.getInt(offset + 8) & 0xFFFF_FFFFL;
        int headerLength = ((p.get(offset + 12) & 0xFF) >>> 4) * 4;
        int flags = p.get(offset + 13) & 0xFF;
        int payloadStart = offset + headerLength;
        if (headerLength < 20) {
            return null;
        }
        int announcedEnd = ipEnd == Integer.MAX_VALUE ? p.limit() : ipEnd;
        int payloadLength = Math.max(0, announcedEnd - payloadStart);
        int capturedEnd = Math.min(announcedEnd, p.limit());
        byte[] payload = capturedEnd > payloadStart
                ? Arrays.copyOfRange(p.array(), p.arrayOffset() + payloadStart, p.arrayOffset() + capturedEnd)
                : new byte[0];
        return new TcpSegment(frame, time, new TcpEndpoint(src, srcPort), new TcpEndpoint(dst, dstPort), seq, ack,
                flags, payloadLength, payload);
    }
}
