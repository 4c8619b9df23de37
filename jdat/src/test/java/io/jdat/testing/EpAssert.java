package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import org.junit.jupiter.api.function.Executable;

/** Assertions for the Endpoint tests: exact {@code DAT_RETURN} type and subtype, empty EVDs. */
public final class EpAssert {
    private EpAssert() {
    }

    /** Asserts that {@code call} throws a {@link DatException} of exactly this type and subtype. */
    public static DatException fails(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), () -> "type of " + e.getMessage());
        assertEquals(subtype, e.subtype(), () -> "subtype of " + e.getMessage());
        return e;
    }

    /** {@code DAT_INVALID_STATE} with {@code subtype}. */
    public static DatException invalidState(DatReturnSubtype subtype, Executable call) {
        return fails(DatReturnType.INVALID_STATE, subtype, call);
    }

    /** {@code DAT_INVALID_PARAMETER} with {@code subtype} (an {@code INVALID_ARGn}). */
    public static DatException invalidParam(DatReturnSubtype subtype, Executable call) {
        return fails(DatReturnType.INVALID_PARAMETER, subtype, call);
    }

    /** {@code DAT_INVALID_HANDLE} with {@code subtype}. */
    public static DatException invalidHandle(DatReturnSubtype subtype, Executable call) {
        return fails(DatReturnType.INVALID_HANDLE, subtype, call);
    }

    /** Asserts that {@code evd} holds no event now. */
    public static void empty(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertFalse(evd.dequeue(e), () -> "unexpected event " + e);
    }
}
