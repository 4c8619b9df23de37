package io.jdat.core;

import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.HandleType;

/**
 * The common part of every core object (each subclass implements one sealed {@link DatHandle} interface): its IA, its liveness and the consumer context
 * ({@code dat_set_consumer_context}). Once {@link #freed} is set every call fails with
 * {@code DAT_INVALID_HANDLE}.
 */
abstract class CoreObject {
    /** The IA this object belongs to (the IA itself for a {@link CoreIa}). */
    final CoreIa ia;
    private final HandleType type;
    private final DatReturnSubtype invalidSubtype;
    private volatile Object consumerContext;
    /** Set once when the object is destroyed; read without locks on every call. */
    volatile boolean freed;

    CoreObject(CoreIa ia, HandleType type, DatReturnSubtype invalidSubtype) {
        this.ia = ia == null ? (CoreIa) this : ia;
        this.type = type;
        this.invalidSubtype = invalidSubtype;
    }

    /** Throws {@code DAT_INVALID_HANDLE} when the object is gone. */
    final void checkAlive() {
        if (freed) {
            throw Fail.handle(invalidSubtype, type + " handle was freed");
        }
    }

    /** The subtype of {@code DAT_INVALID_HANDLE} for this kind of object. */
    final DatReturnSubtype invalidSubtype() {
        return invalidSubtype;
    }

    /** {@code dat_get_handle_type} ({@link DatHandle#getHandleType}, which every subclass implements). */
    public final HandleType getHandleType() {
        checkAlive();
        return type;
    }

    /** {@code dat_set_consumer_context} ({@link DatHandle#setConsumerContext}). */
    public final void setConsumerContext(Object context) {
        checkAlive();
        consumerContext = context;
    }

    /** {@code dat_get_consumer_context} ({@link DatHandle#getConsumerContext}). */
    public final Object getConsumerContext() {
        checkAlive();
        return consumerContext;
    }

    /** The handle type, readable after the object is freed (for the close cascade). */
    final HandleType typeForClose() {
        return type;
    }

    /** Destroys the object as part of an abrupt IA close; must not throw. */
    abstract void destroy();

    @Override
    public String toString() {
        return type + "@" + Integer.toHexString(System.identityHashCode(this)) + (freed ? "(freed)" : "");
    }
}
