package io.jdat.tools.tx;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.Qos;
import io.jdat.tools.cli.PeerAddress;
import io.jdat.tools.cli.ToolFailure;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The client side of {@code jdat tx}: {@code threads} threads, each connecting {@code eps} endpoints to
 * the server, sending CONFIG and taking INFO on each, running the iterations ({@link TxWorker}) and
 * disconnecting gracefully.
 */
final class TxClient implements AutoCloseable {
    final TxSide side;
    private final TxConfig config;
    private final SocketAddress server;
    private final TxAbort abort;
    private final TxHooks hooks;
    final TxResult result;

    /**
     * Opens the client's IA.
     *
     * @param config the run
     * @param server the server's IA address
     * @param abort  the process's abort flag
     * @param hooks  test hooks
     */
    TxClient(TxConfig config, SocketAddress server, TxAbort abort, TxHooks hooks) {
        this.config = config;
        this.server = server;
        this.abort = abort;
        this.hooks = hooks;
        side = new TxSide("client", config.iaName());
        try {
            side.checkLimits(config);
        } catch (RuntimeException e) {
            side.close();
            throw e;
        }
        result = new TxResult(config);
        result.provider = TxServer.provider(side);
        result.address = PeerAddress.display(server) + " qualifier " + config.connQual();
    }

    /** Runs every thread to its end; failures go to the abort flag. */
    void run() {
        long t0 = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < config.threads(); t++) {
            int thread = t;
            Thread th = new Thread(() -> {
                try {
                    runThread(thread);
                } catch (Throwable f) {
                    abort.fail(f);
                }
            }, "jdat-test-client-" + t);
            th.setDaemon(true);
            th.start();
            threads.add(th);
        }
        TxRun.joinAll(threads);
        result.elapsedNanos = System.nanoTime() - t0;
    }

    private void runThread(int thread) {
        List<TxEndpoint> eps = new ArrayList<>();
        int timeoutMicros = (int) Math.min(config.timeoutSeconds() * 1_000_000L, Integer.MAX_VALUE);
        for (int i = 0; i < config.eps(); i++) {
            TxEndpoint e = new TxEndpoint(side, thread, i, config.ops().size(), config.poll(), config.timeoutSeconds(),
                    abort);
            e.configure(config);
            e.errors(result);
            eps.add(e);
            e.postMsgRecv(0);
            byte[] pd = new TxWire.Hello(thread, i, config.threads(), config.eps(), config.runId()).encode();
            e.ep.connect(server, config.connQual(), timeoutMicros, pd.length, pd, Qos.BEST_EFFORT,
                    ConnectFlags.DEFAULT);
        }
        for (TxEndpoint e : eps) {
            DatEvent ev = e.next(e.connEvd, "connection");
            if (ev.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                throw new ToolFailure("connecting to " + PeerAddress.display(server) + " qualifier " + config.connQual() + " failed: "
                        + ev.eventNumber().datName() + hint(ev.eventNumber()));
            }
            TxWire.checkWelcome(ev.privateData(), e.name);
            e.postFirstReadyRecv();
            e.sendConfig();
        }
        for (TxEndpoint e : eps) {
            e.awaitInfo();
        }
        TxWorker.run(eps, hooks, result);
        for (TxEndpoint e : eps) {
            e.ep.disconnect(CloseFlags.GRACEFUL);
        }
        for (TxEndpoint e : eps) {
            e.awaitConnection(EventNumber.CONNECTION_EVENT_DISCONNECTED, "disconnect");
        }
    }

    private static String hint(EventNumber n) {
        return switch (n) {
            case CONNECTION_EVENT_NON_PEER_REJECTED, CONNECTION_EVENT_UNREACHABLE, CONNECTION_EVENT_TIMED_OUT ->
                " (is 'jdat tx --server' running there, on that qualifier?)";
            case CONNECTION_EVENT_PEER_REJECTED -> " (the server is busy with another run, or runs another version)";
            default -> "";
        };
    }

    /** Closes the IA abruptly. */
    @Override
    public void close() {
        side.close();
    }
}
