package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The hand-over of a verbs IA's CQs between a polling consumer and the progress thread (no device: the rule is
 * decided by {@link ConsumerPolling} with explicit clock readings of the progress thread's looks; the guest suite's wait tests cover the device).
 */
class ConsumerPollingTest {
    private static final long MS = 1_000_000L;
    /** An arbitrary clock reading. */
    private static final long T0 = 123_456_789_000L;

    @Test
    @DisplayName("a consumer descheduled for a few ms still polls: the CQs stay with it for the grace (50 ms here)")
    void descheduledPollerKeepsTheCqs() {
        ConsumerPolling c = new ConsumerPolling(50_000);
        assertFalse(c.polling(T0), "nobody polled yet");
        c.polled();
        assertTrue(c.polling(T0), "the progress thread sees the poll");
        assertTrue(c.polling(T0 + 2 * MS), "a 2 ms gap (a time slice) handed the CQs over under a 1 ms grace");
        assertTrue(c.polling(T0 + 20 * MS));
        assertTrue(c.polling(T0 + 49 * MS));
        assertFalse(c.polling(T0 + 50 * MS), "gone after the grace: the progress thread takes over");
        c.polled();
        assertTrue(c.polling(T0 + 60 * MS), "polling again: the CQs go back to the consumer");
        c.polled();
        assertTrue(c.polling(T0 + 100 * MS), "a poll seen later restarts the grace");
        assertTrue(c.polling(T0 + 149 * MS));
        assertFalse(c.polling(T0 + 150 * MS));
    }

    @Test
    @DisplayName("a consumer that parks in a wait hands the CQs back at once, and the thread is woken once")
    void waiterHandsBackAtOnce() {
        ConsumerPolling c = new ConsumerPolling(ConsumerPolling.DEFAULT_GRACE_MICROS);
        c.polled();
        assertTrue(c.polling(T0));
        assertTrue(c.idle(), "the consumer had the CQs: wake the progress thread");
        assertFalse(c.polling(T0 + MS), "within the grace, but parked: the progress thread has the CQs");
        assertFalse(c.polling(T0 + 2 * MS), "and keeps them while nobody polls");
        assertFalse(c.idle(), "already handed back: no second wake-up");
        c.polled();
        assertTrue(c.polling(T0 + 3 * MS), "a poll after the wait takes them again");
        assertTrue(c.idle());
    }

    @Test
    @DisplayName("a consumer that polls and parks before the thread looks still hands back")
    void pollThenParkBeforeALook() {
        ConsumerPolling c = new ConsumerPolling(ConsumerPolling.DEFAULT_GRACE_MICROS);
        c.polled();
        assertTrue(c.idle());
        assertFalse(c.polling(T0), "parked: not polling, though the count changed");
    }

    @Test
    @DisplayName("the clock's zero and negative readings still count as a look")
    void anyClockReading() {
        ConsumerPolling c = new ConsumerPolling(1000);
        c.polled();
        assertTrue(c.polling(0));
        c.polled();
        assertTrue(c.polling(-5 * MS));
        assertTrue(c.polling(-5 * MS + MS / 2));
        assertFalse(c.polling(-5 * MS + 2 * MS));
    }

    @Test
    @DisplayName("grace 0: the progress thread never leaves the CQs to a consumer")
    void zeroGrace() {
        ConsumerPolling c = new ConsumerPolling(0);
        c.polled();
        assertFalse(c.polling(T0));
        assertEquals(10, c.checkMillis);
    }

    @Test
    @DisplayName("jdat.verbs.pollerGraceMicros: µs from 0 to 10 s; the default for none, negative or garbage")
    void property() {
        assertEquals(200_000, ConsumerPolling.graceMicros(null));
        assertEquals(1000, ConsumerPolling.graceMicros("1000"));
        assertEquals(0, ConsumerPolling.graceMicros(" 0 "));
        assertEquals(200_000, ConsumerPolling.graceMicros("-1"));
        assertEquals(200_000, ConsumerPolling.graceMicros("50ms"));
        assertEquals(10_000_000, ConsumerPolling.graceMicros("99999999999"));
        assertEquals(25, new ConsumerPolling(50_000).checkMillis, "half the grace");
        assertEquals(10, new ConsumerPolling(1000).checkMillis, "at least 10 ms");
        assertEquals(100, new ConsumerPolling(10_000_000).checkMillis, "at most 100 ms");
        assertEquals(100, new ConsumerPolling(ConsumerPolling.DEFAULT_GRACE_MICROS).checkMillis,
                "by default the busy poller's thread looks ten times a second");
        assertFalse(new ConsumerPolling(50_000).polling(T0), "nobody polled");
    }
}
