package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.Cno;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.ReservedServicePoint;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Test fixture: a {@link Pair} with one Endpoint ({@link #ep}) brought into a chosen main state of API.md
 * §7.1, for the state-legality tests. Close it with try-with-resources.
 *
 * <ul>
 * <li>U: the client EP as created.</li>
 * <li>R: the server EP bound to an RSP ({@link #rsp}).</li>
 * <li>PCP: R, then the client connected to the RSP; {@link #cr} is the request carrying the server EP.</li>
 * <li>ACP: the client connected to a consumer PSP whose consumer has not answered; {@link #cr} is that
 * request, pending at the server.</li>
 * <li>TCP: the client connected to a {@link PspFlags#PROVIDER} PSP; {@link #ep} is the provider EP that
 * {@link #cr} carries, configured by {@code dat_ep_modify} with the server PZ and fresh EVDs (unless
 * {@link #unconfiguredTcp}).</li>
 * <li>CP: the server accepted with its EP. The {@code mem} transport finishes an accept on its single
 * connection-management thread, active side first; the client's connect EVD has a CNO whose proxy agent
 * holds that thread (bounded, 5 s) until {@link #releaseCp()}, so the server EP stays in CP
 * deterministically. The client EP must not be used while the thread is held (its state lock is).</li>
 * <li>C: connected (client EP).</li>
 * <li>DP: connected, a send posted with no receive at the peer (it waits, receiver not ready), then a
 * graceful disconnect: the client EP waits in DP. The {@code mem} RNR limit (2 s by default) ends DP, so
 * DP tests must be quick.</li>
 * <li>D: connected, then an abrupt disconnect (client EP; its DISCONNECTED event was consumed).</li>
 * </ul>
 *
 * <p>With {@code extras}, the fixture first prepares, before entering the state: {@link #spareCr}, a
 * pending consumer-PSP request (no EP attached) on {@link #ep}'s IA, and {@link #dupEp}, a connected EP of a
 * second pair (a {@code dat_ep_dup_connect} source). Both need the connection-management thread, which CP
 * holds.
 */
public final class EpStateFixture implements AutoCloseable {
    /** The main EP states, with their reported value and their {@code DAT_INVALID_STATE} subtype. */
    public enum St {
        U(EpState.UNCONNECTED, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED),
        R(EpState.RESERVED, DatReturnSubtype.INVALID_STATE_EP_RESERVED),
        PCP(EpState.PASSIVE_CONNECTION_PENDING, DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING),
        ACP(EpState.ACTIVE_CONNECTION_PENDING, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING),
        TCP(EpState.TENTATIVE_CONNECTION_PENDING, DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING),
        CP(EpState.COMPLETION_PENDING, DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING),
        C(EpState.CONNECTED, DatReturnSubtype.INVALID_STATE_EP_CONNECTED),
        DP(EpState.DISCONNECT_PENDING, DatReturnSubtype.INVALID_STATE_EP_DISCPENDING),
        D(EpState.DISCONNECTED, DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED);

        /** What {@code dat_ep_get_status} reports. */
        public final EpState epState;
        /** The subtype of {@code DAT_INVALID_STATE} for a call refused in this state. */
        public final DatReturnSubtype subtype;

        St(EpState epState, DatReturnSubtype subtype) {
            this.epState = epState;
            this.subtype = subtype;
        }

        /** True when the fixture's EP lives on the server IA. */
        public boolean onServer() {
            return this == R || this == PCP || this == TCP || this == CP;
        }
    }

    /** Connect timeout used by the fixture: long enough never to expire during a test. */
    public static final int TIMEOUT = 60_000_000;

    public final Pair pair = new Pair();
    public final St st;
    /** The EP in state {@link #st}. */
    public Endpoint ep;
    /** The EP's IA, PZ, EVDs and a 64 KiB LMR in its PZ. */
    public InterfaceAdapter ia;
    public ProtectionZone pz;
    public EventDispatcher recvEvd;
    public EventDispatcher reqEvd;
    public EventDispatcher connEvd;
    public Lmr lmr;
    /** The other side's IA (the one that did not host {@link #ep}). */
    public Pair.Side other;
    /** R: the RSP. */
    public ReservedServicePoint rsp;
    /** ACP, TCP, CP: the PSP. */
    public PublicServicePoint psp;
    /** PCP, TCP: the request carrying {@link #ep}; ACP: the request pending at the server. */
    public ConnectionRequest cr;
    /** With extras: a pending consumer request (no EP) on {@link #ep}'s IA. */
    public ConnectionRequest spareCr;
    /** With extras: a connected EP of a second pair. */
    public Endpoint dupEp;
    /** TCP only: leave the provider EP without PZ and EVDs. */
    public final boolean unconfiguredTcp;

    /** With extras: the connected pair {@link #dupEp} belongs to. */
    public Pair dupPair;
    /** PCP, ACP, TCP, CP: the requester's port qualifier as the server saw it in the request. */
    public long requesterPort;

    private CountDownLatch release;

    private EpStateFixture(St st, boolean extras, boolean unconfiguredTcp) {
        this.st = st;
        this.unconfiguredTcp = unconfiguredTcp;
        try {
            Pair.Side home = st.onServer() ? pair.server : pair.client;
            other = st.onServer() ? pair.client : pair.server;
            ia = home.ia;
            pz = home.pz;
            recvEvd = home.recvEvd;
            reqEvd = home.reqEvd;
            connEvd = home.connEvd;
            lmr = home.lmr;
            ep = home.ep;
            if (extras) {
                prepareExtras();
            }
            enter();
            if (!(st == St.TCP && unconfiguredTcp)) {
                assertEquals(st.epState, ep.getStatus().epState(), "fixture state");
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** A fixture whose EP is in {@code st}. */
    public static EpStateFixture of(St st) {
        return new EpStateFixture(st, false, false);
    }

    /** A fixture whose EP is in {@code st}, with {@link #spareCr} and {@link #dupEp}. */
    public static EpStateFixture withExtras(St st) {
        return new EpStateFixture(st, true, false);
    }

    /** TCP with the provider EP left unconfigured (no PZ, no EVDs: UNCONFIGURED_TENTATIVE). */
    public static EpStateFixture unconfiguredTcp() {
        return new EpStateFixture(St.TCP, false, true);
    }

    private void prepareExtras() {
        dupPair = new Pair().connect();
        dupEp = dupPair.client.ep;
        EventDispatcher spareCrEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CR);
        long q = Pair.freshQual();
        PublicServicePoint.create(ia, q, spareCrEvd, PspFlags.CONSUMER);
        EventDispatcher requesterConn = EventDispatcher.create(other.ia, 8, null, EvdFlags.CONNECTION);
        Endpoint requester = Endpoint.create(other.ia, other.pz, null, null, requesterConn, null);
        requester.connect(Pair.address(), q, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent e = other.next(spareCrEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
        spareCr = e.cr();
        assertNotNull(spareCr);
    }

    private void connectClient() {
        pair.client.ep.connect(Pair.address(), pair.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent e = pair.server.next(pair.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
        cr = e.cr();
        requesterPort = cr.query(CrParam.FIELD_REMOTE_PORT_QUAL).remotePortQual();
    }

    private void enter() {
        switch (st) {
            case U -> {
            }
            case R -> rsp = ReservedServicePoint.create(ia, pair.qual, ep, pair.crEvd);
            case PCP -> {
                rsp = ReservedServicePoint.create(ia, pair.qual, ep, pair.crEvd);
                connectClient();
            }
            case ACP -> {
                psp = PublicServicePoint.create(pair.server.ia, pair.qual, pair.crEvd, PspFlags.CONSUMER);
                connectClient();
            }
            case TCP -> {
                psp = PublicServicePoint.create(ia, pair.qual, pair.crEvd, PspFlags.PROVIDER);
                connectClient();
                ep = cr.query(CrParam.FIELD_ALL).localEpHandle();
                assertNotNull(ep, "provider EP");
                if (unconfiguredTcp) {
                    recvEvd = null;
                    reqEvd = null;
                    connEvd = null;
                    pz = null;
                } else {
                    recvEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
                    reqEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
                    connEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
                    ep.modify(EpParam.FIELD_PZ_HANDLE | EpParam.FIELD_RECV_EVD_HANDLE | EpParam.FIELD_REQUEST_EVD_HANDLE
                            | EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().pzHandle(pz).recvEvdHandle(recvEvd)
                            .requestEvdHandle(reqEvd).connectEvdHandle(connEvd));
                }
            }
            case CP -> enterCp();
            case C -> pair.connect();
            case DP -> {
                pair.connect();
                ep.postSend(1, new LmrTriplet[] {lmr.triplet(0, 8)}, 0xD0, 0);
                ep.disconnect(CloseFlags.GRACEFUL);
            }
            case D -> {
                pair.connect();
                ep.disconnect(CloseFlags.ABRUPT);
                pair.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            }
            default -> throw new IllegalStateException();
        }
    }

    private void enterCp() {
        CountDownLatch entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
        CountDownLatch rel = release;
        AtomicBoolean armed = new AtomicBoolean(true);
        Cno cno = Cno.create(pair.client.ia, evd -> {
            if (armed.compareAndSet(true, false)) {
                entered.countDown();
                try {
                    rel.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        EventDispatcher held = EventDispatcher.create(pair.client.ia, 16, cno, EvdFlags.CONNECTION);
        pair.client.ep.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().connectEvdHandle(held));
        psp = PublicServicePoint.create(ia, pair.qual, pair.crEvd, PspFlags.CONSUMER);
        connectClient();
        cr.accept(ep, 0, null);
        cr = null;
        try {
            assertTrue(entered.await(5, TimeUnit.SECONDS), "the accept did not reach the active side");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** CP: lets the held accept finish (the server EP then leaves CP). */
    public void releaseCp() {
        if (release != null) {
            release.countDown();
        }
    }

    /** Waits up to 5 s for the next event on {@code evd}. */
    public DatEvent next(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.waitFor(5_000_000, 1, e), "no event within 5 s on " + evd);
        return e;
    }

    /** The state the EP reports now. */
    public EpState state() {
        return ep.getStatus().epState();
    }

    @Override
    public void close() {
        releaseCp();
        try {
            pair.close();
        } finally {
            if (dupPair != null) {
                dupPair.close();
            }
        }
    }
}
