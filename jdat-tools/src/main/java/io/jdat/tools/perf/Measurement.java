package io.jdat.tools.perf;

/**
 * One row of {@code jdat perf}: the server's and the client's part of one test. Both parts run at the same
 * time on their own threads and meet at {@link Sync} barriers; the client measures.
 */
interface Measurement {
    /** The operation column, e.g. {@code "RDMA write ping-pong"}. */
    String operation();

    /** The size column: bytes per transfer. */
    long size();

    /**
     * The server's part.
     *
     * @param s the server's session
     */
    void server(PerfSession s);

    /**
     * The client's part.
     *
     * @param s the client's session
     * @return the measured row
     */
    PerfResult client(PerfSession s);
}
