package io.jdat.tools.tx;

import io.jdat.tools.cli.Aborted;
import io.jdat.tools.cli.ToolFailure;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The first fatal failure of a {@code jdat tx} run in this process; every wait checks it, so one failing
 * thread stops the others at once instead of after their timeouts.
 */
final class TxAbort {
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean aborted;

    /** Records a failure (the first one that is not a mere consequence wins) and aborts the run. */
    void fail(Throwable t) {
        failure.accumulateAndGet(t, (cur, nu) -> cur == null || cur instanceof Aborted
                || consequence(cur) && !(nu instanceof Aborted) && !consequence(nu) ? nu : cur);
        aborted = true;
    }

    private static boolean consequence(Throwable t) {
        return t instanceof ToolFailure f && f.isConsequence();
    }

    /** The first failure, or {@code null}. */
    Throwable failure() {
        return failure.get();
    }

    /** Whether the run was aborted. */
    boolean aborted() {
        return aborted;
    }

    /** Throws {@link Aborted} when another thread failed. */
    void check() {
        if (aborted) {
            throw new Aborted();
        }
    }
}
