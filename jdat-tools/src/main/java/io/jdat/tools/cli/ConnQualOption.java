package io.jdat.tools.cli;

import picocli.CommandLine.Option;

/** {@code --conn-qual QUAL}, the connection qualifier a server listens on, as a picocli mixin. */
public final class ConnQualOption {
    @Option(names = "--conn-qual", paramLabel = "QUAL",
            description = "The connection qualifier the server listens on (default: ${DEFAULT-VALUE}).")
    private long qual;

    /**
     * Creates the option.
     *
     * @param defaultQual the qualifier without {@code --conn-qual}
     */
    public ConnQualOption(long defaultQual) {
        this.qual = defaultQual;
    }

    /** @return the qualifier given, or the default */
    public long value() {
        return qual;
    }
}
