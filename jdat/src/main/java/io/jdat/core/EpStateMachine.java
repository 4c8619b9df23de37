package io.jdat.core;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.EpState;

/**
 * The endpoint state machine of API.md §7: the only code that assigns an EP's state. Each transition row
 * of §7.2 is one method, named after its trigger; it checks the state it starts from and moves to the
 * next. The side effects of a row (events, flushes, the transport) belong to the caller ({@link CoreEp},
 * {@link EpConnection}).
 *
 * <p><b>Locking and memory ordering.</b> Every transition runs with the EP's state lock
 * ({@link CoreEp#lock}) held, so a check-then-assign here is atomic against every other transition. The
 * transitions that affect posting (connect, accept, the graceful disconnect, entering DISCONNECTED, reset)
 * also run with the EP's posting lock ({@link CoreEp#txLock}) taken first, so no send, RDMA or bind post
 * (which reads the state under txLock only) interleaves with one. The state is {@code volatile}: the
 * transport's receive path, RDMA target checks and request completions read it without any lock, and
 * whatever the EP wrote before a transition (its channel, its attributes) is visible to a reader that
 * sees the new state. A completion that ends a graceful disconnect pairs with
 * {@link #gracefulDisconnect}: the disconnect writes DISCONNECT_PENDING and then reads the request
 * counters, a completion writes the counters and then reads the state, so at least one of them sees the
 * other (both are volatile) and the disconnect ends exactly when the last request does.
 *
 * <p>The four UNCONFIGURED_* states of §7.1 are not states here: {@link #reported} derives them from the
 * EP's configuration.
 */
final class EpStateMachine {
    /** The main states of API.md §7.1. */
    enum State {
        UNCONNECTED, RESERVED, PASSIVE_CONNECTION_PENDING, ACTIVE_CONNECTION_PENDING, TENTATIVE_CONNECTION_PENDING,
        COMPLETION_PENDING, CONNECTED, DISCONNECT_PENDING, DISCONNECTED
    }

    /** Written only by the transitions below (EP lock held); read anywhere without locks. */
    private volatile State state;

    private EpStateMachine(State initial) {
        this.state = initial;
    }

    /** §7.2 {@code dat_ep_create} / {@code dat_ep_create_with_srq} (and an RSP's provider EP): — → UNCONNECTED. */
    static EpStateMachine created() {
        return new EpStateMachine(State.UNCONNECTED);
    }

    /**
     * §7.2 a request arrives on a PSP created with {@code DAT_PSP_PROVIDER_FLAG}: a new provider EP in
     * TENTATIVE_CONNECTION_PENDING (PSP-04).
     */
    static EpStateMachine createdByProvider() {
        return new EpStateMachine(State.TENTATIVE_CONNECTION_PENDING);
    }

    /** {@return the current state} (a volatile read). */
    State current() {
        return state;
    }

    /** {@return whether the connection carries data: CONNECTED or DISCONNECT_PENDING} */
    boolean connectedOrDraining() {
        State s = state;
        return s == State.CONNECTED || s == State.DISCONNECT_PENDING;
    }

    /** {@return whether no connection was ever requested or accepted: UNCONNECTED, RESERVED or a pending request} */
    boolean beforeConnecting() {
        State s = state;
        return s == State.UNCONNECTED || s == State.RESERVED || s == State.PASSIVE_CONNECTION_PENDING
                || s == State.TENTATIVE_CONNECTION_PENDING;
    }

    // ================================================================== transitions (API.md §7.2), EP lock held

    /** §7.2 {@code dat_rsp_create(ep)}: UNCONNECTED → RESERVED; any other state → {@code DAT_INVALID_STATE} (RSP-01). */
    void rspCreate() {
        State s = state;
        if (s != State.UNCONNECTED) {
            throw invalid(s, "rsp_create (RSP-01)");
        }
        state = State.RESERVED;
    }

    /** §7.2 {@code dat_rsp_free}: RESERVED → UNCONNECTED; {@return false, changing nothing, in any other state} */
    boolean rspFree() {
        return move(State.RESERVED, State.UNCONNECTED);
    }

    /** §7.2 a request arrives on the RSP: RESERVED → PASSIVE_CONNECTION_PENDING. */
    void rspRequestArrived() {
        state = State.PASSIVE_CONNECTION_PENDING;
    }

    /**
     * §7.2 {@code dat_ep_connect} / {@code dat_ep_dup_connect}: UNCONNECTED → ACTIVE_CONNECTION_PENDING.
     * Another state is {@code DAT_INVALID_STATE} (CON-16), an EP without a PZ or a connect EVD
     * {@code DAT_INVALID_STATE_EP_NOTREADY} (CON-25); both leave the state as it was (the row "connect fails
     * synchronously": UNCONNECTED stays).
     */
    void connect(boolean configured) {
        State s = state;
        if (s != State.UNCONNECTED) {
            throw invalid(s, "connect (CON-16)");
        }
        requireConfigured(configured, "CON-25");
        state = State.ACTIVE_CONNECTION_PENDING;
    }

    /** §7.2 remote accepted, transport done: ACTIVE_CONNECTION_PENDING → CONNECTED; {@return false in any other state} */
    boolean activeEstablished() {
        return move(State.ACTIVE_CONNECTION_PENDING, State.CONNECTED);
    }

