package io.jdat.tcp;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What a hand-written iWARP peer puts on the wire and reads back, for the frame-parser fuzz tests: a DDP
 * segment with every field settable ({@link Seg}, no checks at all), its FPDU encoding with a right or wrong
 * CRC and an honest or lying ULPDU_Length, the MPA Request, and a parser of what the server sends back
 * (Read Responses and the Terminate).
 */
final class FuzzFrames {
    private FuzzFrames() {
    }

    /**
     * One DDP segment exactly as it goes on the wire. The header is tagged or untagged by the T bit of
     * {@code ctrl}; an untagged segment with opcode 1 carries the 28-byte Read Request header.
     *
     * @param ctrl        DDP control byte (T, L, reserved, DV)
     * @param rctl        RDMAP control byte (RV, reserved, opcode)
     * @param stag        tagged: STag
     * @param to          tagged: TO
     * @param rsvdUlp     untagged: RsvdULP (Invalidate STag)
     * @param qn          untagged: QN
     * @param msn         untagged: MSN
     * @param mo          untagged: MO
     * @param rrSinkStag  Read Request: sink STag
     * @param rrSinkTo    Read Request: sink TO
     * @param rrSize      Read Request: size
     * @param rrSrcStag   Read Request: source STag
     * @param rrSrcTo     Read Request: source TO
     * @param payload     the ULP payload
     * @param lengthDelta added to the honest ULPDU_Length (0: honest)
     * @param badCrc      flip a bit of the CRC (meaningful when CRC is on)
     */
    record Seg(int ctrl, int rctl, int stag, long to, int rsvdUlp, int qn, int msn, int mo, int rrSinkStag,
            long rrSinkTo, int rrSize, int rrSrcStag, long rrSrcTo, byte[] payload, int lengthDelta, boolean badCrc) {

        boolean tagged() {
            return (ctrl & Ddp.CTRL_TAGGED) != 0;
        }

        boolean last() {
            return (ctrl & Ddp.CTRL_LAST) != 0;
        }

        int opcode() {
            return rctl & 0x0F;
        }

        int ddpVersion() {
            return ctrl & 3;
        }

        int rdmapVersion() {
            return (rctl >>> 6) & 3;
        }

        /** The DDP + RDMAP header length the receiver derives from the control bytes. */
        int headerLength() {
            return tagged() ? Ddp.TAGGED_HEADER
                    : Ddp.UNTAGGED_HEADER + (opcode() == Ddp.OP_READ_REQUEST ? Ddp.READ_REQUEST_HEADER : 0);
        }

        /** The honest ULPDU_Length. */
        int ulpduLength() {
            return headerLength() + payload.length;
        }

        /** The ULPDU_Length put on the wire. */
        int declaredLength() {
            return (ulpduLength() + lengthDelta) & 0xFFFF;
        }

        Seg withPayload(byte[] p) {
            return new Seg(ctrl, rctl, stag, to, rsvdUlp, qn, msn, mo, rrSinkStag, rrSinkTo, rrSize, rrSrcStag, rrSrcTo,
                    p, lengthDelta, badCrc);
        }

        Seg withCtrl(int c) {
            return new Seg(c, rctl, stag, to, rsvdUlp, qn, msn, mo, rrSinkStag, rrSinkTo, rrSize, rrSrcStag, rrSrcTo,
                    payload, lengthDelta, badCrc);
        }

        Seg withRctl(int c) {
            return new Seg(ctrl, c, stag, to, rsvdUlp, qn, msn, mo, rrSinkStag, rrSinkTo, rrSize, rrSrcStag, rrSrcTo,
                    payload, lengthDelta, badCrc);
        }

        Seg withCrc(boolean bad) {
            return new Seg(ctrl, rctl, stag, to, rsvdUlp, qn, msn, mo, rrSinkStag, rrSinkTo, rrSize, rrSrcStag, rrSrcTo,
                    payload, lengthDelta, bad);
        }

        Seg withLengthDelta(int d) {
            return new Seg(ctrl, rctl, stag, to, rsvdUlp, qn, msn, mo, rrSinkStag, rrSinkTo, rrSize, rrSrcStag, rrSrcTo,
                    payload, d, badCrc);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            b.append(tagged() ? "T" : "U").append(last() ? "L" : "-").append(" dv").append(ddpVersion()).append(" rv")
                    .append(rdmapVersion()).append(' ').append(Ddp.opcodeName(opcode()));
            if (tagged()) {
                b.append(String.format(" stag=%08x to=%x", stag, to));
            } else {
                b.append(String.format(" qn=%d msn=%d mo=%d", qn, msn, mo));
                if (opcode() == Ddp.OP_READ_REQUEST) {
                    b.append(String.format(" rr[sink=%08x/%x size=%d src=%08x/%x]", rrSinkStag, rrSinkTo,
                            Integer.toUnsignedLong(rrSize), rrSrcStag, rrSrcTo));
                }
                if (rsvdUlp != 0) {
                    b.append(String.format(" rsvd=%08x", rsvdUlp));
                }
            }
            b.append(" payload=").append(payload.length);
            if (lengthDelta != 0) {
                b.append(" ULPDU_Length=").append(declaredLength()).append(" (honest ").append(ulpduLength()).append(')');
            }
            if (badCrc) {
                b.append(" badCRC");
            }
            return b.toString();
        }
    }

