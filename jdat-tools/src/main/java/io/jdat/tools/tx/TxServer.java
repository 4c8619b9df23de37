package io.jdat.tools.tx;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.cli.ToolFailure;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The server side of {@code jdat tx}: listens on one Public Service Point, accepts the client's
 * {@code threads x endpoints} connections (each names its thread and endpoint in its private data), learns
 * the run from each endpoint's CONFIG, answers with INFO, runs one thread per client thread, and waits for
 * the client's disconnects. Serves one run.
 */
final class TxServer implements AutoCloseable {
    private final String iaName;
    private final long connQual;
    private final boolean poll;
    private final int timeoutSeconds;
    private final TxAbort abort;
    private final TxHooks hooks;
    private final PrintWriter log;
    final TxSide side;
    private final EventDispatcher crEvd;
    private PublicServicePoint psp;
    private final DatEvent ev = new DatEvent();
    /** The run, once the first CONFIG arrived. */
    private volatile TxResult result;

    /**
     * Opens the IA and listens.
     *
     * @param iaName         the IA
     * @param connQual       the connection qualifier
     * @param poll           busy-poll
     * @param timeoutSeconds the wait limit, counted from the first connection request
     * @param abort          the process's abort flag
     * @param hooks          test hooks
     * @param log            where notes go (rejected strangers), or {@code null}
     */
    TxServer(String iaName, long connQual, boolean poll, int timeoutSeconds, TxAbort abort, TxHooks hooks,
            PrintWriter log) {
        this.iaName = iaName;
        this.connQual = connQual;
        this.poll = poll;
        this.timeoutSeconds = timeoutSeconds;
        this.abort = abort;
        this.hooks = hooks;
        this.log = log;
        side = new TxSide("server", iaName);
        try {
            // room for every connection request of the largest run at once: a burst of them is queued, not
            // refused with NON_PEER_REJECTED for want of room (the PSP's backlog is this EVD, PSP-03)
            int maxQlen = side.iaAttr.maxEvdQlen();
            int crQlen = maxQlen > 0 ? Math.min(TxConfig.MAX_ENDPOINTS, maxQlen) : TxConfig.MAX_ENDPOINTS;
            crEvd = side.session.evd(crQlen, EvdFlags.CR);
            psp = PublicServicePoint.create(side.ia, connQual, crEvd, PspFlags.CONSUMER);
        } catch (RuntimeException | Error e) {
            side.close();
            throw e;
        }
    }

    /** The address clients connect to. */
    SocketAddress address() {
        return side.iaAttr.iaAddress();
    }

    /** The run's result, once the first CONFIG arrived, else {@code null}. */
    TxResult result() {
        return result;
    }

