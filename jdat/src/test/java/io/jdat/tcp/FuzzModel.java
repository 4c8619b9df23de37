package io.jdat.tcp;

import io.jdat.DtoCompletionStatus;
import io.jdat.tcp.FuzzFrames.Seg;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fuzz tests' oracle: what the server must do with a stream of DDP segments, written from IWARP.md and
 * RFC 5040/5041/5044 rather than from the receiver's code. It follows the receiver's state (expected MSNs,
 * the posted receive being filled, incoming Reads) segment by segment and decides for the first segment
 * that is not valid what the server must answer; it also predicts every byte of the writable region and
 * of the receive buffers, the receive completions and the Read Responses, as far as they are determined.
 *
 * <p>Checks in the order a streaming receiver meets them: DDP version, RDMAP version, a ULPDU shorter than
 * its header, then per model (tagged: opcode, STag / bounds / privilege; untagged: QN and opcode, MSN, MO,
 * buffer length, Read Request shape and source), and last the CRC in the trailer (a streaming receiver has
 * placed the payload by then, inside the checked range).
 */
final class FuzzModel {
    /** What the connection must come to. */
    enum Verdict {
        /** Every segment was valid: the EP stays connected, our FIN disconnects it. */
        VALID,
        /** The server must send a Terminate with {@link #expectedWord} and break the connection. */
        TERMINATE,
        /** We sent a valid Terminate: the server breaks the connection without answering. */
        PEER_TERMINATE,
        /** The stream ended inside a valid FPDU: broken, no Terminate. */
        TRUNCATED,
        /** Not determined (random bytes, a lying length): broken or disconnected, any Terminate. */
        ANY
    }

    /** A receive completion the server must report. */
    record Completion(long cookie, DtoCompletionStatus status, long length) {
    }

    /** A Read Response the server must send. */
    record Response(int sinkStag, long sinkTo, byte[] data, boolean[] unknown) {
    }

    static final int SCRATCH = Ddp.TERMINATE_MAX + 64;
    static final int READ_LIMIT = 16;

    final long base;
    final int regionLength;
    final int writableContext;
    final boolean crc;
    final int ird;
    private final int[][] recvSegs; // per posted receive: {areaOffset, length} pairs
    final byte[] region;
    final boolean[] regionUnknown;
    final byte[] recvArea;
    final boolean[] recvUnknown;
    /** The bytes of the receive area that posted receives cover (the gaps between them are never written). */
    private final boolean[] recvMask;
    final List<Completion> completions = new ArrayList<>();
    final List<Response> responses = new ArrayList<>();

    /** The RDMA Read the server has outstanding (its sink STag; 0: none), its length, and its sink. */
    private int sinkStag;
    private long readLength;
    private boolean readOutstanding;
    /** The server's RDMA Read completed (its last Read Response arrived). */
    boolean readCompleted;
    private int[] sinkSegs = new int[0];
    byte[] sinkArea = new byte[0];
    boolean[] sinkUnknown = new boolean[0];
    private boolean[] sinkMask = new boolean[0];

    int sendMsn = 1;
    int readMsn = 1;
    private int reads;
    private int nextRecv;
    private int current = -1;
    private long placed;

    Verdict verdict;
    int expectedWord;
    String why;
    /** How many completions / responses were certain when the verdict fell to ANY. */
    int certainCompletions = -1;
    int certainResponses = -1;
    /** Whether the server's Read had completed when the verdict fell to ANY. */
    boolean certainReadCompleted;

    FuzzModel(long base, byte[] region, int writableContext, byte[] recvArea, int[][] recvSegs, boolean crc, int ird) {
        this.base = base;
        this.region = region.clone();
        this.regionLength = region.length;
        this.regionUnknown = new boolean[region.length];
        this.writableContext = writableContext;
        this.recvArea = recvArea.clone();
        this.recvUnknown = new boolean[recvArea.length];
        this.recvSegs = recvSegs;
        this.recvMask = new boolean[recvArea.length];
        for (int[] r : recvSegs) {
            for (int k = 0; k < r.length; k += 2) {
                Arrays.fill(recvMask, r[k], r[k] + r[k + 1], true);
            }
        }
        this.crc = crc;
        this.ird = ird;
    }

    /** The server issued an RDMA Read of {@code length} bytes whose Read Responses carry {@code stag}. */
    void serverRead(int stag, long length) {
        sinkStag = stag;
        readLength = length;
        readOutstanding = true;
    }

    /** The sink area of the server's RDMA Read (its pieces, {offset, length} pairs) and what it holds now. */
    void sink(byte[] sinkInit, int[] segs) {
        sinkSegs = segs;
        sinkArea = sinkInit.clone();
        sinkUnknown = new boolean[sinkInit.length];
        sinkMask = new boolean[sinkInit.length];
        for (int k = 0; k < segs.length; k += 2) {
            Arrays.fill(sinkMask, segs[k], segs[k] + segs[k + 1], true);
        }
    }

