/** How cost grows with connections: {@link io.jdat.bench.scale.ScaleBench}, a plain program run by {@code jdat-bench/scale.sh}. */
package io.jdat.bench.scale;
