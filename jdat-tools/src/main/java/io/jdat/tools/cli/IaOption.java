package io.jdat.tools.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code --ia NAME}, the IA a command opens, as a picocli mixin: {@code perf} and {@code tx} default to
 * {@code mem}, {@code rping} and {@code dtest} to {@code tcp} (the command creates it with its default).
 */
public final class IaOption {
    @Option(names = "--ia", paramLabel = "NAME",
            description = "The IA to open (both sides, or this side in two processes; default: ${DEFAULT-VALUE}).")
    private String name;

    /**
     * Creates the option.
     *
     * @param defaultName the IA name without {@code --ia}
     */
    public IaOption(String defaultName) {
        this.name = defaultName;
    }

    /** @return the IA name given, or the default */
    public String name() {
        return name;
    }

    /**
     * The IA name, checked: a usage error naming the registered IAs when it is not one of them.
     *
     * @param spec the command
     * @return the IA name given, or the default
     */
    public String name(CommandSpec spec) {
        IaNames.require(spec, "--ia", name);
        return name;
    }
}
