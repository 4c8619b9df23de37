package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.function.Executable;

/**
 * Data-path test helpers: byte patterns and sentinels for exact byte checks, I/O vector builders, event
 * expectations and {@link DatException} checks. Used with {@link Pair}.
 */
public final class DataPath {
    /** Generous wait for events: 5 s, in microseconds. */
    public static final int TIMEOUT_US = 5_000_000;
    /** What "untouched" memory holds. */
    public static final byte SENTINEL = (byte) 0xEE;

    private DataPath() {
    }

    // ------------------------------------------------------------------ attributes

    /**
     * Usable EP attributes without an IA (the mem provider's defaults): 1 MiB messages and RDMA, 64
     * receives and requests, 8 segments, read depth 4, {@code EVD_THRESHOLD} completion flags.
     */
    public static EpAttr attr() {
        return new EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(64).maxRequestDtos(64)
                .maxRecvIov(8).maxRequestIov(8).maxRdmaReadIov(8).maxRdmaWriteIov(8).maxRdmaReadIn(4)
                .maxRdmaReadOut(4).recvCompletionFlags(CompletionFlags.EVD_THRESHOLD)
                .requestCompletionFlags(CompletionFlags.EVD_THRESHOLD);
    }

    // ------------------------------------------------------------------ bytes

    /** Byte {@code i} of pattern {@code seed}: varies with position and seed, never {@link #SENTINEL}. */
    public static byte pat(int seed, long i) {
        byte b = (byte) (i * 131 + (i >>> 8) * 7 + seed * 29 + 1);
        return b == SENTINEL ? 0x11 : b;
    }

    /** Fills all of {@code s} with {@link #SENTINEL}. */
    public static void sentinel(MemorySegment s) {
        s.fill(SENTINEL);
    }

    /** Writes pattern {@code seed} bytes 0..len-1 at {@code off}. */
    public static void fill(MemorySegment s, long off, long len, int seed) {
        for (long k = 0; k < len; k++) {
            s.set(ValueLayout.JAVA_BYTE, off + k, pat(seed, k));
        }
    }

    /** Checks that {@code s[off..off+len)} holds pattern {@code seed} bytes {@code patOff..patOff+len-1}. */
    public static void assertPattern(MemorySegment s, long off, long len, int seed, long patOff, String what) {
        for (long k = 0; k < len; k++) {
            byte got = s.get(ValueLayout.JAVA_BYTE, off + k);
            if (got != pat(seed, patOff + k)) {
                fail(what + ": byte " + (off + k) + " is " + got + ", expected pattern byte " + (patOff + k) + " = "
                        + pat(seed, patOff + k));
            }
        }
    }

    /** Checks that {@code s[off..off+len)} still holds {@link #SENTINEL}. */
    public static void assertUntouched(MemorySegment s, long off, long len, String what) {
        for (long k = 0; k < len; k++) {
            byte got = s.get(ValueLayout.JAVA_BYTE, off + k);
            if (got != SENTINEL) {
                fail(what + ": byte " + (off + k) + " was written (" + got + ")");
            }
        }
    }

    /** Checks that every byte of {@code s} outside the (offset, length) pairs still holds {@link #SENTINEL}. */
    public static void assertUntouchedExcept(MemorySegment s, long... offLen) {
        long size = s.byteSize();
        outer:
        for (long p = 0; p < size; p++) {
            for (int i = 0; i < offLen.length; i += 2) {
                if (p >= offLen[i] && p < offLen[i] + offLen[i + 1]) {
                    continue outer;
                }
            }
            byte got = s.get(ValueLayout.JAVA_BYTE, p);
            if (got != SENTINEL) {
                fail("byte " + p + " outside the target ranges was written (" + got + ")");
            }
        }
    }

