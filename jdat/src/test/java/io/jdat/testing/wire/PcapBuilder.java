package io.jdat.testing.wire;

import java.io.ByteArrayOutputStream;
import java.net.Inet6Address;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Builds small synthetic pcap files for the reader's tests: TCP segments over IPv4 or IPv6 (chosen by the
 * endpoints' addresses), wrapped in a chosen link-layer header, with a chosen byte order and time-stamp
 * resolution. Checksums are left zero.
 */
final class PcapBuilder {
    private final int linkType;
    private final ByteOrder order;
    private final boolean nanos;
    private final ByteArrayOutputStream records = new ByteArrayOutputStream();
    private int count;
    private int ethernetMinimum;

    /**
     * Starts a file.
     *
     * @param linkType 0, 1, 101, 113, 228, 229 or 276
     * @param order the byte order of the file's headers
     * @param nanos whether to write the nanosecond magic number
     */
    PcapBuilder(int linkType, ByteOrder order, boolean nanos) {
        this.linkType = linkType;
        this.order = order;
        this.nanos = nanos;
    }

    /**
     * Pads Ethernet frames to at least this many bytes, as a NIC does (60 on the wire without FCS).
     *
     * @param bytes the minimum frame length
     * @return this builder
     */
    PcapBuilder padEthernetTo(int bytes) {
        ethernetMinimum = bytes;
        return this;
    }

    /**
     * Adds one TCP segment.
     *
     * @param src the sender
     * @param dst the receiver
     * @param seq the sequence number (taken modulo 2^32)
     * @param flags TCP flag bits ({@link TcpSegment#SYN} ...)
     * @param payload the payload
     * @return this builder
     */
    PcapBuilder tcp(TcpEndpoint src, TcpEndpoint dst, long seq, int flags, byte[] payload) {
        ByteBuffer tcp = ByteBuffer.allocate(20 + payload.length);
        tcp.putShort((short) src.port()).putShort((short) dst.port()).putInt((int) seq).putInt(0)
                .put((byte) 0x50).put((byte) flags).putShort((short) 65535).putInt(0).put(payload);
        boolean v6 = src.address() instanceof Inet6Address;
        byte[] srcIp = src.address().getAddress();
        byte[] dstIp = dst.address().getAddress();
        ByteBuffer ip;
        if (v6) {
            ip = ByteBuffer.allocate(40 + tcp.capacity());
            ip.putInt(0x6000_0000).putShort((short) tcp.capacity()).put((byte) 6).put((byte) 64).put(srcIp).put(dstIp);
        } else {
            ip = ByteBuffer.allocate(20 + tcp.capacity());
            ip.put((byte) 0x45).put((byte) 0).putShort((short) ip.capacity()).putInt(0x0000_4000)
                    .put((byte) 64).put((byte) 6).putShort((short) 0).put(srcIp).put(dstIp);
        }
        ip.put(tcp.array());
        return frame(link(ip.array(), v6));
    }

    /**
     * Adds a record holding the given bytes as they are.
     *
     * @param frame the link-layer frame
     * @return this builder
     */
    PcapBuilder frame(byte[] frame) {
        count++;
        ByteBuffer header = ByteBuffer.allocate(16).order(order);
        header.putInt(1_700_000_000 + count).putInt(nanos ? 123_456_789 : 123_456).putInt(frame.length)
                .putInt(frame.length);
        records.writeBytes(header.array());
        records.writeBytes(frame);
        return this;
    }

    /**
     * The file.
     *
     * @return the global header followed by every record added
     */
    byte[] build() {
        ByteBuffer header = ByteBuffer.allocate(24).order(order);
        header.putInt(nanos ? 0xA1B23C4D : 0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                .putInt(262_144).putInt(linkType);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header.array());
        out.writeBytes(records.toByteArray());
        return out.toByteArray();
    }

    private byte[] link(byte[] ip, boolean v6) {
        short etherType = (short) (v6 ? 0x86DD : 0x0800);
        ByteBuffer b;
        switch (linkType) {
            case 0 -> {
                b = ByteBuffer.allocate(4 + ip.length);
                b.order(ByteOrder.LITTLE_ENDIAN).putInt(v6 ? 30 : 2).order(ByteOrder.BIG_ENDIAN);
            }
            case 1 -> {
                b = ByteBuffer.allocate(Math.max(14 + ip.length, ethernetMinimum));
                b.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}).putShort(etherType);
            }
            case 113 -> {
                b = ByteBuffer.allocate(16 + ip.length);
                b.putShort((short) 0).putShort((short) 772).putShort((short) 6).put(new byte[8]).putShort(etherType);
            }
            case 276 -> {
                b = ByteBuffer.allocate(20 + ip.length);
                b.putShort(etherType).putShort((short) 0).putInt(1).putShort((short) 772).put((byte) 0)
                        .put((byte) 6).put(new byte[8]);
            }
            case 101, 228, 229 -> b = ByteBuffer.allocate(ip.length);
            default -> throw new IllegalArgumentException("link type " + linkType);
        }
        b.put(ip);
        return b.array();
    }
}
