package io.jdat.core;

import io.jdat.Cno;
import io.jdat.CnoParam;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import io.jdat.HandleType;
import io.jdat.ProxyAgent;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code DAT_CNO_HANDLE}: remembers the last EVD that triggered it until a waiter takes it, so a trigger
 * that comes before the wait is not lost. Waiting spins briefly, then parks.
 */
public final class CoreCno extends CoreObject implements Cno {
    private volatile ProxyAgent agent;
    private volatile EventDispatcher pending;
    private volatile Thread waiter;
    private volatile boolean released;
    /** EVDs attached; guarded by {@code this}. */
    private int evds;

    CoreCno(CoreIa ia, ProxyAgent agent) {
        super(ia, HandleType.CNO, DatReturnSubtype.INVALID_HANDLE_CNO);
        this.agent = agent;
    }

    synchronized void attach() {
        evds++;
    }

    void detach() {
        boolean last;
        synchronized (this) {
            last = --evds == 0;
        }
        if (last) {
            releaseWaiter();
        }
    }

    /** An attached, enabled EVD without a direct waiter received a notifying event. */
    void trigger(CoreEvd evd) {
        pending = evd;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        ProxyAgent a = agent;
        if (a != null) {
            a.trigger(evd);
        }
    }

    private void releaseWaiter() {
        released = true;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void modifyAgent(ProxyAgent newAgent) {
        checkAlive();
        agent = newAgent;
    }

    @Override
    public CnoParam query(long mask) {
        checkAliveAndMask(mask, CnoParam.FIELD_ALL);
        return new CnoParam(ia, agent);
    }

    @Override
    public EventDispatcher waitFor(int timeout) {
        checkAlive();
        synchronized (this) {
            if (waiter != null) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_CNO_IN_USE, "another thread waits on this CNO");
            }
            waiter = Thread.currentThread();
            released = false;
        }
        try {
            long start = System.nanoTime();
            boolean infinite = timeout == io.jdat.Dat.TIMEOUT_INFINITE;
            long limit = infinite ? Long.MAX_VALUE : Integer.toUnsignedLong(timeout) * 1000L;
            long spinEnd = Math.min(CoreEvd.SPIN_NANOS, limit);
            while (pending == null && !released && !freed && System.nanoTime() - start < spinEnd) {
                if (!ia.transport.progress()) {
                    Thread.onSpinWait();
                }
            }
            if (pending == null) {
                ia.transport.pollerIdle(); // parking: the transport's own progress takes over
            }
            while (pending == null && !released && !freed) {
                long left = limit - (System.nanoTime() - start);
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.currentThread().isInterrupted()) {
                    throw Fail.of(DatReturnType.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED, "thread interrupted");
                }
            }
            EventDispatcher e = pending;
            pending = null;
            return e;
        } finally {
            waiter = null;
        }
    }

    @Override
    public void free() {
        synchronized (this) {
            checkAlive();
            if (evds > 0 || waiter != null) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_CNO_IN_USE, "EVDs attached or a thread waits (CNO-05)");
            }
            markFreed();
        }
        ia.unregister(this);
    }

    @Override
    void destroy() {
        if (markFreedOnce()) {
            releaseWaiter();
        }
    }
}
