package io.jdat.core;

import io.jdat.spi.IncomingHandler;

/** A PSP or RSP: listens on a qualifier of its IA; {@code dat_cr_handoff} finds it by qualifier. */
interface ServicePoint extends IncomingHandler {
    /** The qualifier it listens on. */
    long connQual();
}
