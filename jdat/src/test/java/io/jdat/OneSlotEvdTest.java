package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** An EVD of queue length 1 holds exactly one event, lap after lap. */
class OneSlotEvdTest {
    @Test
    @DisplayName("EVD-01 EVD-04 EVQ-02: a one-slot EVD reports length 1, holds one event, refuses a second, reuses its slot")
    void oneSlot() {
        try (InterfaceAdapter ia = InterfaceAdapter.open("mem", 4, null)) {
            EventDispatcher evd = EventDispatcher.create(ia, 1, null, EvdFlags.SOFTWARE);
            assertEquals(1, evd.query(EvdParam.FIELD_EVD_QLEN).evdQlen());
            DatEvent e = new DatEvent();
            for (int lap = 0; lap < 5; lap++) {
                evd.postSe(DatEvent.software("event " + lap));
                DatException full = assertThrows(DatException.class, () -> evd.postSe(DatEvent.software("extra")));
                assertEquals(DatReturnType.QUEUE_FULL, full.type());
                assertTrue(evd.dequeue(e));
                assertEquals("event " + lap, e.softwarePointer());
                assertFalse(evd.dequeue(e), "empty again");
            }
        }
    }
}
