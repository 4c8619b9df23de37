package io.jdat.samples.common;

import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * What every sample opens first: an Interface Adapter of the provider named on the command line, a
 * Protection Zone, the four Event Dispatchers a connection uses, and an arena for registered memory. Closing
 * it closes the IA ({@code dat_ia_close}, which frees every object of the IA) and then the arena.
 */
public final class Peer implements AutoCloseable {
    /** The IA ({@code dat_ia_open}). */
    public final InterfaceAdapter ia;
    /** The Protection Zone of every Endpoint and LMR ({@code dat_pz_create}). */
    public final ProtectionZone pz;
    /** Receive completions. */
    public final EventDispatcher recvEvd;
    /** Send, RDMA Write and RDMA Read completions. */
    public final EventDispatcher reqEvd;
    /** Connection events (established, disconnected, ...). */
    public final EventDispatcher connEvd;
    /** Connection requests for a server's Public Service Point. */
    public final EventDispatcher crEvd;
    /** Registered memory lives here; it is closed after the IA. */
    public final Arena arena = Arena.ofShared();
    private final DatEvent event = new DatEvent(); // reused: waiting allocates nothing

    private Peer(InterfaceAdapter ia) {
        this.ia = ia;
        pz = ProtectionZone.create(ia);
        recvEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
        reqEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
        connEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
        crEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CR);
    }

    /**
     * Opens an IA of {@code provider} ({@code mem}, {@code shm}, {@code tcp}) and its objects.
     *
     * @param provider the IA name
     * @return the peer
     */
    public static Peer open(String provider) {
        InterfaceAdapter ia = InterfaceAdapter.open(provider, 8, null);
        try {
            return new Peer(ia);
        } catch (RuntimeException e) {
            ia.close();
            throw e;
        }
    }

    /** A new Endpoint on this peer's EVDs with the provider's default attributes ({@code dat_ep_create}). */
    public Endpoint endpoint() {
        return Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, null);
    }

    /**
     * Registers memory of this peer's {@link #arena} ({@code dat_lmr_create}).
     *
     * @param memory     a segment of {@link #arena}
     * @param privileges {@link io.jdat.MemPriv} bits
     * @return the LMR
     */
    public Lmr register(MemorySegment memory, int privileges) {
        return Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(memory), memory.byteSize(), pz, privileges);
    }

    /**
     * Waits for the next event of {@code evd} ({@code dat_evd_wait}, 10 s at most) and checks that it is
     * {@code expected} (and, for a DTO completion, that it succeeded).
     *
     * @param evd      the EVD
     * @param expected the event it must be
     * @return the event (reused by the next call)
     * @throws IllegalStateException on a timeout or another event
     */
    public DatEvent next(EventDispatcher evd, EventNumber expected) {
        return next(evd, expected, 10_000_000);
    }

    /**
     * As {@link #next(EventDispatcher, EventNumber)} with a timeout.
     *
     * @param evd           the EVD
     * @param expected      the event it must be
     * @param timeoutMicros the longest wait, or {@link io.jdat.Dat#TIMEOUT_INFINITE}
     * @return the event (reused by the next call)
     */
    public DatEvent next(EventDispatcher evd, EventNumber expected, int timeoutMicros) {
        if (!evd.waitFor(timeoutMicros, 1, event)) {
            throw new IllegalStateException("no " + expected + " within " + timeoutMicros / 1000 + " ms");
        }
        DatEvent e = event;
        if (e.eventNumber() != expected
                || expected == EventNumber.DTO_COMPLETION_EVENT && e.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("expected " + expected + ", got " + e.eventNumber() + " " + e.status());
        }
        return e;
    }

    /**
     * The next event of {@code evd}, whatever it is.
     *
     * @param evd           the EVD
     * @param timeoutMicros the longest wait, or {@link io.jdat.Dat#TIMEOUT_INFINITE}
     * @return the event (reused by the next call)
     */
    public DatEvent nextAny(EventDispatcher evd, int timeoutMicros) {
        if (!evd.waitFor(timeoutMicros, 1, event)) {
            throw new IllegalStateException("no event within " + timeoutMicros / 1000 + " ms");
        }
        return event;
    }

    /** This IA's address as text for another process's command line: a host, a path ({@code shm}), or {@code mem:NAME}. */
    public String address() {
        SocketAddress a = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        if (a instanceof InetSocketAddress i) {
            return i.getAddress().getHostAddress();
        }
        if (a instanceof UnixDomainSocketAddress u) {
            return u.getPath().toString();
        }
        return a.toString();
    }

    /**
     * The IA address that {@link #address()} printed: an {@code shm} instance path, an IP host, or for
     * {@code mem} (whose IAs of one name in one JVM share one address) this IA's own.
     *
     * @param text the text
     * @return the address to connect to
     */
    public SocketAddress parse(String text) {
        SocketAddress own = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        if (text.equals(own.toString())) {
            return own;
        }
        if (text.startsWith("/")) {
            return UnixDomainSocketAddress.of(text);
        }
        return new InetSocketAddress(text, 0);
    }

    @Override
    public void close() {
        try {
            ia.close();
        } finally {
            arena.close();
        }
    }
}
