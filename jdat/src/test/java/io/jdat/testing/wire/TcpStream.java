package io.jdat.testing.wire;

import java.util.List;
import java.util.Objects;

/**
 * One TCP connection of a capture, reassembled: the bytes each side sent, in sequence order, without
 * retransmitted duplicates.
 *
 * <p>The client is the sender of the SYN; when the capture has no SYN, the receiver of the SYN+ACK; when it has
 * neither, the sender of the connection's first captured segment.
 */
public final class TcpStream {
    private final TcpEndpoint client;
    private final TcpEndpoint server;
    private final boolean handshakeSeen;
    private final List<TcpSegment> segments;
    private final byte[] clientToServer;
    private final byte[] serverToClient;
    private final boolean hole;

    TcpStream(TcpEndpoint client, TcpEndpoint server, boolean handshakeSeen, List<TcpSegment> segments,
            byte[] clientToServer, byte[] serverToClient, boolean hole) {
        this.client = Objects.requireNonNull(client);
        this.server = Objects.requireNonNull(server);
        this.handshakeSeen = handshakeSeen;
        this.segments = List.copyOf(segments);
        this.clientToServer = clientToServer;
        this.serverToClient = serverToClient;
        this.hole = hole;
    }

    /**
     * The active side of the connection.
     *
     * @return the client endpoint
     */
    public TcpEndpoint client() {
        return client;
    }

    /**
     * The passive side of the connection.
     *
     * @return the server endpoint
     */
    public TcpEndpoint server() {
        return server;
    }

    /**
     * Whether the capture holds the SYN or SYN+ACK that decided {@link #client()}.
     *
     * @return false when the client was guessed from the first captured segment
     */
    public boolean handshakeSeen() {
        return handshakeSeen;
    }

    /**
     * Every captured segment of this connection, both directions, in capture order.
     *
     * @return an unmodifiable list
     */
    public List<TcpSegment> segments() {
        return segments;
    }

    /**
     * The bytes the client sent, in sequence order.
     *
     * @return a fresh copy
     */
    public byte[] clientToServer() {
        return clientToServer.clone();
    }

    /**
     * The bytes the server sent, in sequence order.
     *
     * @return a fresh copy
     */
    public byte[] serverToClient() {
        return serverToClient.clone();
    }

    /**
     * Whether a direction stopped early because some of its bytes were not captured (a hole in the sequence
     * space, or a frame cut by the snapshot length); the bytes before the hole are still returned.
     *
     * @return true when at least one direction is incomplete
     */
    public boolean hasHole() {
        return hole;
    }

    /**
     * A one-line summary such as {@code 10.9.0.2:45946 -> 10.9.0.1:7174 (352/456 bytes, 26 segments)}.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        return client + " -> " + server + " (" + clientToServer.length + "/" + serverToClient.length + " bytes, "
                + segments.size() + " segments" + (hole ? ", HOLE" : "") + ")";
    }
}
