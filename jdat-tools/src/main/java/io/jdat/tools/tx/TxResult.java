package io.jdat.tools.tx;

import io.jdat.tools.cli.ErrorHandler;
import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of a {@code jdat tx} run as one side saw it: what this side and (from the FIN messages)
 * the peer validated, data errors, the fatal failure if any, and the IA counters. Thread-safe collection.
 */
final class TxResult implements TxHooks.Errors {
    /** How many error messages are kept. */
    static final int KEEP = 10;

    final TxConfig config;
    final TxStats local;
    final TxStats peer;
    private final List<String> messages = new ArrayList<>();
    private Throwable fatal;
    private boolean peerMissing;
    long elapsedNanos;
    String provider = "";
    String address = "";
    private final List<Counts> counts = new ArrayList<>();

    /**
     * The DTO counters of one IA at the end of the run.
     *
     * @param what     e.g. "client IA"
     * @param counters the snapshot
     */
    record Counts(String what, io.jdat.DtoCounters counters) {
    }

    /** Adds an IA's counters. */
    synchronized void counts(String what, io.jdat.DtoCounters c) {
        counts.add(new Counts(what, c));
    }

    /** The IA counters taken. */
    synchronized List<Counts> counts() {
        return List.copyOf(counts);
    }

    TxResult(TxConfig config) {
        this.config = config;
        local = new TxStats(config.ops().size());
        peer = new TxStats(config.ops().size());
    }

    @Override
    public synchronized void dataError(String message) {
        if (messages.size() < KEEP) {
            messages.add(message);
        }
    }

    /** Adds an endpoint's counts (after its thread ended). */
    synchronized void add(TxStats mine, TxStats peers) {
        local.add(mine);
        if (peers != null) {
            peer.add(peers);
        }
    }

    /**
     * Adds the counts of an endpoint that failed before the peer's FIN arrived: the peer's part of the counts is
     * then {@linkplain #peerMissing() missing}.
     */
    synchronized void addWithoutPeer(TxStats mine) {
        if (mine != null) {
            local.add(mine);
        }
        peerMissing = true;
    }

    /** Whether some of the peer's counts did not arrive (the run failed before its FIN). */
    synchronized boolean peerMissing() {
        return peerMissing;
    }

    /**
     * Takes the peer's counts from the peer itself (both sides in this JVM), replacing what its FIN messages
     * brought: after a failure some FINs never came.
     *
     * @param peerLocal the peer side's own counts
     */
    synchronized void peerCounts(TxStats peerLocal) {
        java.util.Arrays.fill(peer.validated, 0);
        java.util.Arrays.fill(peer.wrong, 0);
        peer.errors = 0;
        peer.add(peerLocal);
        peerMissing = false;
    }

    /** Records the fatal failure. */
    synchronized void fatal(Throwable t) {
        fatal = t;
    }

    synchronized Throwable fatal() {
        return fatal;
    }

    synchronized List<String> messages() {
        return List.copyOf(messages);
    }

    /** Validated executions of op {@code k} by both sides. */
    synchronized long validated(int k) {
        return local.validated[k] + peer.validated[k];
    }

    /** Executions of op {@code k} whose data was wrong, found by either side. */
    synchronized long wrong(int k) {
        return local.wrong[k] + peer.wrong[k];
    }

    /** All validated executions. */
    synchronized long validated() {
        long v = 0;
        for (int k = 0; k < config.ops().size(); k++) {
            v += validated(k);
        }
        return v;
    }

    /** Validated payload bytes. */
    synchronized long bytes() {
        long b = 0;
        for (int k = 0; k < config.ops().size(); k++) {
            b += validated(k) * config.ops().get(k).bytes();
        }
        return b;
    }

    /** Errors: data errors reported by either side, plus one for a fatal failure. */
    synchronized long errors() {
        return local.errors + peer.errors + (fatal != null ? 1 : 0);
    }

    /** Whether the run passed: no error, and every execution of every operation validated. */
    synchronized boolean passed() {
        return errors() == 0 && validated() == config.totalOps();
    }

    /** Error lines for the report: the fatal failure first, then data errors. */
    synchronized List<String> errorLines() {
        List<String> l = new ArrayList<>();
        if (fatal != null) {
            l.add(ErrorHandler.describe(fatal));
        }
        l.addAll(messages);
        return l;
    }
}
