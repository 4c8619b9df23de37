/**
 * Baselines that jdat's own benchmarks are compared with, measured the same way and in the same run.
 *
 * <ul>
 *   <li>{@link io.jdat.bench.baseline.SpinPingPongBench}: the in-JVM physical limit of a 64-byte message
 *       between two threads (busy-spin through a shared native {@link java.lang.foreign.MemorySegment}).</li>
 *   <li>{@link io.jdat.bench.baseline.MemCopyBench}: {@code MemorySegment.copy} of 1 MiB, native to native,
 *       the bandwidth limit of any copy-based transport.</li>
 *   <li>{@link io.jdat.bench.baseline.AeronIpcPingPongBench}: Aeron IPC ping-pong, 64-byte messages, the
 *       best-known Java messaging library on the same shared-memory path.</li>
 *   <li>{@link io.jdat.bench.baseline.NioTcpPingPongBench}: raw Java NIO TCP ping-pong over 127.0.0.1,
 *       non-blocking and busy-polling (64 B and 4 KiB), the JVM's TCP latency limit.</li>
 *   <li>{@link io.jdat.bench.baseline.NioTcpStreamBench}: raw Java NIO TCP one-direction stream over
 *       127.0.0.1 (1 MiB and 64 KiB writes), the JVM's TCP bandwidth limit.</li>
 * </ul>
 * The native TCP peers of the {@code tcp} transport (UCX {@code ucx_perftest}, libfabric
 * {@code fi_pingpong}) are not JMH benchmarks: {@code jdat-bench/peers-tcp.sh} runs them, and
 * {@code jdat-bench/ratios.py RESULT.json --peers PEERS.tsv} puts both together.
 *
 * <p>Units. The ping-pongs use {@code @OperationsPerInvocation(2)}: one invocation is one round trip,
 * which JMH counts as two operations, so their {@code avgt} score (ns/op) is already the one-way latency,
 * round trip / 2 (the basis of the peer tables in {@code shared/bench/peers/RESULTS.md}). The copy and the
 * NIO stream use {@code @OperationsPerInvocation(1 MiB)}: one operation is one byte, so their {@code thrpt}
 * score (ops/s) is bytes per second (divide by 10^6 for MB/s).
 *
 * <p>Run, e.g. briefly: {@code ./jdat bench 'io.jdat.bench.baseline.*' -f 1 -wi 1 -i 1 -w 1s -r 1s}.
 * On a 2-core machine a third busy thread ruins busy-polling: keep the machine quiet while measuring.
 */
package io.jdat.bench.baseline;
