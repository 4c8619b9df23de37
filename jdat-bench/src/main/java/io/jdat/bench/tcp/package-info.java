/**
 * Benchmarks of the {@code tcp} provider (iWARP over TCP on 127.0.0.1), subclasses of the {@code mem} ones,
 * compared in the same run with the raw NIO baselines and the UCX / libfabric tcp peers
 * ({@code jdat-bench/peers-tcp.sh}, {@code ratios.py --peers}).
 */
package io.jdat.bench.tcp;
