package io.jdat.testing.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The forwarding loop of one direction of one {@link ProxiedConnection}: reads from the source leg and writes
 * to the destination leg as the proxy's {@link Faults} currently say. Any I/O error aborts the whole
 * connection (so a reset on one leg reaches the other as a reset).
 */
final class Pump implements Runnable {
    private static final int READ_SIZE = 64 * 1024;

    private final ProxiedConnection connection;
    private final Direction direction;
    private final Faults faults;
    private byte[] buffer = new byte[READ_SIZE];
    /** Offset, in this direction's stream, of the next byte to write. */
    private long streamOffset;
    /** Set when a coalescing read met end of stream after gathering some bytes. */
    private boolean endAfterChunk;

    Pump(ProxiedConnection connection, Direction direction, Faults faults) {
        this.connection = connection;
        this.direction = direction;
        this.faults = faults;
    }

    @Override
    public void run() {
        Socket source = connection.source(direction);
        try {
            InputStream in = source.getInputStream();
            OutputStream out = connection.destination(direction).getOutputStream();
            while (faults.awaitFlowing(direction, connection)) {
                Faults.Plan plan = faults.plan(direction);
                int n = plan.delivery() == Faults.Delivery.COALESCE
                        ? readCoalesced(source, in, plan)
                        : in.read(buffer, 0, buffer.length);
                if (n < 0) {
                    connection.endOfStream(direction);
                    return;
                }
                if (!deliver(out, n)) {
                    return;
                }
                if (endAfterChunk) {
                    connection.endOfStream(direction);
                    return;
                }
            }
        } catch (IOException e) {
            connection.abort();
        }
    }

    /**
     * Reads up to {@code plan.coalesceLimit()} bytes: blocks for the first, then keeps reading until the limit,
     * end of stream, or a silence of {@code plan.pauseMillis()}.
     */
    private int readCoalesced(Socket source, InputStream in, Faults.Plan plan) throws IOException {
        int limit = plan.coalesceLimit();
        if (buffer.length < limit) {
            buffer = new byte[limit];
        }
        int n = in.read(buffer, 0, limit);
        if (n < 0) {
            return n;
        }
        source.setSoTimeout(plan.pauseMillis());
        try {
            while (n < limit) {
                int r = in.read(buffer, n, limit - n);
                if (r < 0) {
                    endAfterChunk = true;
                    break;
                }
                n += r;
            }
        } catch (SocketTimeoutException pause) {
            // the source paused: deliver what has been gathered
        } finally {
            source.setSoTimeout(0);
        }
        return n;
    }

    /**
     * Writes {@code buffer[0, n)} piece by piece (one byte per piece when byte-by-byte), re-checking stall,
     * plan, reset budget and corruption before every piece. Returns false if the connection closed or was reset.
     */
    private boolean deliver(OutputStream out, int n) throws IOException {
        int off = 0;
        while (off < n) {
            if (!faults.awaitFlowing(direction, connection)) {
                return false;
            }
            int piece = faults.plan(direction).delivery() == Faults.Delivery.BYTE_BY_BYTE ? 1 : n - off;
            Faults.Grant grant = faults.claim(direction, streamOffset, buffer, off, piece);
            if (grant.bytes() > 0) {
                out.write(buffer, off, grant.bytes());
                out.flush();
                streamOffset += grant.bytes();
                off += grant.bytes();
                faults.recordWrite(direction, grant.bytes());
            }
            if (grant.reset()) {
                connection.abort();
                return false;
            }
        }
        return true;
    }
}
