package io.jdat.bench.tcp;

/**
 * jdat {@code tcp}: the send/recv ping-pong of {@link io.jdat.bench.mem.SendRecvPingPongBench} over iWARP on
 * 127.0.0.1, the DAT equivalent of {@link io.jdat.bench.baseline.NioTcpPingPongBench} and UCX's
 * {@code tag_lat} over tcp. Both threads poll their receive EVD with {@code dat_evd_dequeue}, which reads
 * the socket on the polling thread (the IA's progress thread stays parked meanwhile). Score: one-way
 * latency (RTT / 2). System property {@code jdat.bench.tcpParams} adds IA parameters (e.g.
 * {@code crc=on}).
 */
public class SendRecvPingPongBench extends io.jdat.bench.mem.SendRecvPingPongBench {
    @Override
    protected String iaName() {
        return BenchIa.name();
    }
}
