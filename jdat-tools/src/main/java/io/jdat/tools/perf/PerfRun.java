package io.jdat.tools.perf;

import io.jdat.DatException;
import io.jdat.tools.cli.Aborted;
import io.jdat.tools.cli.ToolFailure;
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
     * The measurements of a run, in table order: of the selected operations ({@code --op}) and tests
     * ({@code --test}), send/recv, RDMA write and RDMA read latency for every size, then the RDMA write,
     * RDMA read and send streams for every bandwidth size.
     *
     * @param c the settings
     * @return the plan
     */
    static List<Measurement> plan(PerfConfig c) {
        List<Measurement> plan = new ArrayList<>();
        if (c.latency()) {
            for (PerfOp op : c.ops()) {
                for (long size : c.sizes()) {
                    plan.add(switch (op) {
                        case SEND -> new SendPingPong(size);
                        case RDMA_WRITE -> new WritePingPong(size);
                        case RDMA_READ -> new ReadLatency(size);
                    });
                }
            }
        }
        if (c.bandwidth()) {
            for (Stream.Kind k : Stream.Kind.values()) {
                if (c.ops().contains(k.op())) {
                    for (long size : c.bwSizes()) {
                        plan.add(new Stream(k, size));
                    }
                }
            }
        }
        return plan;
    }

    /**
     * Runs everything.
     *
     * @param config the settings
     * @param table  where the client prints
     * @throws DatException   from a DAT call on either side
     * @throws ToolFailure    on wrong data, an unexpected event or a timeout
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
        run(config, table, plan, -1, -1);
    }

    /**
     * Runs the given measurements, each side's thread pinned to a CPU once connected ({@code --cpu S,C}).
     *
     * @param config    the settings
     * @param table     where the client prints
     * @param plan      the measurements, in order
     * @param serverCpu the server thread's CPU, or -1 to leave it unpinned
     * @param clientCpu the client thread's CPU, or -1 to leave it unpinned
     */
    static void run(PerfConfig config, ResultTable table, List<Measurement> plan, int serverCpu, int clientCpu) {
        Sync sync = new Sync();
        BufferLayout layout = BufferLayout.of(config);
        ServerFlow server = new ServerFlow(config, layout, plan, sync, serverCpu);
        ClientFlow client = new ClientFlow(config, layout, plan, sync, table, clientCpu);
        Thread st = start("jdat-perf-server", server, sync);
        Thread ct = start("jdat-perf-client", client, sync);
        try {
            join(st);
            join(ct);
            table.stopProgress();
            if (sync.failure() == null && client.side != null && server.side != null) {
                table.counters(client.side, server.side);
                table.end();
            }
        } finally {
            table.stopProgress();
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

    /**
     * The server of a two-process run: accepts the client's control connection on {@code connQual}, takes its
     * settings, serves the measured connection on {@code connQual + 1}, and returns when the client
     * disconnected.
     *
     * @param iaName         this side's IA
     * @param connQual       the control qualifier
     * @param timeoutSeconds the wait limit before the settings arrive
     * @param acceptSeconds  how long to wait for a client (0: forever)
     * @param listening      called once the control qualifier listens
     * @return the settings the client sent
     */
    static PerfConfig runServer(String iaName, long connQual, int timeoutSeconds, int acceptSeconds,
            java.util.function.Consumer<java.net.SocketAddress> listening) {
        return runServer(iaName, connQual, timeoutSeconds, acceptSeconds, -1, listening);
    }

    /**
     * The server of a two-process run, its measuring thread (the caller) pinned to {@code cpu} once the measured
     * connection is up ({@code --cpu}).
     *
     * @param iaName         this side's IA
     * @param connQual       the control qualifier
     * @param timeoutSeconds the wait limit before the settings arrive
     * @param acceptSeconds  how long to wait for a client (0: forever)
     * @param cpu            the CPU, or -1 to leave the thread unpinned
     * @param listening      called once the control qualifier listens
     * @return the settings the client sent
     */
    static PerfConfig runServer(String iaName, long connQual, int timeoutSeconds, int acceptSeconds, int cpu,
            java.util.function.Consumer<java.net.SocketAddress> listening) {
        PerfControl control = PerfControl.acceptAfter(iaName, connQual, timeoutSeconds, acceptSeconds, listening);
        try (control) {
            PerfConfig config = control.receiveConfig(iaName, connQual + 1);
            Sync sync = new Sync(control);
            control.watch(sync);
            ServerFlow server = new ServerFlow(config, BufferLayout.of(config), plan(config), sync, cpu);
            try {
                server.run();
                control.await("end");
            } catch (RuntimeException f) {
                throw cause(sync, f);
            } finally {
                close(server.side);
            }
            return config;
        }
    }

    /**
     * The client of a two-process run: connects the control connection to {@code server} on
     * {@code config.connQual()}, sends the settings, measures over a second connection on the next
     * qualifier, and prints the table.
     *
     * @param config the settings ({@code connQual}: the server's control qualifier)
     * @param server the server's IA address
     * @param table  where the results go
     */
    static void runClient(PerfConfig config, java.net.SocketAddress server, ResultTable table) {
        runClient(config, server, table, -1);
    }

    /**
     * The client of a two-process run, its measuring thread (the caller) pinned to {@code cpu} once connected
     * ({@code --cpu}).
     *
     * @param config the settings ({@code connQual}: the server's control qualifier)
     * @param server the server's IA address
     * @param table  where the results go
     * @param cpu    the CPU, or -1 to leave the thread unpinned
     */
    static void runClient(PerfConfig config, java.net.SocketAddress server, ResultTable table, int cpu) {
        try (PerfControl control = PerfControl.connect(config.iaName(), server, config.connQual(),
                config.timeoutSeconds())) {
            control.sendConfig(config);
            PerfConfig data = config.withConnQual(config.connQual() + 1);
            Sync sync = new Sync(control);
            sync.knownServerAddress(server);
            control.watch(sync);
            ClientFlow client = new ClientFlow(data, BufferLayout.of(data), plan(data), sync, table, cpu);
            try {
                client.run();
                control.await("end");
                table.stopProgress();
                if (client.side != null) {
                    table.counters(client.side, null);
                }
                table.end();
            } catch (RuntimeException f) {
                throw cause(sync, f);
            } finally {
                table.stopProgress();
                close(client.side);
            }
        }
    }

    /**
     * What stopped this side of a two-process run, for the user: {@code f} itself when it is a cause; when it only
     * follows from the peer's end (a flushed completion, or the {@link Aborted} that unwound a wait), the
     * failure {@link Sync} recorded, which says that the peer process went away; the watcher of the control
     * connection may take a moment longer to see that than this side took to see its connection break.
     */
    private static RuntimeException cause(Sync sync, RuntimeException f) {
        boolean consequence = f instanceof Aborted || f instanceof ToolFailure p && p.isConsequence();
        if (!consequence) {
            return f;
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        for (;;) {
            Throwable s = sync.failure();
            if (s instanceof RuntimeException r && s != f && !(s instanceof Aborted)
                    && !(s instanceof ToolFailure p && p.isConsequence())) {
                return r;
            }
            if (System.nanoTime() - deadline >= 0) {
                return s instanceof RuntimeException r && !(s instanceof Aborted) ? r : f;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return f;
            }
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
            throw new ToolFailure("interrupted");
        }
    }

    private static void close(PerfSide side) {
        if (side != null) {
            side.close();
        }
    }
}