    boolean decided() {
        return verdict != null;
    }

    /** The MO the next segment of the Send being received continues at (0 for a new message). */
    int expectedMo() {
        return current < 0 ? 0 : (int) placed;
    }

    /** Capacity of the receive the next new Send takes, or -1 when none is left. */
    long nextRecvCapacity() {
        int i = current >= 0 ? current : nextRecv;
        return i < recvSegs.length ? capacity(i) : -1;
    }

    long capacity(int i) {
        long n = 0;
        for (int k = 1; k < recvSegs[i].length; k += 2) {
            n += recvSegs[i][k];
        }
        return n;
    }

    /** Random bytes went on the wire: from here on nothing is determined. */
    void raw() {
        any("random bytes");
    }

    /** The stream ends inside {@code s}. */
    void truncatedIn(Seg s) {
        if (decided()) {
            return;
        }
        FuzzModel probe = copyForProbe();
        probe.segment(s);
        if (probe.verdict == null) {
            verdict = Verdict.TRUNCATED;
            why = "stream ends inside " + s;
            unknownAll(); // the cut segment placed a prefix of its payload
        } else {
            any("stream ends inside the faulty " + s);
        }
    }

    private FuzzModel copyForProbe() {
        FuzzModel m = new FuzzModel(base, region, writableContext, recvArea, recvSegs, crc, ird);
        m.sendMsn = sendMsn;
        m.readMsn = readMsn;
        m.reads = reads;
        m.nextRecv = nextRecv;
        m.current = current;
        m.placed = placed;
        m.sink(sinkArea, sinkSegs);
        if (readOutstanding) {
            m.serverRead(sinkStag, readLength);
        }
        return m;
    }

