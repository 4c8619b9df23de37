package io.jdat.tools.session;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The DAT objects of one side of a sample program (rping, dtest): an {@link IaSession} (the open IA, a PZ), one
 * EVD that takes the
 * EP's receive, request and connection events (and one for connection requests), one Endpoint, and one
 * registered native region with every privilege, carved into the buffers the sample names. Events are taken
 * one at a time with a deadline; a completion or connection event that is not the one awaited is kept for a
 * later wait, so that a Send's completion arriving after the peer's answer does not confuse the flow.
 */
public final class SampleSide implements AutoCloseable {
    private final IaSession session;
    private final InterfaceAdapter ia;
    private final EventDispatcher evd;
    private final EventDispatcher crEvd;
    private final Endpoint ep;
    private final MemorySegment mem;
    private final Lmr lmr;
    private final long timeoutMillis;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private final DatEvent ev = new DatEvent();

    /** An event taken while waiting for another. */
    private record Held(EventNumber number, long cookie, DtoCompletionStatus status, long length, byte[] pd) {
    }

    /**
     * Opens the IA and creates everything.
     *
     * @param iaName        the IA to open
     * @param regionBytes   size of the registered region
     * @param readDepth     the EP's RDMA Reads in and out (the IRD/ORD it asks for)
     * @param timeoutMillis the longest wait for any one event
     */
    public SampleSide(String iaName, long regionBytes, int readDepth, long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
        session = IaSession.open(iaName, 16);
        ia = session.ia();
        try {
            evd = session.evd(256, EvdFlags.DTO | EvdFlags.CONNECTION);
            crEvd = session.evd(8, EvdFlags.CR);
            EpAttr attr = ia.defaultEpAttr();
            attr.maxRecvDtos(Math.max(attr.maxRecvDtos(), 32)).maxRequestDtos(Math.max(attr.maxRequestDtos(), 32))
                    .maxRdmaReadIn(readDepth).maxRdmaReadOut(readDepth);
            ep = session.endpoint(evd, evd, evd, attr);
            mem = session.allocate(regionBytes, 4096);
            lmr = session.register(mem, MemPriv.ALL);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Adds a {@code tcp} registry entry with these IA parameters (dat.conf field 7) and returns its name.
     *
     * @param name   the IA name
     * @param params e.g. {@code "127.0.0.1 crc=on"}
     * @return {@code name}
     */
    public static String registerTcp(String name, String params) {
        try {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, "tcp", "jdat", 1, 0, params, ""));
        } catch (DatException e) {
            if (e.type() != io.jdat.DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
        return name;
    }

    public InterfaceAdapter ia() {
        return ia;
    }

    public Endpoint ep() {
        return ep;
    }

    public EventDispatcher crEvd() {
        return crEvd;
    }

    public Lmr lmr() {
        return lmr;
    }

    /** The whole registered region. */
    public MemorySegment mem() {
        return mem;
    }

    /** A local triplet for {@code length} bytes at {@code offset} of the region. */
    public LmrTriplet local(long offset, long length) {
        return new LmrTriplet(lmr.lmrContext(), mem.address() + offset, length);
    }

    /** The address the peer uses for {@code offset} of the region. */
    public long address(long offset) {
        return mem.address() + offset;
    }

    /**
     * Waits for the completion of the request posted with {@code cookie}, which must succeed.
     *
     * @return the transferred length
     */
    public long completion(long cookie, String what) {
        Held h = take(EventNumber.DTO_COMPLETION_EVENT, cookie, what, false);
        if (h.status() != DtoCompletionStatus.SUCCESS) {
            throw new SampleFailure(what + ": completed with " + h.status());
        }
        return h.length();
    }

    /**
     * Waits for the receive posted with {@code cookie}, or the end of the connection.
     *
     * @return the received length, or -1 when the peer disconnected first
     */
    public long recvOrDisconnect(long cookie, String what) {
        Held h = take(EventNumber.DTO_COMPLETION_EVENT, cookie, what, true);
        if (h.number() == EventNumber.CONNECTION_EVENT_DISCONNECTED) {
            return -1;
        }
        if (h.number() != EventNumber.DTO_COMPLETION_EVENT) {
            throw new SampleFailure("waiting for " + what + ": connection event " + h.number());
        }
        if (h.status() != DtoCompletionStatus.SUCCESS) {
            throw new SampleFailure(what + ": completed with " + h.status());
        }
        return h.length();
    }

    /** Waits for a connection event and returns it; a DTO completion met meanwhile is kept. */
    public EventNumber connectionEvent(String what) {
        return take(null, 0, what, false).number();
    }

    /** The private data of the last connection event taken. */
    public byte[] lastPrivateData() {
        return lastPd;
    }

    private byte[] lastPd = new byte[0];

    private Held take(EventNumber want, long cookie, String what, boolean orConnection) {
        for (Held h : held) {
            if (matches(h, want, cookie) || (orConnection && h.number() != EventNumber.DTO_COMPLETION_EVENT)) {
                held.remove(h);
                return h;
            }
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        for (;;) {
            long left = (deadline - System.nanoTime()) / 1000;
            if (left <= 0 || !evd.waitFor((int) Math.min(left, Integer.MAX_VALUE), 1, ev)) {
                throw new SampleFailure("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            EventNumber n = ev.eventNumber();
            Held h = new Held(n, n == EventNumber.DTO_COMPLETION_EVENT ? ev.userCookie() : 0,
                    n == EventNumber.DTO_COMPLETION_EVENT ? ev.status() : null,
                    n == EventNumber.DTO_COMPLETION_EVENT ? ev.transferredLength() : 0,
                    n == EventNumber.DTO_COMPLETION_EVENT ? null : ev.privateData());
            if (n == EventNumber.DTO_COMPLETION_EVENT && h.status() == DtoCompletionStatus.ERR_FLUSHED
                    && (want == null || orConnection)) {
                continue; // a receive flushed by the disconnection that is under way: its event follows
            }
            if (matches(h, want, cookie) || (orConnection && n != EventNumber.DTO_COMPLETION_EVENT)) {
                if (h.pd() != null) {
                    lastPd = h.pd();
                }
                return h;
            }
            if (n == EventNumber.DTO_COMPLETION_EVENT) {
                if (h.status() != DtoCompletionStatus.SUCCESS) {
                    throw new SampleFailure("waiting for " + what + ": request " + h.cookie() + " completed with "
                            + h.status());
                }
            } else if (want != null) {
                throw new SampleFailure("waiting for " + what + ": connection event " + n);
            }
            held.add(h);
        }
    }

    private static boolean matches(Held h, EventNumber want, long cookie) {
        if (want == null) {
            return h.number() != EventNumber.DTO_COMPLETION_EVENT;
        }
        return h.number() == want && h.cookie() == cookie;
    }

    /** Closes the IA abruptly (freeing everything in it) and frees the memory. */
    @Override
    public void close() {
        session.close();
    }
}
