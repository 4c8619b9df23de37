package io.jdat.core;

import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.HandleType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The common part of every core object (each subclass implements one sealed {@link DatHandle} interface): its IA, its liveness and the consumer context
 * ({@code dat_set_consumer_context}). Once {@link #freed} is set every call fails with
 * {@code DAT_INVALID_HANDLE}.
 *
 * <p><b>Free once.</b> Every object is freed exactly once, by its {@code dat_*_free} ({@link #markFreed}: a
 * second or racing free gets {@code DAT_INVALID_HANDLE}) or by an abrupt IA close ({@link #markFreedOnce}:
 * only the first caller goes on to release the object's resources). Both set {@link #freed} with one
 * compare-and-set, so they are atomic with or without the object's lock; a subclass that checks more
 * (objects still in use, its connection state) calls them under its lock after those checks, so that
 * nothing changes between the check and the free. The flag lives here, not in an object of its own, so
 * that the lock-free liveness check on every post and poll stays one volatile load.
 */
abstract class CoreObject {
    /** {@link #freed}, for its compare-and-set. */
    private static final VarHandle FREED = FieldHandles.find(MethodHandles.lookup(), CoreObject.class, "freed",
            boolean.class);

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

    /**
     * Frees the object for its {@code dat_*_free}: sets {@link #freed}, or throws {@code DAT_INVALID_HANDLE}
     * when it was already set (a second or racing free, or an IA close that came first).
     */
    final void markFreed() {
        if (!FREED.compareAndSet(this, false, true)) {
            throw Fail.handle(invalidSubtype, type + " handle was freed");
        }
    }

    /**
     * {@link #markFreed} for an object that others may still use: {@code DAT_INVALID_HANDLE} when it is gone,
     * else {@code DAT_INVALID_STATE} with {@code inUse} while {@code users} is positive (the message is
     * {@code users + what}). Called under the lock that guards {@code users}.
     */
    final void markFreedUnlessUsed(int users, DatReturnSubtype inUse, String what) {
        checkAlive();
        if (users > 0) {
            throw Fail.state(inUse, users + what);
        }
        markFreed();
    }

    /**
     * Frees the object for an abrupt IA close or an internal teardown (never throws).
     *
     * @return {@code true} for the one caller that set {@link #freed}, which releases the object's resources
     */
    final boolean markFreedOnce() {
        return FREED.compareAndSet(this, false, true);
    }

    /**
     * The checks every {@code dat_*_query} (and {@code dat_ep_modify}) starts with: the object is alive ({@code DAT_INVALID_HANDLE}) and
     * {@code mask} (argument 2) names no field outside {@code all} ({@code DAT_INVALID_PARAMETER}).
     */
    final void checkAliveAndMask(long mask, long all) {
        checkAlive();
        Fail.checkMask(mask, all, 2);
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
