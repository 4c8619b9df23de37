package io.jdat.tools.session;

/** A sample's exchange went wrong: a timeout, an unexpected event, data that does not verify. */
public final class SampleFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the failure.
     *
     * @param message one readable line
     */
    public SampleFailure(String message) {
        super(message);
    }
}
