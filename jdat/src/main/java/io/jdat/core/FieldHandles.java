package io.jdat.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Finds the {@link VarHandle} of a field once, when its class loads: the core's atomic and release/acquire
 * fields ({@link EventRing}'s cursors, {@link ReceiveQueue}'s sequences, a freed flag, a waiter). Held in a
 * {@code static final}, the handle is a constant to the JIT: access through it costs what the access mode
 * costs, nothing more.
 */
final class FieldHandles {
    private FieldHandles() {
    }

    /**
     * @param lookup the lookup of the class that declares the field, or of its nest (it grants the access)
     * @param owner  the class that declares the field
     * @param name   the field's name
     * @param type   the field's type
     * @return the field's handle
     * @throws ExceptionInInitializerError if the field is not there (a bug: the class does not load)
     */
    static VarHandle find(MethodHandles.Lookup lookup, Class<?> owner, String name, Class<?> type) {
        try {
            return lookup.findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
