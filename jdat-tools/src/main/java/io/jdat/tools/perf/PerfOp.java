package io.jdat.tools.perf;

import java.util.Locale;
import picocli.CommandLine;

/**
 * The operations {@code jdat perf --op} selects, named as in {@code jdat tx --op}: {@code send} (also
 * {@code sr}), {@code rdma-write} ({@code write}, {@code rw}) and {@code rdma-read} ({@code read},
 * {@code rr}).
 */
enum PerfOp {
    /** Send/receive: the send/recv ping-pong and the send stream. */
    SEND("send"),
    /** RDMA Write: the RDMA write ping-pong and the RDMA write stream. */
    RDMA_WRITE("rdma-write"),
    /** RDMA Read: RDMA read latency and the RDMA read stream. */
    RDMA_READ("rdma-read");

    /** The option value. */
    final String label;

    PerfOp(String label) {
        this.label = label;
    }

    /**
     * Parses an operation name or alias, ignoring case.
     *
     * @param text the name
     * @return the operation
     * @throws CommandLine.TypeConversionException for an unknown name
     */
    static PerfOp parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "send", "sr", "send/recv" -> SEND;
            case "rdma-write", "write", "rw" -> RDMA_WRITE;
            case "rdma-read", "read", "rr" -> RDMA_READ;
            default -> throw new CommandLine.TypeConversionException("'" + text + "' is not an operation: use send, "
                    + "rdma-write or rdma-read");
        };
    }

    /** The picocli converter. */
    static final class Converter implements CommandLine.ITypeConverter<PerfOp> {
        @Override
        public PerfOp convert(String value) {
            return parse(value);
        }
    }
}
