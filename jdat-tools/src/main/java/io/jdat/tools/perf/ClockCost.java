package io.jdat.tools.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What one {@link System#nanoTime()} reading costs on this host, and the kernel's clock source, for the header
 * of {@code jdat perf}: each latency sample holds about one reading, which perftest (reading the TSC itself) does
 * not pay. On a host whose clock source is the TSC the reading stays in user space (about 0.02-0.1 µs); on a
 * virtual machine that fell back to an emulated HPET it is a system call and a trapped device read (about 1.6 µs
 * under qemu TCG), a visible part of a microsecond latency.
 *
 * @param nanosPerReading the median cost of one reading, in nanoseconds
 * @param source          the kernel's current clock source ({@code tsc}, {@code hpet}...), or {@code null} where
 *                        the host does not say (not Linux)
 */
record ClockCost(double nanosPerReading, String source) {
    private static final Path CURRENT = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    private static final int ROUNDS = 5;
    private static final int READINGS = 2_000;
    /** Where the readings' sum goes, so that the JIT keeps them. */
    private static volatile long sink;

    /** {@return the clock as measured now}: the median of {@value #ROUNDS} rounds of {@value #READINGS} readings */
    static ClockCost measure() {
        double[] perReading = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long sum = 0;
            long start = System.nanoTime();
            for (int i = 0; i < READINGS; i++) {
                sum += System.nanoTime();
            }
            long end = System.nanoTime();
            sink = sum;
            perReading[r] = (double) (end - start) / (READINGS + 1); // the readings and the end's
        }
        java.util.Arrays.sort(perReading);
        return new ClockCost(perReading[ROUNDS / 2], source(CURRENT));
    }

    /** {@return what {@code file} holds (the kernel writes one word and a newline), trimmed; null when it cannot be
     * read or holds nothing} */
    static String source(Path file) {
        try {
            String s = Files.readString(file).strip();
            return s.isEmpty() ? null : s;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /** {@return e.g. {@code "clock: 0.10 µs a reading (clock source tsc)"}} with the given unit for microseconds */
    String describe(String micro) {
        return String.format(java.util.Locale.ROOT, "clock: %.2f %s a reading%s", nanosPerReading / 1_000, micro,
                source == null ? "" : " (clock source " + source + ")");
    }
}
