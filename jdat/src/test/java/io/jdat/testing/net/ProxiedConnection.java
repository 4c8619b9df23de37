package io.jdat.testing.net;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One client connection a {@link FaultProxy} forwards: the accepted client leg and the leg it opened to the
 * target, closed either gracefully (both directions reached end of stream) or abortively with a TCP RST.
 */
final class ProxiedConnection {
    private final Socket client;
    private final Socket server;
    private final Faults faults;
    private final Consumer<ProxiedConnection> onClosed;
    private final AtomicInteger openDirections = new AtomicInteger(Direction.values().length);
    private volatile boolean closed;

    /**
     * @param client the accepted client leg
     * @param server the connected leg to the target
     * @param faults the proxy's faults, woken when this connection closes
     * @param onClosed called once, with this connection, when it closes
     */
    ProxiedConnection(Socket client, Socket server, Faults faults, Consumer<ProxiedConnection> onClosed) {
        this.client = client;
        this.server = server;
        this.faults = faults;
        this.onClosed = onClosed;
    }

    /** The socket bytes flowing in direction {@code d} are read from. */
    Socket source(Direction d) {
        return d == Direction.CLIENT_TO_SERVER ? client : server;
    }

    /** The socket bytes flowing in direction {@code d} are written to. */
    Socket destination(Direction d) {
        return d == Direction.CLIENT_TO_SERVER ? server : client;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Direction {@code d} reached end of stream: passes the FIN on (half-close) and, once both directions
     * have, closes both legs normally.
     */
    void endOfStream(Direction d) {
        try {
            destination(d).shutdownOutput();
        } catch (IOException e) {
            abort();
            return;
        }
        if (openDirections.decrementAndGet() == 0) {
            finish(false);
        }
    }

    /** Aborts both legs with a TCP RST (SO_LINGER 0, then close). Idempotent. */
    void abort() {
        finish(true);
    }

    private void finish(boolean reset) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        close(client, reset);
        close(server, reset);
        faults.signalAll();
        onClosed.accept(this);
    }

    /** Closes {@code s}, first setting SO_LINGER 0 if {@code reset} so the close sends a RST. */
    static void close(Socket s, boolean reset) {
        try {
            if (reset && !s.isClosed()) {
                s.setSoLinger(true, 0);
            }
        } catch (IOException ignored) {
            // the socket is unusable already; closing it is all that is left
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }
}