    /** A tagged segment with the usual control bytes. */
    static Seg tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        return new Seg(Ddp.ddpControl(true, last) & 0xFF, Ddp.rdmapControl(opcode) & 0xFF, stag, to, 0, 0, 0, 0, 0, 0,
                0, 0, 0, payload, 0, false);
    }

    /** An untagged segment with the usual control bytes. */
    static Seg untagged(int opcode, boolean last, int qn, int msn, int mo, byte[] payload) {
        return new Seg(Ddp.ddpControl(false, last) & 0xFF, Ddp.rdmapControl(opcode) & 0xFF, 0, 0, 0, qn, msn, mo, 0, 0,
                0, 0, 0, payload, 0, false);
    }

    /** An RDMA Read Request on QN 1. */
    static Seg readRequest(int msn, int sinkStag, long sinkTo, int size, int srcStag, long srcTo) {
        return new Seg(Ddp.ddpControl(false, true) & 0xFF, Ddp.rdmapControl(Ddp.OP_READ_REQUEST) & 0xFF, 0, 0, 0,
                Ddp.QN_READ_REQUEST, msn, 0, sinkStag, sinkTo, size, srcStag, srcTo, new byte[0], 0, false);
    }

    /** The whole FPDU of {@code s}: ULPDU_Length, header, payload, pad and CRC (LSB first, 0 with CRC off). */
    static byte[] encode(Seg s, boolean crcOn) {
        int ulpdu = s.ulpduLength();
        int pad = Ddp.pad(ulpdu);
        ByteBuffer b = ByteBuffer.allocate(Ddp.LENGTH_FIELD + ulpdu + pad + Ddp.CRC_FIELD).order(ByteOrder.BIG_ENDIAN);
        b.putShort((short) s.declaredLength());
        b.put((byte) s.ctrl()).put((byte) s.rctl());
        if (s.tagged()) {
            b.putInt(s.stag()).putLong(s.to());
        } else {
            b.putInt(s.rsvdUlp()).putInt(s.qn()).putInt(s.msn()).putInt(s.mo());
            if (s.opcode() == Ddp.OP_READ_REQUEST) {
                b.putInt(s.rrSinkStag()).putLong(s.rrSinkTo()).putInt(s.rrSize()).putInt(s.rrSrcStag())
                        .putLong(s.rrSrcTo());
            }
        }
        b.put(s.payload());
        b.position(b.position() + pad);
        int crc = 0;
        if (crcOn) {
            CRC32C c = new CRC32C();
            c.update(b.array(), 0, b.position());
            crc = (int) c.getValue();
            if (s.badCrc()) {
                crc ^= 1 << (s.payload().length % 32);
            }
        } else if (s.badCrc()) {
            crc = 0x5EEDC0DE; // garbage in an unused CRC field must be ignored
        }
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(crc);
        return b.array();
    }

    /** An MPA Request, revision 2, enhanced, with the IRD/ORD block and {@code pd} after it. */
    static byte[] mpaRequest(boolean crc, boolean p2p, int ird, int ord, byte[] pd) {
        int irdWord = ird | (p2p ? Mpa.V2_PEER_TO_PEER : 0);
        int ordWord = ord | (p2p ? Mpa.V2_WRITE_RTR : 0);
        ByteBuffer b = Mpa.encode(false, crc ? Mpa.FLAG_CRC : 0, 2, irdWord, ordWord, pd);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** The RFC 6581 ready-to-receive message we offer: a zero-length RDMA Write. */
    static byte[] writeRtr(boolean crc) {
        return encode(writeRtrSeg(), crc);
    }

    static Seg writeRtrSeg() {
        return tagged(Ddp.OP_WRITE, true, 0, 0, new byte[0]);
    }

    /** One FPDU the server sent. */
    record ServerFpdu(int ctrl, int rctl, int stag, long to, int qn, int msn, int mo, byte[] payload) {
        boolean tagged() {
            return (ctrl & Ddp.CTRL_TAGGED) != 0;
        }

        boolean last() {
            return (ctrl & Ddp.CTRL_LAST) != 0;
        }

        int opcode() {
            return rctl & 0x0F;
        }

        boolean isTerminate() {
            return !tagged() && opcode() == Ddp.OP_TERMINATE && qn == Ddp.QN_TERMINATE;
        }

        /** An RDMA Read Request the server issued (its 28-byte header is the payload here). */
        boolean isReadRequest() {
            return !tagged() && opcode() == Ddp.OP_READ_REQUEST && qn == Ddp.QN_READ_REQUEST;
        }

        /** The Terminate control word (a Terminate only). */
        int terminateWord() {
            return ByteBuffer.wrap(payload).getInt(0);
        }

        @Override
        public String toString() {
            if (isTerminate()) {
                return "Terminate(" + Terminate.describe(terminateWord()) + ")";
            }
            return (tagged() ? String.format("T %s stag=%08x to=%x", Ddp.opcodeName(opcode()), stag, to)
                    : String.format("U %s qn=%d msn=%d mo=%d", Ddp.opcodeName(opcode()), qn, msn, mo))
                    + " payload=" + payload.length + (last() ? " L" : "");
        }
    }

    /** The server's stream cut into FPDUs; {@code tail} holds bytes of an unfinished one. */
    record ServerStream(List<ServerFpdu> fpdus, int tail, String error) {
        /** The Terminate the server sent, or null. */
        ServerFpdu terminate() {
            for (ServerFpdu f : fpdus) {
                if (f.isTerminate()) {
                    return f;
                }
            }
            return null;
        }
    }

    /**
     * Cuts what the server sent into FPDUs, checking that each is well formed: DDP and RDMAP version 1, a
     * ULPDU at least as long as its header, a right CRC when CRC is on, and only Read Requests, Read Responses
     * and one final Terminate on the wire.
     */
    static ServerStream parseServer(byte[] bytes, boolean crcOn) {
        List<ServerFpdu> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        int p = 0;
        boolean terminated = false;
        while (bytes.length - p >= Ddp.LENGTH_FIELD) {
            int ulpdu = b.getShort(p) & 0xFFFF;
            int total = Ddp.fpduLength(ulpdu);
            if (bytes.length - p < total) {
                break;
            }
            String where = "server FPDU at byte " + p + " (" + hex(bytes, p, Math.min(total, 64)) + "): ";
            if (terminated) {
                return new ServerStream(out, 0, where + "bytes after the Terminate");
            }
            if (ulpdu < 2) {
                return new ServerStream(out, 0, where + "ULPDU of " + ulpdu + " bytes");
            }
            int ctrl = b.get(p + 2) & 0xFF;
            int rctl = b.get(p + 3) & 0xFF;
            if ((ctrl & 3) != 1 || (rctl >>> 6) != 1 || (ctrl & Ddp.CTRL_RESERVED) != 0 || (rctl & 0x30) != 0) {
                return new ServerStream(out, 0, where + "bad control bytes");
            }
            boolean tagged = (ctrl & Ddp.CTRL_TAGGED) != 0;
            int hdr = tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER;
            if (ulpdu < hdr) {
                return new ServerStream(out, 0, where + "ULPDU shorter than its header");
            }
            if (crcOn) {
                CRC32C c = new CRC32C();
                c.update(bytes, p, total - Ddp.CRC_FIELD);
                int wire = Integer.reverseBytes(b.getInt(p + total - Ddp.CRC_FIELD));
                if (wire != (int) c.getValue()) {
                    return new ServerStream(out, 0, where + "bad CRC");
                }
            }
            byte[] payload = Arrays.copyOfRange(bytes, p + Ddp.LENGTH_FIELD + hdr, p + Ddp.LENGTH_FIELD + ulpdu);
            ServerFpdu f = tagged
                    ? new ServerFpdu(ctrl, rctl, b.getInt(p + 4), b.getLong(p + 8), 0, 0, 0, payload)
                    : new ServerFpdu(ctrl, rctl, 0, 0, b.getInt(p + 8), b.getInt(p + 12), b.getInt(p + 16), payload);
            if (f.isTerminate()) {
                if (payload.length < 4 || !f.last() || f.mo() != 0) {
                    return new ServerStream(out, 0, where + "malformed Terminate");
                }
                terminated = true;
            } else if (f.isReadRequest()) {
                if (payload.length != Ddp.READ_REQUEST_HEADER || !f.last()) {
                    return new ServerStream(out, 0, where + "malformed Read Request");
                }
            } else if (!(tagged && f.opcode() == Ddp.OP_READ_RESPONSE)) {
                return new ServerStream(out, 0, where + "unexpected " + f);
            }
            out.add(f);
            p += total;
        }
        return new ServerStream(out, bytes.length - p, null);
    }

    static String hex(byte[] b, int from, int len) {
        return HexFormat.of().formatHex(b, from, from + len);
    }

    /** Concatenates byte arrays. */
    static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }
}
