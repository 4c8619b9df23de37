package io.jdat.tools.cli;

import io.jdat.tools.session.SampleSide;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The IA options of {@code rping} and {@code dtest}, as a picocli mixin: {@code --ia NAME} (default
 * {@code tcp}) or {@code --ia-params PARAMS}, a {@code tcp} IA with these dat.conf IA parameters.
 */
public final class TcpIaOptions {
    @Mixin
    private IaOption ia = new IaOption("tcp");

    @Option(names = "--ia-params", paramLabel = "PARAMS",
            description = "Open a tcp IA with these dat.conf IA parameters instead, e.g. \"crc=on p2p=off\".")
    private String params;

    /** Creates the options (picocli fills them in). */
    public TcpIaOptions() {
    }

    /**
     * The IA to open: {@code --ia}, checked against the registry, or without {@code --ia-params} a {@code tcp}
     * entry named {@code registerAs} with those parameters, added to the registry
     * ({@link SampleSide#registerTcp}).
     *
     * @param spec       the command, for usage errors
     * @param registerAs the name of the {@code tcp} entry {@code --ia-params} creates
     * @return the IA name to open
     */
    public String iaName(CommandSpec spec, String registerAs) {
        if (params == null) {
            return ia.name(spec);
        }
        return SampleSide.registerTcp(registerAs, params);
    }
}
