package io.jdat.tools.tx;

import io.jdat.tools.cli.ToolFailure;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * What the two sides of {@code jdat tx} tell each other, all of it through DAT: the connection private
 * data, and small control messages (Sends) in each endpoint's control region. Big-endian.
 *
 * <ul>
 *   <li>connect private data (client, 32 bytes): magic {@code "jdattest"}, version, thread, endpoint,
 *       threads, endpoints per thread, run id;</li>
 *   <li>accept private data (server, 16 bytes): magic, version;</li>
 *   <li>CONFIG (client, the first Send on each endpoint): the run (iterations, threads, endpoints, op
 *       list) and the client's data region of this endpoint;</li>
 *   <li>INFO (server's answer): the server's data region of this endpoint;</li>
 *   <li>READY (each side, each iteration): its receives are posted and its sources filled;</li>
 *   <li>DONE (each side, each iteration): its operations completed (RDMA Writes before it are placed);</li>
 *   <li>FIN (each side, after the last iteration): what it validated, per operation, and its errors.</li>
 * </ul>
 */
final class TxWire {
    static final long MAGIC = 0x6A64617474657374L; // "jdattest"
    static final int VERSION = 1;
    static final int CONNECT_PD = 32;
    static final int ACCEPT_PD = 16;

    static final int CONFIG = 1;
    static final int INFO = 2;
    static final int READY = 3;
    static final int DONE = 4;
    static final int FIN = 5;

    /** Bytes of a READY or DONE message. */
    static final int SMALL = 24;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private TxWire() {
    }

    /** The client's connect private data. */
    record Hello(int thread, int ep, int threads, int eps, long runId) {
        byte[] encode() {
            return ByteBuffer.allocate(CONNECT_PD).putLong(MAGIC).putShort((short) VERSION).putShort((short) thread)
                    .putShort((short) ep).putShort((short) threads).putShort((short) eps).putShort((short) 0)
                    .putLong(runId).array();
        }

        static Hello decode(byte[] pd) {
            if (pd.length != CONNECT_PD) {
                throw new ToolFailure("connection request with " + pd.length + " bytes of private data: not a "
                        + "jdat tx client");
            }
            ByteBuffer b = ByteBuffer.wrap(pd);
            long magic = b.getLong();
            int version = b.getShort();
            if (magic != MAGIC || version != VERSION) {
                throw new ToolFailure("connection request from something that is not a jdat tx client of "
                        + "version " + VERSION + " (magic 0x" + Long.toHexString(magic) + ", version " + version + ")");
            }
            int thread = b.getShort() & 0xFFFF;
            int ep = b.getShort() & 0xFFFF;
            int threads = b.getShort() & 0xFFFF;
            int eps = b.getShort() & 0xFFFF;
            b.getShort();
            return new Hello(thread, ep, threads, eps, b.getLong());
        }
    }

    /** The server's accept private data. */
    static byte[] welcome() {
        return ByteBuffer.allocate(ACCEPT_PD).putLong(MAGIC).putShort((short) VERSION).array();
    }

    /** Checks the server's accept private data. */
    static void checkWelcome(byte[] pd, String where) {
        ByteBuffer b = ByteBuffer.wrap(pd);
        if (pd.length != ACCEPT_PD || b.getLong() != MAGIC || b.getShort() != VERSION) {
            throw new ToolFailure(where + ": the server is not a jdat tx server of version " + VERSION);
        }
    }

    /** A data region: remote context, address, length. */
    record Region(int rmrContext, long address, long length) {
    }

    /**
     * Writes CONFIG.
     *
     * @return its length
     */
    static int writeConfig(MemorySegment m, long off, TxConfig c, Region r) {
        long p = header(m, off, CONFIG);
        m.set(LONG, p, c.runId());
        m.set(LONG, p + 8, c.iterations());
        m.set(INT, p + 16, c.threads());
        m.set(INT, p + 20, c.eps());
        p = region(m, p + 24, r);
        m.set(INT, p, c.ops().size());
        p += 4;
        for (TxOp op : c.ops()) {
            m.set(INT, p, (op.byServer() ? 0x100 : 0) | op.kind().ordinal());
            m.set(INT, p + 4, op.segments());
            m.set(LONG, p + 8, op.size());
            p += 16;
        }
        return (int) (p - off);
    }

    /** The run and the client's region read from CONFIG. */
    record Config(long runId, long iterations, int threads, int eps, Region region, List<TxOp> ops) {
    }

    static Config readConfig(MemorySegment m, long off, long length, String where) {
        long p = expect(m, off, length, CONFIG, 8 + 24 + 20 + 4, where);
        long runId = m.get(LONG, p);
        long iterations = m.get(LONG, p + 8);
        int threads = m.get(INT, p + 16);
        int eps = m.get(INT, p + 20);
        Region r = region(m, p + 24);
        p += 24 + 20;
        int n = m.get(INT, p);
        p += 4;
        if (n < 1 || n > TxConfig.MAX_OPS || p + 16L * n - off != length) {
            throw new ToolFailure(where + ": CONFIG with a bad op count " + n);
        }
        List<TxOp> ops = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = m.get(INT, p);
            if ((k & 0xFF) >= TxOp.Kind.values().length || (k & ~0x1FF) != 0) {
                throw new ToolFailure(where + ": CONFIG with a bad operation code " + k);
            }
            try {
                ops.add(new TxOp((k & 0x100) != 0, TxOp.Kind.values()[k & 0xFF], m.get(INT, p + 4), m.get(LONG, p + 8)));
            } catch (IllegalArgumentException e) {
                throw new ToolFailure(where + ": CONFIG with a bad operation: " + e.getMessage());
            }
            p += 16;
        }
        return new Config(runId, iterations, threads, eps, r, ops);
    }

    /** Writes INFO; returns its length. */
    static int writeInfo(MemorySegment m, long off, long runId, Region r) {
        long p = header(m, off, INFO);
        m.set(LONG, p, runId);
        return (int) (region(m, p + 8, r) - off);
    }

    static Region readInfo(MemorySegment m, long off, long length, long runId, String where) {
        long p = expect(m, off, length, INFO, 8 + 8 + 20, where);
        if (m.get(LONG, p) != runId) {
            throw new ToolFailure(where + ": INFO of another run");
        }
        return region(m, p + 8);
    }

    /** Writes READY or DONE for an iteration; returns its length. */
    static int writeSmall(MemorySegment m, long off, int kind, long iteration) {
        long p = header(m, off, kind);
        m.set(LONG, p, iteration);
        m.set(LONG, p + 8, ~iteration);
        return SMALL;
    }

    static void readSmall(MemorySegment m, long off, long length, int kind, long iteration, String where) {
        long p = expect(m, off, length, kind, SMALL, where);
        long got = m.get(LONG, p);
        if (got != iteration || m.get(LONG, p + 8) != ~iteration) {
            throw new ToolFailure(where + ": " + name(kind) + " for iteration " + got + ", expected " + iteration);
        }
    }

    /** Writes FIN: errors, and validated and wrong executions per operation; returns its length. */
    static int writeFin(MemorySegment m, long off, TxStats s) {
        long p = header(m, off, FIN);
        m.set(LONG, p, s.errors);
        m.set(INT, p + 8, s.validated.length);
        p += 12;
        for (int i = 0; i < s.validated.length; i++) {
            m.set(LONG, p, s.validated[i]);
            m.set(LONG, p + 8, s.wrong[i]);
            p += 16;
        }
        return (int) (p - off);
    }

    /** Reads FIN into {@code into} (fresh). */
    static void readFin(MemorySegment m, long off, long length, TxStats into, String where) {
        long p = expect(m, off, length, FIN, 8 + 12, where);
        into.errors = m.get(LONG, p);
        int n = m.get(INT, p + 8);
        if (n != into.validated.length || length != 20 + 16L * n) {
            throw new ToolFailure(where + ": FIN for " + n + " operations, expected " + into.validated.length);
        }
        p += 12;
        for (int i = 0; i < n; i++) {
            into.validated[i] = m.get(LONG, p);
            into.wrong[i] = m.get(LONG, p + 8);
            p += 16;
        }
    }

    private static long header(MemorySegment m, long off, int kind) {
        m.set(INT, off, (int) (MAGIC >>> 32));
        m.set(INT, off + 4, kind);
        return off + 8;
    }

    private static long expect(MemorySegment m, long off, long length, int kind, long min, String where) {
        int magic = m.get(INT, off);
        int got = m.get(INT, off + 4);
        if (length < 8 || magic != (int) (MAGIC >>> 32) || got != kind) {
            throw new ToolFailure(where + ": expected a " + name(kind) + " message, got "
                    + (length < 8 || magic != (int) (MAGIC >>> 32) ? length + " bytes of something else" : name(got)));
        }
        if (length < min) {
            throw new ToolFailure(where + ": " + name(kind) + " message of " + length + " bytes, expected " + min);
        }
        return off + 8;
    }

    private static long region(MemorySegment m, long p, Region r) {
        m.set(INT, p, r.rmrContext());
        m.set(LONG, p + 4, r.address());
        m.set(LONG, p + 12, r.length());
        return p + 20;
    }

    private static Region region(MemorySegment m, long p) {
        return new Region(m.get(INT, p), m.get(LONG, p + 4), m.get(LONG, p + 12));
    }

    static String name(int kind) {
        return switch (kind) {
            case CONFIG -> "CONFIG";
            case INFO -> "INFO";
            case READY -> "READY";
            case DONE -> "DONE";
            case FIN -> "FIN";
            default -> "unknown (" + kind + ")";
        };
    }
}
