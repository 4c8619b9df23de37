package io.jdat.tools.session;

import io.jdat.DtoCounters;
import java.util.Locale;

/** How the tools print {@link DtoCounters} ({@code Endpoint.counters()}, {@code InterfaceAdapter.counters()}). */
public final class CounterFormat {
    private CounterFormat() {
    }

    /**
     * One line, every number labelled: totals, then requests and receives apart.
     *
     * @param c the counters
     * @return e.g. {@code posted 12, completed 12, flushed 0, failed 0, bytes 4,096; requests posted 6, completed
     *         6, flushed 0, failed 0; receives posted 6, completed 6, flushed 0, failed 0}
     */
    public static String line(DtoCounters c) {
        return String.format(Locale.ROOT, "posted %,d, completed %,d, flushed %,d, failed %,d, bytes %,d; "
                + "requests posted %,d, completed %,d, flushed %,d, failed %,d; "
                + "receives posted %,d, completed %,d, flushed %,d, failed %,d", c.posted(), c.completed(),
                c.flushed(), c.errors(), c.bytes(), c.requestsPosted(), c.requestsCompleted(), c.requestsFlushed(),
                c.requestErrors(), c.recvsPosted(), c.recvsCompleted(), c.recvsFlushed(), c.recvErrors());
    }

    /**
     * One JSON object with every field.
     *
     * @param c the counters
     * @return the object
     */
    public static String json(DtoCounters c) {
        return "{\"requests_posted\":" + c.requestsPosted() + ",\"requests_completed\":" + c.requestsCompleted()
                + ",\"requests_flushed\":" + c.requestsFlushed() + ",\"request_errors\":" + c.requestErrors()
                + ",\"request_bytes\":" + c.requestBytes() + ",\"recvs_posted\":" + c.recvsPosted()
                + ",\"recvs_completed\":" + c.recvsCompleted() + ",\"recvs_flushed\":" + c.recvsFlushed()
                + ",\"recv_errors\":" + c.recvErrors() + ",\"recv_bytes\":" + c.recvBytes() + "}";
    }
}
