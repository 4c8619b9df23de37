package io.jdat.tools.tx;

import java.lang.foreign.MemorySegment;

/** Test hooks of {@code jdat tx}: unit tests corrupt data here to see that validation finds it. */
interface TxHooks {
    /** No hooks. */
    TxHooks NONE = new TxHooks() {
    };

    /**
     * Called after a side filled the buffer an operation takes its data from (a Send's or RDMA Write's
     * source on the poster, an RDMA Read's source on the peer), before the peer may use it.
     *
     * @param ep        the endpoint
     * @param iteration the iteration
     * @param op        the op index
     * @param buffer    the buffer (segments {@code stride} apart, or contiguous for an RDMA Read source)
     */
    default void sourceFilled(TxEndpoint ep, long iteration, int op, MemorySegment buffer) {
    }

    /** Where data errors go. */
    interface Errors {
        /**
         * Reports wrong data.
         *
         * @param message what was wrong, where
         */
        void dataError(String message);
    }
}
