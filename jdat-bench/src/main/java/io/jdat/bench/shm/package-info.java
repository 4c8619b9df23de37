/** JMH benchmarks of the {@code shm} provider's building blocks, beside the baselines of {@code io.jdat.bench.baseline}. */
package io.jdat.bench.shm;
