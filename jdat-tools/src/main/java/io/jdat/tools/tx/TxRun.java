package io.jdat.tools.tx;

import io.jdat.tools.cli.Aborted;
import io.jdat.tools.cli.ToolFailure;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.util.List;

/**
 * The three ways to run {@code jdat tx}: both sides in this JVM, the server only, the client only. Each
 * returns the result of its side (in one JVM: the client's, which holds both sides' counts); a fatal
 * failure is in the result, not thrown, so the summary still shows what was done. The IAs are always
 * closed.
 */
final class TxRun {
    private TxRun() {
    }

    /**
     * Both sides in this JVM: a server on {@code config.iaName()} and a client connecting to its address.
     *
     * @param config the run
     * @param hooks  test hooks
     * @return the result
     * @throws io.jdat.DatException when an IA cannot be opened or the service point created
     */
    static TxResult oneProcess(TxConfig config, TxHooks hooks) {
        TxAbort abort = new TxAbort();
        try (TxServer server = new TxServer(config.iaName(), config.connQual(), config.poll(), config.timeoutSeconds(),
                abort, hooks, null)) {
            Thread st = new Thread(() -> {
                try {
                    server.serve(0);
                } catch (Throwable f) {
                    abort.fail(f);
                }
            }, "jdat-test-server");
            st.setDaemon(true);
            st.start();
            TxResult r;
            try (TxClient client = new TxClient(config, server.address(), abort, hooks)) {
                client.run();
                r = client.result;
                r.counts("client IA", client.side.ia.counters());
            } catch (RuntimeException | Error e) {
                abort.fail(e);
                throw e;
            } finally {
                joinServer(st, config.timeoutSeconds(), abort);
            }
            if (!abort.aborted()) {
                r.counts("server IA", server.side.ia.counters());
            }
            TxResult sr = server.result();
            if (sr != null && r.peerMissing()) {
                r.peerCounts(sr.local);
            }
            if (sr != null) {
                for (String m : sr.messages()) {
                    r.dataError(m);
                }
            }
            finish(r, abort);
            return r;
        }
    }

    /**
     * The server side: serves one run.
     *
     * @param iaName         the IA
     * @param connQual       the qualifier to listen on
     * @param poll           busy-poll
     * @param timeoutSeconds the wait limit once a client connected
     * @param acceptSeconds  how long to wait for a client (0: forever)
     * @param log            where the server notes go
     * @param listening      called with the address once listening
     * @return the server's result
     */
    static TxResult server(String iaName, long connQual, boolean poll, int timeoutSeconds, int acceptSeconds,
            PrintWriter log, java.util.function.Consumer<SocketAddress> listening) {
        TxAbort abort = new TxAbort();
        try (TxServer server = new TxServer(iaName, connQual, poll, timeoutSeconds, abort, TxHooks.NONE, log)) {
            listening.accept(server.address());
            TxResult r;
            try {
                r = server.serve(acceptSeconds);
                r.counts("server IA", server.side.ia.counters());
            } catch (RuntimeException | Error e) {
                abort.fail(e);
                r = server.result();
                if (r == null) {
                    throw e;
                }
            }
            finish(r, abort);
            return r;
        }
    }

    /**
     * The client side, connecting to a server in another process.
     *
     * @param config the run
     * @param server the server's IA address
     * @return the client's result
     */
    static TxResult client(TxConfig config, SocketAddress server) {
        TxAbort abort = new TxAbort();
        try (TxClient client = new TxClient(config, server, abort, TxHooks.NONE)) {
            client.run();
            client.result.counts("client IA", client.side.ia.counters());
            finish(client.result, abort);
            return client.result;
        }
    }

    private static void finish(TxResult r, TxAbort abort) {
        Throwable f = abort.failure();
        if (f != null && !(f instanceof Aborted)) {
            r.fatal(f);
        }
    }

    /** Waits for the in-process server to see the disconnects; aborts it when it does not end in time. */
    private static void joinServer(Thread st, int timeoutSeconds, TxAbort abort) {
        try {
            st.join(timeoutSeconds * 1000L + 1000);
            if (st.isAlive()) {
                abort.fail(new ToolFailure("server: did not finish within " + timeoutSeconds + " s after the client"));
                st.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted");
        }
    }

    /** Joins threads, passing an interrupt on. */
    static void joinAll(List<Thread> threads) {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolFailure("interrupted");
            }
        }
    }
}
