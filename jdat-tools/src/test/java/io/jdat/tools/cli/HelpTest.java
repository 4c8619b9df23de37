package io.jdat.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command of {@code jdat}, found by walking picocli's model of the command line (so a command added later
 * is covered too), answers {@code --help}, and {@code -h} unless {@code -h} is one of its own options (dtest's
 * host): exit code 0, its usage on standard output, nothing on standard error.
 */
class HelpTest {
    /** Every subcommand name (aliases and hidden ones included), as picocli knows them. */
    static Stream<String> commands() {
        return Main.newCommandLine().getSubcommands().keySet().stream();
    }

    @ParameterizedTest(name = "jdat {0} --help")
    @MethodSource("commands")
    void everyCommandAnswersHelp(String name) {
        assertUsage(name, ToolRun.jdat(name, "--help"));
    }

    @ParameterizedTest(name = "jdat {0} -h")
    @MethodSource("commands")
    void everyCommandAnswersDashHUnlessItIsItsOwnOption(String name) {
        CommandLine sub = Main.newCommandLine().getSubcommands().get(name);
        OptionSpec h = sub.getCommandSpec().findOption("-h");
        assertNotNull(h, "jdat " + name + " has no -h at all: give it -h for --help, or an -h of its own");
        if (h.usageHelp()) {
            assertUsage(name, ToolRun.jdat(name, "-h"));
        } else {
            assertTrue(sub.getCommandSpec().findOption("--help").usageHelp(), name);
        }
    }

    @Test
    void theWalkFindsEveryCommand() {
        Map<String, CommandLine> subs = Main.newCommandLine().getSubcommands();
        assertTrue(subs.keySet().containsAll(List.of("perf", "tx", "info", "rping", "dtest", "help", "test")),
                subs.keySet()::toString);
    }

    @Test
    void theTopCommandAndHelpCommandListTheCommands() {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"-h"}, new String[] {"help"})) {
            ToolRun.Run r = ToolRun.jdat(args);
            assertEquals(0, r.exitCode(), r.err());
            assertTrue(r.out().startsWith("Usage: jdat "), r.out());
            for (String c : List.of("perf", "tx", "info", "rping", "dtest")) {
                assertTrue(r.out().lines().anyMatch(l -> l.strip().startsWith(c + " ")), c + " in:\n" + r.out());
            }
            assertFalse(r.out().lines().anyMatch(l -> l.strip().startsWith("test ")),
                    "the deprecated name is hidden:\n" + r.out());
        }
        List<String> names = new ArrayList<>(commands().toList());
        names.remove("help");
        for (String name : names) {
            ToolRun.Run r = ToolRun.jdat("help", name);
            assertUsage(name, r);
        }
    }

    @Test
    void rpingAnswersHelpAndKeepsItsOwnCapitalV() {
        ToolRun.Run r = ToolRun.jdat("rping", "--help");
        assertUsage("rping", r);
        assertTrue(r.out().contains("-V") && r.out().contains("Verify the data"), r.out());
    }

    private static void assertUsage(String name, ToolRun.Run r) {
        assertEquals(0, r.exitCode(), () -> "jdat " + name + ": " + r.err());
        assertTrue(r.out().contains("Usage: jdat " + name), r.out());
        assertTrue(r.out().lines().count() > 3, r.out());
        assertEquals("", r.err());
    }
}
