package io.jdat.tools.perf;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.Qos;
import io.jdat.tools.cli.ToolFailure;
import java.util.List;

/**
 * The client thread of {@code jdat perf}: opens its side, connects with its private data, verifies the
 * server's private data from the ESTABLISHED event, runs the client part of every measurement (printing
 * each row as it completes), and disconnects gracefully.
 */
final class ClientFlow implements Runnable {
    private final PerfConfig config;
    private final BufferLayout layout;
    private final List<Measurement> plan;
    private final Sync sync;
    /** The CPU this thread pins itself to once connected ({@code --cpu}), or -1. */
    private final int cpu;
    private final ResultTable table;
    /** The side, once opened; closed by {@link PerfRun} after the thread ended. */
    volatile PerfSide side;

    ClientFlow(PerfConfig config, BufferLayout layout, List<Measurement> plan, Sync sync, ResultTable table,
            int cpu) {
        this.cpu = cpu;
        this.config = config;
        this.layout = layout;
        this.plan = plan;
        this.sync = sync;
        this.table = table;
    }

    @Override
    public void run() {
        PerfSide me = new PerfSide("client", config, layout);
        side = me;
        PerfSession s = new PerfSession(config, me, layout, sync);
        sync.await("listen");

        byte[] pd = PeerInfo.of(PeerInfo.CLIENT, me.lmr).encode();
        int timeoutMicros = (int) Math.min(config.timeoutSeconds() * 1_000_000L, Integer.MAX_VALUE);
        me.ep.connect(sync.serverAddress(), config.connQual(), timeoutMicros, pd.length, pd, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT);
        DatEvent ev = s.poller.next(me.connEvd, "connection");
        if (ev.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            throw new ToolFailure("client: connecting to " + sync.serverAddress() + " qualifier " + config.connQual()
                    + " failed: " + ev.eventNumber());
        }
        s.peer(PeerInfo.decode(ev.privateData(), PeerInfo.SERVER, layout.total(), "client: connection established"));
        if (cpu >= 0) {
            CpuAffinity.pin(cpu); // after the IA's own threads started: they keep every CPU
        }
        table.header(me, sync.serverAddress());

        for (int i = 0; i < plan.size(); i++) {
            Measurement m = plan.get(i);
            s.checkIdle(m.operation());
            table.starting(i, plan.size(), m);
            table.row(m.client(s));
        }
        sync.await("disconnect");
        me.ep.disconnect(CloseFlags.GRACEFUL);
        ev = s.poller.next(me.connEvd, "disconnect");
        if (ev.eventNumber() != EventNumber.CONNECTION_EVENT_DISCONNECTED) {
            throw new ToolFailure("client: disconnect: expected DISCONNECTED, got " + ev.eventNumber());
        }
        table.footer();
    }
}
