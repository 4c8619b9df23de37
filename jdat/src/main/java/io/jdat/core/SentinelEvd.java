package io.jdat.core;

import io.jdat.Cno;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.EventDispatcher;
import io.jdat.EvdParam;
import io.jdat.HandleType;

/**
 * The special async-EVD values {@code DAT_EVD_ASYNC_EXISTS} and {@code DAT_EVD_OUT_OF_SCOPE}: handles
 * that name no EVD, so every operation on them fails with {@code DAT_INVALID_HANDLE}.
 */
public final class SentinelEvd implements EventDispatcher {
    private final String name;

    /**
     * Creates a sentinel.
     *
     * @param name the C name it stands for
     */
    public SentinelEvd(String name) {
        this.name = name;
    }

    private RuntimeException invalid() {
        return Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, name + " is not an EVD");
    }

    @Override
    public HandleType getHandleType() {
        throw invalid();
    }

    @Override
    public void setConsumerContext(Object context) {
        throw invalid();
    }

    @Override
    public Object getConsumerContext() {
        throw invalid();
    }

    @Override
    public EvdParam query(long evdParamMask) {
        throw invalid();
    }

    @Override
    public void modifyCno(Cno cno) {
        throw invalid();
    }

    @Override
    public void enable() {
        throw invalid();
    }

    @Override
    public void disable() {
        throw invalid();
    }

    @Override
    public boolean waitFor(int timeout, int threshold, DatEvent event) {
        throw invalid();
    }

    @Override
    public boolean dequeue(DatEvent event) {
        throw invalid();
    }

    @Override
    public void postSe(DatEvent event) {
        throw invalid();
    }

    @Override
    public void resize(int evdMinQlen) {
        throw invalid();
    }

    @Override
    public void setUnwaitable() {
        throw invalid();
    }

    @Override
    public void clearUnwaitable() {
        throw invalid();
    }

    @Override
    public void free() {
        throw invalid();
    }

    @Override
    public String toString() {
        return name;
    }
}
