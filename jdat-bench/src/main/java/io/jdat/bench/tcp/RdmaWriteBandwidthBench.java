package io.jdat.bench.tcp;

/**
 * jdat {@code tcp}: 1 MiB RDMA Write bandwidth of {@link io.jdat.bench.mem.RdmaWriteBandwidthBench} over iWARP
 * on 127.0.0.1, against {@link io.jdat.bench.baseline.NioTcpStreamBench} and UCX's {@code tag_bw} over tcp.
 * The target runs a thread that polls an EVD of its IA, so the bytes are placed by a busy receiver as in
 * the raw NIO stream. Score: bytes per second. System property {@code jdat.bench.tcpParams} adds IA
 * parameters (e.g. {@code crc=on}).
 */
public class RdmaWriteBandwidthBench extends io.jdat.bench.mem.RdmaWriteBandwidthBench {
    @Override
    protected String iaName() {
        return BenchIa.name();
    }

    @Override
    protected boolean pollsTarget() {
        return true;
    }
}
