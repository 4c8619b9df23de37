package io.jdat.testing.wire;

import java.time.Instant;
import java.util.Objects;

/**
 * One captured TCP segment.
 *
 * @param frame the 1-based number of the capture record that carried it (the same numbering tshark uses)
 * @param time the capture time stamp
 * @param source the sender
 * @param destination the receiver
 * @param seq the sequence number, 0 to 2^32 - 1
 * @param ack the acknowledgement number, 0 to 2^32 - 1 (meaningful only with the ACK flag)
 * @param flags the TCP flag bits of byte 13 of the header ({@link #FIN}, {@link #SYN}, ...)
 * @param payloadLength the payload length the IP header announces; more than {@code payload.length} when the
 *     capture's snapshot length cut the frame
 * @param payload the captured payload bytes (not copied: do not modify)
 */
public record TcpSegment(int frame, Instant time, TcpEndpoint source, TcpEndpoint destination, long seq, long ack,
        int flags, int payloadLength, byte[] payload) {
    /** FIN flag bit. */
    public static final int FIN = 0x01;
    /** SYN flag bit. */
    public static final int SYN = 0x02;
    /** RST flag bit. */
    public static final int RST = 0x04;
    /** PSH flag bit. */
    public static final int PSH = 0x08;
    /** ACK flag bit. */
    public static final int ACK = 0x10;

    /**
     * Checks the fields.
     *
     * @throws NullPointerException if an object field is null
     * @throws IllegalArgumentException if {@code payload} is longer than {@code payloadLength}
     */
    public TcpSegment {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(payload, "payload");
        if (payload.length > payloadLength) {
            throw new IllegalArgumentException("captured " + payload.length + " > announced " + payloadLength);
        }
    }

    /**
     * Whether the SYN flag is set.
     *
     * @return true for a SYN or SYN+ACK
     */
    public boolean syn() {
        return (flags & SYN) != 0;
    }

    /**
     * Whether the FIN flag is set.
     *
     * @return true for a FIN
     */
    public boolean fin() {
        return (flags & FIN) != 0;
    }

    /**
     * Whether the RST flag is set.
     *
     * @return true for a reset
     */
    public boolean rst() {
        return (flags & RST) != 0;
    }

    /**
     * Whether the ACK flag is set.
     *
     * @return true when {@link #ack()} is meaningful
     */
    public boolean hasAck() {
        return (flags & ACK) != 0;
    }

    /**
     * Whether the capture cut this segment's payload short.
     *
     * @return true when fewer payload bytes were captured than sent
     */
    public boolean truncated() {
        return payload.length < payloadLength;
    }

    /**
     * A one-line summary such as {@code #4 10.9.0.2:45946 > 10.9.0.1:7174 [PSH,ACK] seq=1 len=24}.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        StringBuilder f = new StringBuilder();
        String[] names = {"FIN", "SYN", "RST", "PSH", "ACK"};
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                f.append(f.isEmpty() ? "" : ",").append(names[i]);
            }
        }
        return "#" + frame + " " + source + " > " + destination + " [" + f + "] seq=" + seq + " len=" + payloadLength;
    }
}
