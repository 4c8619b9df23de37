package io.jdat.tools.cli;

/**
 * A failed run of a tool ({@code perf}, {@code tx}) that is not a {@link io.jdat.DatException}: wrong data, an
 * unexpected event, a timeout.
 */
public final class ToolFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether this failure only follows from an earlier one (a flushed completion after the connection broke). */
    private final boolean consequence;

    /**
     * Creates the failure.
     *
     * @param message what went wrong, readable on its own
     */
    public ToolFailure(String message) {
        this(message, false);
    }

    /**
     * Creates the failure.
     *
     * @param message     what went wrong, readable on its own
     * @param consequence true when it only follows from an earlier failure (e.g. a flushed completion): a
     *                    failure reported by the other side is then the better explanation
     */
    public ToolFailure(String message, boolean consequence) {
        super(message);
        this.consequence = consequence;
    }

    /** True when this failure only follows from an earlier one. */
    public boolean isConsequence() {
        return consequence;
    }
}