    /**
     * §7.2 {@code dat_cr_accept}: UNCONNECTED (a consumer EP for a request that carries none), or
     * PASSIVE_CONNECTION_PENDING / TENTATIVE_CONNECTION_PENDING (the EP the request carries) →
     * COMPLETION_PENDING. Otherwise {@code DAT_INVALID_STATE} (AMB-16), or
     * {@code DAT_INVALID_STATE_EP_NOTREADY} for an EP without a PZ or a connect EVD (PSP-13).
     *
     * @param carriesNone the request carries no EP
     * @param carriesThis the request carries this EP
     */
    void accept(boolean carriesNone, boolean carriesThis, boolean configured) {
        State s = state;
        boolean ok = (carriesNone && s == State.UNCONNECTED) || (carriesThis
                && (s == State.PASSIVE_CONNECTION_PENDING || s == State.TENTATIVE_CONNECTION_PENDING));
        if (!ok) {
            throw invalid(s, "accept (AMB-16)");
        }
        requireConfigured(configured, "PSP-13");
        state = State.COMPLETION_PENDING;
    }

    /** §7.2 CP, transport completes: COMPLETION_PENDING → CONNECTED; {@return false in any other state} */
    boolean passiveEstablished() {
        return move(State.COMPLETION_PENDING, State.CONNECTED);
    }

    /**
     * §7.2 {@code dat_cr_reject} of the request that carries this EP: PASSIVE_CONNECTION_PENDING →
     * UNCONNECTED; TENTATIVE_CONNECTION_PENDING → provider control (UNCONNECTED, and the provider destroys
     * its EP). Also a handoff, or a request the core could not deliver.
     */
    void crReject() {
        state = State.UNCONNECTED;
    }

    /**
     * §7.2 {@code dat_ep_disconnect} GRACEFUL in CONNECTED: CONNECTED → DISCONNECT_PENDING, where outstanding
     * requests finish (DSC-06). The caller then reads the request counters (see the class comment).
     */
    void gracefulDisconnect() {
        state = State.DISCONNECT_PENDING;
    }

    /**
     * §7.2 every row that ends in DISCONNECTED (rejection, timeout, unreachable, accept failure, disconnect,
     * remote disconnect, broken): ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING, CONNECTED or
     * DISCONNECT_PENDING → DISCONNECTED. {@return false, changing nothing, in any other state}
     */
    boolean disconnected() {
        State s = state;
        if (s == State.DISCONNECTED || s == State.UNCONNECTED || s == State.RESERVED
                || s == State.PASSIVE_CONNECTION_PENDING || s == State.TENTATIVE_CONNECTION_PENDING) {
            return false;
        }
        state = State.DISCONNECTED;
        return true;
    }

    /**
     * §7.2 {@code dat_ep_reset}: DISCONNECTED → UNCONNECTED ({@return true}); UNCONNECTED stays, a no-op
     * ({@return false}, RST-03); any other state is {@code DAT_INVALID_STATE} (RST-04).
     */
    boolean reset() {
        State s = state;
        if (s == State.UNCONNECTED) {
            return false;
        }
        if (s != State.DISCONNECTED) {
            throw invalid(s, "reset (RST-04)");
        }
        state = State.UNCONNECTED;
        return true;
    }

    /** {@code DAT_INVALID_STATE_EP_NOTREADY} for an EP without a PZ or a connect EVD (§7.1 UNCONFIGURED_*). */
    private static void requireConfigured(boolean configured, String rule) {
        if (!configured) {
            throw Fail.state(DatReturnSubtype.INVALID_STATE_EP_NOTREADY, "EP lacks a PZ or a connect EVD (" + rule + ")");
        }
    }

    /** Moves {@code from} → {@code to}; {@return false, changing nothing, when the EP is not in {@code from}} */
    private boolean move(State from, State to) {
        if (state != from) {
            return false;
        }
        state = to;
        return true;
    }

    // ================================================================== reporting

    /** {@return the state {@code dat_ep_query} reports: the UNCONFIGURED_* variants when {@code configured} is false} */
    EpState reported(boolean configured) {
        return switch (state) {
            case UNCONNECTED -> configured ? EpState.UNCONNECTED : EpState.UNCONFIGURED_UNCONNECTED;
            case RESERVED -> configured ? EpState.RESERVED : EpState.UNCONFIGURED_RESERVED;
            case PASSIVE_CONNECTION_PENDING -> configured ? EpState.PASSIVE_CONNECTION_PENDING
                    : EpState.UNCONFIGURED_PASSIVE;
            case TENTATIVE_CONNECTION_PENDING -> configured ? EpState.TENTATIVE_CONNECTION_PENDING
                    : EpState.UNCONFIGURED_TENTATIVE;
            case ACTIVE_CONNECTION_PENDING -> EpState.ACTIVE_CONNECTION_PENDING;
            case COMPLETION_PENDING -> EpState.COMPLETION_PENDING;
            case CONNECTED -> EpState.CONNECTED;
            case DISCONNECT_PENDING -> EpState.DISCONNECT_PENDING;
            case DISCONNECTED -> EpState.DISCONNECTED;
        };
    }

    /** {@return the {@code DAT_INVALID_STATE} subtype of state {@code s}} */
    static DatReturnSubtype subtype(State s) {
        return switch (s) {
            case UNCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case RESERVED -> DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case PASSIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case ACTIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case TENTATIVE_CONNECTION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING;
            case COMPLETION_PENDING -> DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING;
            case CONNECTED -> DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DISCONNECT_PENDING -> DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case DISCONNECTED -> DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
        };
    }

    /** {@return {@code DAT_INVALID_STATE} with the subtype of {@code s}: {@code what} is not allowed there} */
    static DatException invalid(State s, String what) {
        return Fail.state(subtype(s), what + " not allowed in state " + s);
    }
}
