package io.jdat.tools.tx;

import io.jdat.tools.cli.Sizes;
import java.util.Locale;
import picocli.CommandLine;

/**
 * One operation of a {@code jdat tx} op list, in the manner of dapltest's {@code client|server SR|RR|RW
 * [seg_size [num_segs]]}: who posts it, what it is, and the gather/scatter list of the posting side
 * ({@code segments} segments of {@code size} bytes each). On the command line:
 * {@code [client:|server:]KIND[:SEGSxSIZE]}, e.g. {@code send:3x4096}, {@code server:rdma-write:1x64K},
 * {@code rr:2048} (one segment); KIND is {@code send} ({@code sr}), {@code rdma-write} ({@code rw}) or
 * {@code rdma-read} ({@code rr}); the default poster is the client.
 *
 * @param byServer true when the server side posts the operation
 * @param kind     the operation
 * @param segments segments in the local I/O vector (1..{@value #MAX_SEGMENTS})
 * @param size     bytes per segment (1..{@value #MAX_SEGMENT_SIZE})
 */
record TxOp(boolean byServer, Kind kind, int segments, long size) {
    /** The largest segment count of one operation. */
    static final int MAX_SEGMENTS = 64;
    /** The largest segment size. */
    static final long MAX_SEGMENT_SIZE = 1L << 30;

    /** What an operation does. */
    enum Kind {
        /** {@code dat_ep_post_send} matched by a {@code dat_ep_post_recv} the peer posted. */
        SEND("send"),
        /** {@code dat_ep_post_rdma_write} into the peer's registered memory. */
        RDMA_WRITE("rdma-write"),
        /** {@code dat_ep_post_rdma_read} from the peer's registered memory. */
        RDMA_READ("rdma-read");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** Checks the ranges. */
    TxOp {
        if (segments < 1 || segments > MAX_SEGMENTS) {
            throw new IllegalArgumentException("segments " + segments + " outside 1.." + MAX_SEGMENTS);
        }
        if (size < 1 || size > MAX_SEGMENT_SIZE) {
            throw new IllegalArgumentException("segment size " + size + " outside 1.." + MAX_SEGMENT_SIZE);
        }
    }

    /** The bytes one execution moves. */
    long bytes() {
        return segments * size;
    }

    /**
     * Whether the given side posts this operation.
     *
     * @param server true for the server side
     * @return true when that side posts it
     */
    boolean postedBy(boolean server) {
        return byServer == server;
    }

    /** The operation as the command line writes it, e.g. {@code server:rdma-write:2x4096}. */
    @Override
    public String toString() {
        return (byServer ? "server" : "client") + ":" + kind.label + ":" + segments + "x" + size;
    }

    /**
     * Parses an operation.
     *
     * @param text {@code [client:|server:]KIND[:SEGSxSIZE]}
     * @return the operation
     * @throws CommandLine.TypeConversionException when the text is not one
     */
    static TxOp parse(String text) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split(":", -1);
        int i = 0;
        boolean server = false;
        if (parts.length > 1 && (parts[0].equals("client") || parts[0].equals("server"))) {
            server = parts[0].equals("server");
            i++;
        }
        if (i >= parts.length || parts.length - i > 2) {
            throw bad(text);
        }
        Kind kind = switch (parts[i]) {
            case "send", "sr" -> Kind.SEND;
            case "rdma-write", "rw", "write" -> Kind.RDMA_WRITE;
            case "rdma-read", "rr", "read" -> Kind.RDMA_READ;
            default -> throw bad(text);
        };
        int segments = 1;
        long size = 4096;
        if (parts.length - i == 2) {
            String geometry = parts[i + 1];
            int x = geometry.indexOf('x');
            try {
                if (x >= 0) {
                    segments = Integer.parseInt(geometry.substring(0, x));
                    size = Sizes.parse(geometry.substring(x + 1));
                } else {
                    size = Sizes.parse(geometry);
                }
            } catch (NumberFormatException | CommandLine.TypeConversionException e) {
                throw bad(text);
            }
        }
        try {
            return new TxOp(server, kind, segments, size);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException("'" + text + "': " + e.getMessage());
        }
    }

    private static CommandLine.TypeConversionException bad(String text) {
        return new CommandLine.TypeConversionException("'" + text + "' is not an operation: write "
                + "[client:|server:]send|rdma-write|rdma-read[:SEGMENTSxSIZE], e.g. send:3x4096");
    }

    /** The picocli converter for {@code --op}. */
    static final class Converter implements CommandLine.ITypeConverter<TxOp> {
        @Override
        public TxOp convert(String value) {
            return parse(value);
        }
    }
}
