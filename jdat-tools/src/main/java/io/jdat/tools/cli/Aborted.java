package io.jdat.tools.cli;

/** Thrown on the side of a run that stops because the other one failed; never reported itself. */
public final class Aborted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception (no stack trace: it only unwinds). */
    public Aborted() {
        super("aborted because the peer failed", null, false, false);
    }
}
