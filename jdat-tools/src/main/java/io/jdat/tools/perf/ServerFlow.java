package io.jdat.tools.perf;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.tools.cli.ToolFailure;
import java.util.List;

/**
 * The server thread of {@code jdat perf}: opens its side, listens on the connection qualifier, verifies the
 * client's private data and accepts with its own, runs the server part of every measurement, and waits for
 * the client's disconnect.
 */
final class ServerFlow implements Runnable {
    private final PerfConfig config;
    private final BufferLayout layout;
    private final List<Measurement> plan;
    private final Sync sync;
    /** The CPU this thread pins itself to once connected ({@code --cpu}), or -1. */
    private final int cpu;
    /** The side, once opened; closed by {@link PerfRun} after the thread ended. */
    volatile PerfSide side;

    ServerFlow(PerfConfig config, BufferLayout layout, List<Measurement> plan, Sync sync, int cpu) {
        this.cpu = cpu;
        this.config = config;
        this.layout = layout;
        this.plan = plan;
        this.sync = sync;
    }

    @Override
    public void run() {
        PerfSide me = new PerfSide("server", config, layout);
        side = me;
        PerfSession s = new PerfSession(config, me, layout, sync);
        PublicServicePoint psp = PublicServicePoint.create(me.ia, config.connQual(), me.crEvd, PspFlags.CONSUMER);
        sync.serverAddress(me.iaAttr.iaAddress());
        sync.await("listen");

        DatEvent ev = s.poller.next(me.crEvd, "connection request");
        if (ev.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
            throw new ToolFailure("server: expected a connection request, got " + ev.eventNumber());
        }
        ConnectionRequest cr = ev.cr();
        PeerInfo client;
        try {
            client = PeerInfo.decode(cr.query(CrParam.FIELD_ALL).privateData(), PeerInfo.CLIENT, layout.total(),
                    "server: connection request");
        } catch (ToolFailure f) {
            cr.reject();
            throw f;
        }
        cr.accept(me.ep, PeerInfo.SIZE, PeerInfo.of(PeerInfo.SERVER, me.lmr).encode());
        expect(s, EventNumber.CONNECTION_EVENT_ESTABLISHED, "connection");
        psp.free();
        s.peer(client);
        if (cpu >= 0) {
            CpuAffinity.pin(cpu); // after the IA's own threads started: they keep every CPU
        }

        for (Measurement m : plan) {
            s.checkIdle(m.operation());
            m.server(s);
        }
        sync.await("disconnect");
        expect(s, EventNumber.CONNECTION_EVENT_DISCONNECTED, "disconnect");
    }

    private static void expect(PerfSession s, EventNumber n, String what) {
        DatEvent ev = s.poller.next(s.side.connEvd, what);
        if (ev.eventNumber() != n) {
            throw new ToolFailure("server: " + what + ": expected " + n + ", got " + ev.eventNumber());
        }
    }
}
