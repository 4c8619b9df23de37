/**
 * JMH benchmarks of the {@code shm} provider's building blocks, beside the baselines of
 * {@code io.jdat.bench.baseline}.
 *
 * <ul>
 *   <li>{@link io.jdat.bench.shm.ShmRingPingPongBench}: 64-byte records ping-ponged between two threads
 *       through two {@code io.jdat.shm.ShmRing}s in one memory-mapped file; compare it with
 *       {@link io.jdat.bench.baseline.SpinPingPongBench} in the same run. Scores are one-way latencies
 *       ({@code @OperationsPerInvocation(2)}).</li>
 *   <li>{@link io.jdat.bench.shm.ShmDirectWriteBench}: the parts of a 64 B direct-store RDMA Write's one-way time
 *       (the post, the store's own accesses, the wait's dequeue, the clock), one thread; run with {@code -prof gc}.</li>
 *   <li>{@link io.jdat.bench.shm.CrossMemoryReadBench}: 1 MiB {@code process_vm_readv}/{@code writev} to a
 *       second JVM and to self; compare with {@link io.jdat.bench.baseline.MemCopyBench}.</li>
 * </ul>
 */
package io.jdat.bench.shm;