    /**
     * Serves one run.
     *
     * @param firstTimeoutSeconds how long to wait for the first connection request (0: forever)
     * @return the server's view of the run
     */
    TxResult serve(int firstTimeoutSeconds) {
        List<TxEndpoint> all = new ArrayList<>();
        TxEndpoint[][] byThread = null;
        TxWire.Hello first = null;
        int accepted = 0;
        long start = System.nanoTime();
        while (first == null || accepted < first.threads() * first.eps()) {
            if (!crEvd.waitFor(50_000, 1, ev)) {
                abort.check();
                long limit = first == null ? firstTimeoutSeconds : timeoutSeconds;
                if (limit > 0 && System.nanoTime() - start > limit * 1_000_000_000L) {
                    throw new ToolFailure("server: " + (first == null ? "no client connected" : "only " + accepted
                            + " of " + first.threads() * first.eps() + " endpoints connected") + " within "
                            + limit + " s");
                }
                continue;
            }
            if (ev.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
                throw new ToolFailure("server: unexpected " + ev.eventNumber() + " on the PSP's EVD");
            }
            ConnectionRequest cr = ev.cr();
            TxWire.Hello h;
            try {
                h = TxWire.Hello.decode(cr.query(CrParam.FIELD_ALL).privateData());
                if (h.threads() < 1 || h.threads() > TxConfig.MAX_THREADS || h.eps() < 1 || h.eps() > TxConfig.MAX_EPS
                        || h.threads() * h.eps() > TxConfig.MAX_ENDPOINTS || h.thread() >= h.threads()
                        || h.ep() >= h.eps()) {
                    throw new ToolFailure("connection request for thread " + h.thread() + " endpoint " + h.ep()
                            + " of " + h.threads() + " x " + h.eps());
                }
                if (first != null && (h.runId() != first.runId() || h.threads() != first.threads()
                        || h.eps() != first.eps())) {
                    throw new ToolFailure("connection request of another run while one is being set up");
                }
                if (byThread != null && byThread[h.thread()][h.ep()] != null) {
                    throw new ToolFailure("second connection request for thread " + h.thread() + " endpoint " + h.ep());
                }
            } catch (ToolFailure f) {
                note("rejected a connection request: " + f.getMessage());
                cr.reject();
                continue;
            }
            if (first == null) {
                first = h;
                byThread = new TxEndpoint[h.threads()][h.eps()];
                start = System.nanoTime();
            }
            TxEndpoint e = new TxEndpoint(side, h.thread(), h.ep(), TxConfig.MAX_OPS, poll, timeoutSeconds, abort);
            byThread[h.thread()][h.ep()] = e;
            all.add(e);
            e.postMsgRecv(0);
            cr.accept(e.ep, TxWire.ACCEPT_PD, TxWire.welcome());
            accepted++;
        }
        psp.free();
        psp = null;

        TxConfig config = null;
        for (TxEndpoint e : all) {
            e.awaitConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED, "connection");
            TxWire.Config c = e.awaitConfig();
            if (config == null) {
                config = new TxConfig(iaName, connQual, c.threads(), c.eps(), c.iterations(), c.ops(), poll,
                        timeoutSeconds, c.runId());
                if (c.runId() != first.runId() || c.threads() != first.threads() || c.eps() != first.eps()
                        || c.iterations() < 1) {
                    throw new ToolFailure("server: CONFIG does not match the connection requests");
                }
                side.checkLimits(config);
                TxResult r = new TxResult(config);
                r.provider = provider(side);
                result = r;
            } else if (c.runId() != config.runId() || c.iterations() != config.iterations()
                    || !c.ops().equals(config.ops())) {
                throw new ToolFailure(e.name + ": CONFIG differs from the first endpoint's");
            }
            e.configure(config);
            e.errors(result);
            e.peer(c.region());
            e.postFirstReadyRecv();
            e.sendInfo();
        }
        TxResult r = result;
        long t0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (TxEndpoint[] group : byThread) {
            List<TxEndpoint> eps = List.of(group);
            Thread t = new Thread(() -> {
                try {
                    for (TxEndpoint e : eps) {
                        e.awaitInfoSent();
                    }
                    TxWorker.run(eps, hooks, r);
                    for (TxEndpoint e : eps) {
                        e.awaitConnection(EventNumber.CONNECTION_EVENT_DISCONNECTED, "disconnect");
                    }
                } catch (Throwable f) {
                    abort.fail(f);
                }
            }, "jdat-test-server-" + eps.getFirst().thread);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        TxRun.joinAll(threads);
        r.elapsedNanos = System.nanoTime() - t0;
        return r;
    }

    private void note(String message) {
        if (log != null) {
            log.println("jdat tx server: " + message);
            log.flush();
        }
    }

    /** The provider's name and version, for reports. */
    static String provider(TxSide s) {
        var p = s.providerAttr;
        return p.providerName() + " " + p.providerVersionMajor() + "." + p.providerVersionMinor();
    }

    /** Closes the IA abruptly. */
    @Override
    public void close() {
        try {
            if (psp != null) {
                psp.free();
            }
        } catch (DatException e) {
            // closing anyway
        }
        side.close();
    }
}
