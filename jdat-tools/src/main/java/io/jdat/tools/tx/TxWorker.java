package io.jdat.tools.tx;

import java.util.List;

/**
 * The iterations of one thread of {@code jdat tx}, the same on both sides: each step runs over all of the
 * thread's endpoints before the next, so their transfers overlap.
 *
 * <ol>
 *   <li>fill the sources, post the receives (data, DONE, the next READY or FIN);</li>
 *   <li>send READY, wait for the peer's READY (its receives are posted, its sources filled);</li>
 *   <li>post this side's operations, wait for their completions, validate RDMA Read data;</li>
 *   <li>wait for the peer's Sends and validate them;</li>
 *   <li>send DONE, wait for the peer's DONE, validate what its RDMA Writes placed (a Send behind RDMA
 *       Writes arrives after their data on every DAT transport).</li>
 * </ol>
 * After the last iteration each endpoint sends FIN with its counts and waits for the peer's.
 */
final class TxWorker {
    private TxWorker() {
    }

    /**
     * Runs every iteration, then exchanges FIN.
     *
     * @param eps    the thread's endpoints, connected, with the peer's regions known
     * @param hooks  test hooks
     * @param result where the counts go
     */
    static void run(List<TxEndpoint> eps, TxHooks hooks, TxResult result) {
        int counted = 0;
        try {
            iterate(eps, hooks);
            for (TxEndpoint e : eps) {
                e.sendFin();
            }
            for (TxEndpoint e : eps) {
                result.add(e.stats, e.awaitFin());
                counted++;
            }
        } finally {
            // After a failure what this side validated still counts; the peer's counts (its FIN) did not come.
            for (int k = counted; k < eps.size(); k++) {
                result.addWithoutPeer(eps.get(k).stats);
            }
        }
    }

    /** Every iteration of the thread's endpoints. */
    private static void iterate(List<TxEndpoint> eps, TxHooks hooks) {
        long n = eps.getFirst().config.iterations();
        for (long i = 0; i < n; i++) {
            for (TxEndpoint e : eps) {
                e.prepare(i, hooks);
            }
            for (TxEndpoint e : eps) {
                e.sendReady(i);
            }
            for (TxEndpoint e : eps) {
                e.awaitReady(i);
            }
            for (TxEndpoint e : eps) {
                e.postOps(i);
            }
            for (TxEndpoint e : eps) {
                e.awaitOps(i);
            }
            for (TxEndpoint e : eps) {
                e.awaitIncoming(i);
            }
            for (TxEndpoint e : eps) {
                e.sendDone(i);
            }
            for (TxEndpoint e : eps) {
                e.awaitDone(i);
            }
        }
    }
}
