package io.jdat.tools.tx;

/**
 * What one endpoint of one side validated: executions per operation (each execution is validated once, by
 * the side that ends up holding the data: the receiver of a Send, the target of an RDMA Write, the poster
 * of an RDMA Read) and data errors. Written by one thread.
 */
final class TxStats {
    /** Validated executions, by op index. */
    final long[] validated;
    /** Executions whose data was wrong, by op index. */
    final long[] wrong;
    /** Executions whose data was wrong. */
    long errors;

    TxStats(int ops) {
        validated = new long[ops];
        wrong = new long[ops];
    }

    /** Adds another's counts. */
    void add(TxStats o) {
        for (int i = 0; i < validated.length; i++) {
            validated[i] += o.validated[i];
            wrong[i] += o.wrong[i];
        }
        errors += o.errors;
    }
}
