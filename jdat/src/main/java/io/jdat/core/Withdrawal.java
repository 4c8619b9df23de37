package io.jdat.core;

import java.util.concurrent.locks.LockSupport;

/**
 * What makes {@code dat_lmr_free} and an RMR unbind (or re-bind) final for the transports that move bytes in
 * software: once a context is out of the IA's {@link MemoryTable}, {@link #await} returns only when no Endpoint of
 * the IA is still placing an incoming RDMA Write through it or reading an incoming RDMA Read's source through it.
 * After that no byte of a peer's Write lands in the region and no byte of it is read for a peer's Read (a real RNIC
 * promises the same when a deregistration returns): the consumer may reuse the memory at once.
 *
 * <p><b>The pair of accesses.</b> A transport places an incoming Write only after {@link CoreEp#resolveRemote}
 * admitted it, and says when its copy ended ({@link CoreEp#placed}); it reads a Read's source only after
 * {@link CoreEp#holdSource} admitted that read, and says when it ended ({@link CoreEp#sourced}). Each stores the
 * context in one of the EP's two marks (placement, written by the receive path; source, written by the one thread
 * that serves Reads; volatile: a full fence follows) before it looks the context up (a volatile read); a
 * withdrawal clears the table's slot (volatile) before it reads the marks (volatile). In the single total order of
 * these accesses either the lookup comes after the clear (no region: the access is refused, and an in-flight Write
 * or Read may fail so, LMF-04), or the mark comes before the withdrawal's look at it, and the withdrawal waits until
 * the transport has placed or read the bytes and cleared the mark.
 *
 * <p><b>How long.</b> A transport holds a mark for one bounded copy (a ring record, what one socket read brought,
 * one staged chunk or Read Response, one non-blocking socket send), never across a wait for its peer or for socket
 * space, so a withdrawal normally waits microseconds. One that still finds a mark after {@link #DRAIN_NANOS} has
 * that EP's connection broken (as a fault of the transport) and returns. Contexts are unique per registration and
 * per bind (the key of a slot changes each time), so a mark never stands for a later region.
 */
final class Withdrawal {
    /** How long a withdrawal waits for one EP's holds before it breaks that EP's connection. */
    static final long DRAIN_NANOS = 1_000_000_000L;
    private static final int SPINS = 1024;
    private static final long PARK_NANOS = 10_000;

    private Withdrawal() {
    }

    /**
     * Waits until no Endpoint of {@code ia} holds a Write's placement or a Read's source through {@code context}.
     * The caller has removed the context from the memory table (volatile) before.
     */
    static void await(CoreIa ia, int context) {
        if (context == 0) {
            return;
        }
        for (CoreEp ep : ia.endpoints()) {
            if (holds(ep, context)) {
                drain(ep, context);
            }
        }
    }

    private static boolean holds(CoreEp ep, int context) {
        return ep.placing() == context || ep.sourcing() == context;
    }

    private static void drain(CoreEp ep, int context) {
        long deadline = 0;
        int spins = 0;
        while (holds(ep, context)) {
            if (++spins < SPINS) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + DRAIN_NANOS;
            } else if (now - deadline > 0) {
                // a transport fault (a copy that does not end): the connection ends; not on this thread, which
                // may hold another EP's posting lock (an RMR bind)
                Timers.execute(ep::broken);
                return;
            }
            LockSupport.parkNanos(PARK_NANOS);
        }
    }
}
