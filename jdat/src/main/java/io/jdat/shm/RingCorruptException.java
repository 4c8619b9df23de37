package io.jdat.shm;

/**
 * A ring's shared memory holds something its peer, if well behaved, cannot have written there: a record
 * header out of range, a misplaced padding record, or head and tail positions out of their invariant. The
 * side that sees it stops using the ring (every later call throws again); the transport breaks the
 * connection. Checked, because a hostile or crashed peer is an expected condition the caller must handle.
 */
public final class RingCorruptException extends Exception {
    private static final long serialVersionUID = 1L;

    RingCorruptException(String message) {
        super(message);
    }
}