    /** One whole segment arrives. */
    void segment(Seg s) {
        if (decided()) {
            return;
        }
        boolean tagged = s.tagged();
        if (s.ddpVersion() != Ddp.DDP_VERSION) {
            terminate(Terminate.LAYER_DDP, tagged ? Terminate.DDP_TAGGED : Terminate.DDP_UNTAGGED,
                    tagged ? Terminate.DDP_T_BAD_VERSION : Terminate.DDP_U_BAD_VERSION, s);
            return;
        }
        if (s.rdmapVersion() != Ddp.RDMAP_VERSION) {
            terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_BAD_VERSION, s);
            return;
        }
        if (s.declaredLength() < s.headerLength()) {
            terminate(Terminate.LAYER_DDP, Terminate.DDP_LOCAL_CATASTROPHIC, 0, s);
            return;
        }
        if (s.lengthDelta() != 0) {
            any("ULPDU_Length lies: " + s);
            return;
        }
        int len = s.payload().length;
        int op = s.opcode();
        if (tagged) {
            if (op == Ddp.OP_WRITE) {
                long off = resolve(s.stag(), s.to(), len);
                if (off < 0) {
                    terminate(Terminate.LAYER_DDP, Terminate.DDP_TAGGED, resolve(s.stag(), s.to(), 1) >= 0
                            ? Terminate.DDP_T_BASE_BOUNDS : Terminate.DDP_T_INVALID_STAG, s);
                    return;
                }
                System.arraycopy(s.payload(), 0, region, (int) off, len);
                crcCheck(s);
            } else if (op == Ddp.OP_READ_RESPONSE) {
                if (!readOutstanding || s.stag() != sinkStag) {
                    // names no outstanding Read: the STag is not one this stream gave out
                    terminate(Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG, s);
                    return;
                }
                long to = s.to();
                if (to < 0 || to > readLength || len > readLength - to) {
                    terminate(Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BASE_BOUNDS, s);
                    return;
                }
                scatter(sinkSegs, sinkArea, to, s.payload());
                if (crcCheck(s) && s.last()) {
                    readOutstanding = false;
                    readCompleted = true;
                }
            } else {
                terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE, s);
            }
            return;
        }
        int qn = s.qn();
        if (qn == Ddp.QN_SEND && Ddp.isSend(op)) {
            if (op == Ddp.OP_SEND_INVALIDATE || op == Ddp.OP_SEND_SE_INVALIDATE) {
                terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE, s);
                return;
            }
            if (s.msn() != sendMsn) {
                terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE, s);
                return;
            }
            if (current < 0) {
                if (s.mo() != 0) {
                    terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO, s);
                    return;
                }
                if (nextRecv >= recvSegs.length) {
                    any("no receive buffer left (the test posts enough)");
                    return;
                }
                current = nextRecv++;
                placed = 0;
            } else if (Integer.toUnsignedLong(s.mo()) != placed) {
                terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO, s);
                return;
            }
            if (placed + len > capacity(current)) {
                completions.add(new Completion(current, DtoCompletionStatus.ERR_LOCAL_LENGTH, -1));
                current = -1;
                terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_TOO_LONG, s);
                return;
            }
            scatter(recvSegs[current], recvArea, placed, s.payload());
            if (!crcCheck(s)) {
                return;
            }
            placed += len;
            if (s.last()) {
                completions.add(new Completion(current, DtoCompletionStatus.SUCCESS, placed));
                current = -1;
                sendMsn++;
            }
            return;
        }
        if (qn == Ddp.QN_READ_REQUEST && op == Ddp.OP_READ_REQUEST) {
            if (s.msn() != readMsn) {
                terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE, s);
                return;
            }
            if (!s.last() || s.mo() != 0 || len != 0) {
                terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO, s);
                return;
            }
            if (reads >= READ_LIMIT) {
                // The IRD bounds Read Responses not yet sent; the server sends each at once and the test
                // reads them at once, so only a flood of Reads could exceed it, and only by timing.
                any("more than " + READ_LIMIT + " Read Requests");
                return;
            }
            long size = Integer.toUnsignedLong(s.rrSize());
            long off = resolve(s.rrSrcStag(), s.rrSrcTo(), size);
            if (off < 0) {
                terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, resolve(s.rrSrcStag(), s.rrSrcTo(), 1) >= 0
                        ? Terminate.RDMAP_BASE_BOUNDS : Terminate.RDMAP_INVALID_STAG, s);
                return;
            }
            if (!crcCheck(s)) {
                return;
            }
            readMsn++;
            reads++;
            int from = (int) off;
            int n = (int) size;
            responses.add(new Response(s.rrSinkStag(), s.rrSinkTo(), Arrays.copyOfRange(region, from, from + n),
                    Arrays.copyOfRange(regionUnknown, from, from + n)));
            return;
        }
        if (qn == Ddp.QN_TERMINATE && op == Ddp.OP_TERMINATE) {
            if (len < 4 || len > SCRATCH) {
                terminate(Terminate.LAYER_LLP, 0, Terminate.LLP_BAD_FRAME, s);
                return;
            }
            if (crcCheck(s)) {
                verdict = Verdict.PEER_TERMINATE;
                why = "we sent " + s;
            }
            return;
        }
        if (qn != Ddp.QN_SEND && qn != Ddp.QN_READ_REQUEST && qn != Ddp.QN_TERMINATE) {
            terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_QN, s);
            return;
        }
        terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE, s);
    }

    /** All segments sent: what is not decided yet is valid. */
    void finish() {
        if (!decided()) {
            verdict = Verdict.VALID;
            why = "every segment valid" + (messageOpen() ? ", a Send message left unfinished" : "");
        }
    }

    /** A Send message is half received: our FIN then breaks the connection instead of ending it. */
    boolean messageOpen() {
        return current >= 0;
    }

    /**
     * The offset in the writable region that an access of {@code len} bytes at {@code to} through
     * {@code stag} reaches, or -1 when the access must be refused. A zero-length access names no memory and
     * is not checked (API.md §4.1); only the writable region's context has remote privileges. A refused
     * access whose first byte alone would pass is a base/bounds violation (RFC 5040 §4.8, RFC 5041 §7.2:
     * the STag is valid, the range is not); any other is reported as an invalid STag, since the core does
     * not tell a transport which check failed.
     */
    long resolve(int stag, long to, long len) {
        if (len == 0) {
            return 0;
        }
        if (stag != writableContext || to < base) {
            return -1;
        }
        long off = to - base;
        if (off > regionLength || len > regionLength - off) {
            return -1;
        }
        return off;
    }

    private boolean crcCheck(Seg s) {
        if (crc && s.badCrc()) {
            terminate(Terminate.LAYER_LLP, 0, Terminate.LLP_CRC, s);
            return false;
        }
        return true;
    }

    private static void scatter(int[] segs, byte[] area, long at, byte[] data) {
        long skip = at;
        int done = 0;
        for (int k = 0; k < segs.length && done < data.length; k += 2) {
            int segLen = segs[k + 1];
            if (skip >= segLen) {
                skip -= segLen;
                continue;
            }
            int n = (int) Math.min(segLen - skip, data.length - done);
            System.arraycopy(data, done, area, segs[k] + (int) skip, n);
            done += n;
            skip = 0;
        }
    }

    private void terminate(int layer, int type, int code, Seg s) {
        verdict = Verdict.TERMINATE;
        expectedWord = Terminate.controlWord(layer, type, code);
        why = Terminate.describe(expectedWord) + " for " + s;
    }

    private void any(String reason) {
        if (decided()) {
            return;
        }
        verdict = Verdict.ANY;
        why = reason;
        certainCompletions = completions.size();
        certainResponses = responses.size();
        certainReadCompleted = readCompleted;
        unknownAll();
    }

    private void unknownAll() {
        Arrays.fill(regionUnknown, true);
        System.arraycopy(recvMask, 0, recvUnknown, 0, recvMask.length);
        System.arraycopy(sinkMask, 0, sinkUnknown, 0, sinkMask.length);
    }

    @Override
    public String toString() {
        return verdict + (verdict == Verdict.TERMINATE ? " " : ": ") + why;
    }
}
