package io.jdat.tools;

import io.jdat.DatException;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code jdat perf} run in this JVM: starts the server and the client thread, waits for both, always
 * closes both sides' IAs, and rethrows the first failure.
 */
final class PerfRun {
    private PerfRun() {
    }

    /**
     * The measurements of a run, in table order: send/recv, RDMA write and RDMA read latency for every size,
     * then the RDMA write, RDMA read and send streams.
     *
     * @param c the settings
     * @return the plan
     */
    static List<Measurement> plan(PerfConfig c) {
        List<Measurement> plan = new ArrayList<>();
        for (long size : c.sizes()) {
            plan.add(new SendPingPong(size));
        }
        for (long size : c.sizes()) {
            plan.add(new WritePingPong(size));
        }
        for (long size : c.sizes()) {
            plan.add(new ReadLatency(size));
        }
        for (Stream.Kind k : Stream.Kind.values()) {
            plan.add(new Stream(k, c.bwSize()));
        }
        return plan;
    }

    /**
     * Runs everything.
     *
     * @param config the settings
     * @param table  where the client prints
     * @throws DatException   from a DAT call on either side
     * @throws PerfFailure    on wrong data, an unexpected event or a timeout
     */
    static void run(PerfConfig config, ResultTable table) {
        run(config, table, plan(config));
    }

    /**
     * Runs the given measurements (tests inject faulty ones here).
     *
     * @param config the settings
     * @param table  where the client prints
     * @param plan   the measurements, in order
     */
    static void run(PerfConfig config, ResultTable table, List<Measurement> plan) {
        Sync sync = new Sync();
        BufferLayout layout = BufferLayout.of(config);
        ServerFlow server = new ServerFlow(config, layout, plan, sync);
        ClientFlow client = new ClientFlow(config, layout, plan, sync, table);
        Thread st = start("jdat-perf-server", server, sync);
        Thread ct = start("jdat-perf-client", client, sync);
        try {
            join(st);
            join(ct);
            if (sync.failure() == null && client.side != null && server.side != null) {
                table.counters(client.side, server.side);
                table.end();
            }
        } finally {
            close(client.side);
            close(server.side);
        }
        Throwable f = sync.failure();
        if (f instanceof RuntimeException r) {
            throw r;
        }
        if (f instanceof Error e) {
            throw e;
        }
    }

    private static Thread start(String name, Runnable flow, Sync sync) {
        Thread t = new Thread(() -> {
            try {
                flow.run();
            } catch (Throwable e) {
                sync.fail(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfFailure("interrupted");
        }
    }

    private static void close(PerfSide side) {
        if (side != null) {
            side.close();
        }
    }
}