    /** {@code len} bytes of {@code s} from {@code off}. */
    public static byte[] bytes(MemorySegment s, long off, long len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Concatenates byte arrays. */
    public static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] b : parts) {
            n += b.length;
        }
        byte[] r = new byte[n];
        int at = 0;
        for (byte[] b : parts) {
            System.arraycopy(b, 0, r, at, b.length);
            at += b.length;
        }
        return r;
    }

    /** Checks that {@code s[off..off+len)} equals {@code exp[expOff..expOff+len)}. */
    public static void assertBytes(MemorySegment s, long off, byte[] exp, int expOff, int len, String what) {
        for (int k = 0; k < len; k++) {
            byte got = s.get(ValueLayout.JAVA_BYTE, off + k);
            if (got != exp[expOff + k]) {
                fail(what + ": byte " + (off + k) + " is " + got + ", expected " + exp[expOff + k] + " (message byte "
                        + (expOff + k) + ")");
            }
        }
    }

    /** A copy of {@code s}. */
    public static byte[] snapshot(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Checks that {@code s} equals an earlier {@link #snapshot}. */
    public static void assertUnchanged(MemorySegment s, byte[] before, String what) {
        byte[] now = s.toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < now.length; i++) {
            if (now[i] != before[i]) {
                fail(what + ": byte " + i + " changed from " + before[i] + " to " + now[i]);
            }
        }
    }

    // ------------------------------------------------------------------ vectors

    /** Triplets of {@code lmr} for (offset, length) pairs. */
    public static LmrTriplet[] iov(Lmr lmr, long... offLen) {
        LmrTriplet[] v = new LmrTriplet[offLen.length / 2];
        for (int i = 0; i < v.length; i++) {
            v[i] = lmr.triplet(offLen[2 * i], offLen[2 * i + 1]);
        }
        return v;
    }

    // ------------------------------------------------------------------ events

    /** Waits (5 s) for the next event of {@code evd}. */
    public static DatEvent next(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.waitFor(TIMEOUT_US, 1, e), "no event within 5 s");
        return e;
    }

    /** Waits for the next event and checks it is a DTO completion with this status and cookie. */
    public static DatEvent dto(EventDispatcher evd, DtoCompletionStatus status, long cookie) {
        DatEvent e = next(evd);
        checkDto(e, status, cookie);
        return e;
    }

    /** Waits for a successful DTO completion with this cookie and transferred length. */
    public static DatEvent dtoOk(EventDispatcher evd, long cookie, long length) {
        DatEvent e = dto(evd, DtoCompletionStatus.SUCCESS, cookie);
        assertEquals(length, e.transferredLength(), "transfered_length of " + e);
        return e;
    }

    /** Checks a dequeued event. */
    public static void checkDto(DatEvent e, DtoCompletionStatus status, long cookie) {
        assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber(), "event number of " + e);
        assertEquals(status, e.status(), "status of " + e);
        assertEquals(cookie, e.userCookie(), "cookie of " + e);
    }

    /** Waits for an RMR bind completion with this status and cookie. */
    public static DatEvent bind(EventDispatcher evd, DtoCompletionStatus status, long cookie) {
        DatEvent e = next(evd);
        assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, e.eventNumber(), "event number of " + e);
        assertEquals(status, e.status(), "status of " + e);
        assertEquals(cookie, e.userCookie(), "cookie of " + e);
        return e;
    }

    /** Dequeues the next event, which must be there already. */
    public static DatEvent dequeued(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.dequeue(e), "expected a queued event");
        return e;
    }

    /** Checks that nothing is queued on {@code evd}. */
    public static void assertEmpty(EventDispatcher evd, String what) {
        DatEvent e = new DatEvent();
        assertFalse(evd.dequeue(e), what + ": unexpected event " + e);
    }

    /**
     * Checks that {@code queued} events sit on {@code evd} but none of them notifies: a wait of 100 ms times
     * out and reports them in {@code nmore}.
     */
    public static void assertQueuedSilently(EventDispatcher evd, int queued) {
        DatEvent e = new DatEvent();
        assertFalse(evd.waitFor(100_000, 1, e), "a waiter was woken by " + e);
        assertEquals(queued, e.nmore(), "events queued without notification");
    }

    /** Waits for the connection event {@code n} on {@code side} and checks the EP state afterwards. */
    public static void expectConn(Pair.Side side, EventNumber n) {
        side.expectConn(n);
        if (n != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            assertEquals(EpState.DISCONNECTED, side.ep.getStatus().epState());
        }
    }

    /** Both ends see {@code DAT_CONNECTION_EVENT_BROKEN} and are DISCONNECTED. */
    public static void expectBroken(Pair p) {
        expectConn(p.client, EventNumber.CONNECTION_EVENT_BROKEN);
        expectConn(p.server, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * Runs one 8-byte RDMA Write each way (client → server offset 0, server → client offset 0) and waits for
     * both: afterwards both ends of the mem connection are fully set up, so a post whose peer is ready
     * executes, and queues its completion, before the post returns.
     */
    public static Pair settle(Pair p) {
        p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), -1, p.server.lmr.remoteTriplet(0, 8),
                CompletionFlags.DEFAULT);
        dtoOk(p.client.reqEvd, -1, 8);
        p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 0, 8), -1, p.client.lmr.remoteTriplet(0, 8),
                CompletionFlags.DEFAULT);
        dtoOk(p.server.reqEvd, -1, 8);
        return p;
    }

    /** Disconnects the client abruptly and waits until both ends are DISCONNECTED. */
    public static void disconnect(Pair p) {
        p.client.ep.disconnect(io.jdat.CloseFlags.ABRUPT);
        expectConn(p.client, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        expectConn(p.server, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    // ------------------------------------------------------------------ failures

    /** Runs {@code call}, which must throw a {@link DatException} of this type and subtype. */
    public static DatException expectDat(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), "type of " + e.getMessage());
        if (subtype != null) {
            assertEquals(subtype, e.subtype(), "subtype of " + e.getMessage());
        }
        return e;
    }
}
