package io.jdat.tools.perf;

/**
 * The CPU time a measurement's measured rounds cost, for the {@code cpu_us_per_msg} column: this process's
 * (every thread: the measuring thread, the DAT library's progress threads and, in one JVM, the server thread),
 * plus, in a two-process run, the server process's, which the server sends with every round barrier
 * ({@link Sync#learn}). The client calls {@link #round} after each {@link Sync#decide}, the last one (the
 * measurement's end) included. The time of the barriers between measured rounds counts too.
 */
final class CpuMeter {
    private final Sync sync;
    private long own;
    private long peer;
    private boolean known = true;
    private boolean measuring;
    private long ownStart;
    private long peerStart;

    /**
     * Creates the meter of one measurement.
     *
     * @param sync the control plane (the server's CPU time arrives through it)
     */
    CpuMeter(Sync sync) {
        this.sync = sync;
    }

    /**
     * Ends the round before, if it was measured, and starts the next.
     *
     * @param measure whether the next round is measured (false at the end)
     */
    void round(boolean measure) {
        // Read at every round, the warm-up's too: the first reading creates ProcessCpu's downcall (generated classes
        // and JIT work, which must not fall into the measured rounds).
        long now = ProcessCpu.nanos();
        long theirs = sync.peerCpuNanos();
        if (measuring) {
            if (now < 0 || ownStart < 0) {
                known = false;
            } else {
                own += now - ownStart;
            }
            if (sync.twoProcess()) {
                if (theirs < 0 || peerStart < 0) {
                    known = false;
                } else {
                    peer += theirs - peerStart;
                }
            }
        }
        measuring = measure;
        ownStart = now;
        peerStart = theirs;
    }

    /**
     * The CPU time of the measured rounds, both sides.
     *
     * @return nanoseconds, or -1 when a side's time is unknown (e.g. a server of an older version)
     */
    long nanos() {
        return known ? own + peer : -1;
    }
}
