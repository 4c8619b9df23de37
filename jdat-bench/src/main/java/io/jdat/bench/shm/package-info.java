/**
 * Benchmarks of the {@code shm} provider's building blocks.
 *
 * <ul>
 *   <li>{@link io.jdat.bench.shm.ShmRingPingPongBench}: 64-byte records ping-ponged between two threads
 *       through two {@code io.jdat.shm.ShmRing}s in one memory-mapped file; compare it with
 *       {@link io.jdat.bench.baseline.SpinPingPongBench} in the same run.</li>
 * </ul>
 * Scores are one-way latencies ({@code @OperationsPerInvocation(2)}), as in the baseline package.
 */
package io.jdat.bench.shm;
