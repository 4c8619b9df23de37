package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The clock line of {@code jdat perf}'s header: what a {@link System#nanoTime()} reading costs, and the source. */
class ClockCostTest {
    @TempDir
    Path dir;

    @Test
    void aReadingCostsSomethingFiniteAndLessThanAMillisecond() {
        ClockCost c = ClockCost.measure();
        assertTrue(c.nanosPerReading() > 0 && c.nanosPerReading() < 1_000_000, String.valueOf(c));
    }

    @Test
    void theSourceIsTheFilesFirstLineOrNullWhereTheHostDoesNotSay() throws Exception {
        Path f = Files.writeString(dir.resolve("current_clocksource"), "hpet\n");
        assertEquals("hpet", ClockCost.source(f));
        assertNull(ClockCost.source(dir.resolve("absent")));
        assertNull(ClockCost.source(Files.writeString(dir.resolve("empty"), "\n")));
    }

    @Test
    void describeGivesMicrosecondsWithTwoDecimalsAndTheSourceWhenKnown() {
        assertEquals("clock: 1.63 µs a reading (clock source hpet)", new ClockCost(1_634, "hpet").describe("µs"));
        assertEquals("clock: 0.10 us a reading", new ClockCost(102, null).describe("us"));
    }
}
