/** JMH benchmarks of jdat on the embedded {@code mem} provider, beside the baselines of {@code io.jdat.bench.baseline}. */
package io.jdat.bench.mem;
