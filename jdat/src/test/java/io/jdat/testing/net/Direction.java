package io.jdat.testing.net;

/** One direction of the byte streams a {@link FaultProxy} forwards. */
public enum Direction {
    /** Bytes the client sends, forwarded to the server (the proxy's target). */
    CLIENT_TO_SERVER,
    /** Bytes the server sends, forwarded back to the client. */
    SERVER_TO_CLIENT
}
