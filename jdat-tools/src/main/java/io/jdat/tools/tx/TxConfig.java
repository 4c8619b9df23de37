package io.jdat.tools.tx;

import java.util.List;

/**
 * The settings of one {@code jdat tx} run. Both sides need the same ones: the client sends them to the
 * server on every endpoint ({@link TxWire}).
 *
 * @param iaName         the IA name both sides open (or the client's, in two processes)
 * @param connQual       the connection qualifier the server listens on
 * @param threads        client threads (the server runs as many)
 * @param eps            endpoints per thread
 * @param iterations     how often each thread runs the op list on each of its endpoints
 * @param ops            the op list
 * @param poll           busy-poll with {@code dat_evd_dequeue} instead of blocking in {@code dat_evd_wait}
 * @param timeoutSeconds fail when a wait makes no progress for this long
 * @param runId          the run's identity: seeds the patterns, ties the server's endpoints to one client
 */
record TxConfig(String iaName, long connQual, int threads, int eps, long iterations, List<TxOp> ops, boolean poll,
        int timeoutSeconds, long runId) {
    /** The largest op list. */
    static final int MAX_OPS = 64;
    /** The largest number of threads. */
    static final int MAX_THREADS = 256;
    /**
     * The most endpoints of a run on each side ({@code threads x eps}), and so the most connection requests a
     * server takes at once: its connection-request EVD holds this many (or the IA's {@code max_evd_qlen}), so
     * that a whole burst is queued and none is refused. Connections cost an fd per side on tcp and shm and no
     * thread (one progress thread per IA); 4096 in one process stays well below the usual fd limits.
     */
    static final int MAX_ENDPOINTS = 4096;
    /** The largest number of endpoints per thread. */
    static final int MAX_EPS = MAX_ENDPOINTS;

    /** Immutable op list. */
    TxConfig {
        ops = List.copyOf(ops);
    }

    /** Endpoints on each side. */
    int totalEps() {
        return threads * eps;
    }

    /** Executions of each operation in the whole run. */
    long executionsPerOp() {
        return iterations * totalEps();
    }

    /** Operation executions in the whole run. */
    long totalOps() {
        return executionsPerOp() * ops.size();
    }

    /** Payload bytes of the whole run. */
    long totalBytes() {
        long perIteration = 0;
        for (TxOp op : ops) {
            perIteration += op.bytes();
        }
        return perIteration * executionsPerOp();
    }

    /** The same run seen from a server that learnt it from a client (IA name and timeout are the server's). */
    TxConfig forServer(String serverIa, int serverTimeout, boolean serverPoll) {
        return new TxConfig(serverIa, connQual, threads, eps, iterations, ops, serverPoll, serverTimeout, runId);
    }
}
