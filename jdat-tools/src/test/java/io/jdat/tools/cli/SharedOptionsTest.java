package io.jdat.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The options several commands share come from one mixin each ({@link IaOption}, {@link ConnQualOption},
 * {@link TimeoutOption}, {@link TwoProcessOptions}, {@link TcpIaOptions}), with each command's own default,
 * and {@code --timeout} reads the same in every command.
 */
class SharedOptionsTest {
    private static CommandSpec command(String name) {
        return Main.newCommandLine().getSubcommands().get(name).getCommandSpec();
    }

    private static String usage(String name) {
        ToolRun.Run r = ToolRun.jdat(name, "--help");
        assertEquals(0, r.exitCode(), r.err());
        return r.out().replaceAll("\\s+", " "); // as one line: the usage wraps descriptions
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"perf, mem, 10s, 18515", "tx, mem, 10s, 18516", "rping, tcp, 10s, -", "dtest, tcp, 30s, 45248"})
    void eachCommandKeepsItsDefaults(String name, String ia, String timeout, String qual) {
        CommandSpec spec = command(name);
        assertEquals(ia, spec.findOption("--ia").initialValue(), name + " --ia");
        assertEquals(timeout, spec.findOption("--timeout").initialValue(), name + " --timeout");
        String help = usage(name);
        assertTrue(help.contains("default: " + ia + ")"), help);
        assertTrue(help.contains("(default: " + timeout + ")"), help);
        if (!qual.equals("-")) {
            assertEquals(Long.parseLong(qual), spec.findOption("--conn-qual").initialValue(), name + " --conn-qual");
            assertTrue(help.contains("(default: " + qual + ")"), help);
        }
    }

    @Test
    void serverAndClientAreOneGroupInPerfAndTx() {
        for (String name : List.of("perf", "tx")) {
            CommandSpec spec = command(name);
            for (String option : List.of("--server", "--client", "--accept-timeout")) {
                assertNotNull(spec.findOption(option), name + " " + option);
            }
            ToolRun.Run both = ToolRun.jdat(name, "--server", "--client", "127.0.0.1");
            assertEquals(2, both.exitCode(), both.err());
            assertEquals("jdat " + name + ": --server and --client exclude each other: pick one", both.err().strip());
            assertEquals(1, usage(name).split("--server Be the server").length - 1,
                    "--server listed once in " + name);
        }
        for (String name : List.of("rping", "dtest")) {
            assertNotNull(command(name).findOption("--ia-params"), name);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"rping, -c", "dtest, -s", "tx, -i", "perf, -n"})
    void anOldMillisecondTimeoutIsAnsweredWithTheSecondsToWrite(String name, String other) {
        String[] args = other.equals("-i") || other.equals("-n")
                ? new String[] {name, other, "1", "--timeout", "15000"}
                : new String[] {name, other, "--timeout", "15000"};
        ToolRun.Run r = ToolRun.jdat(args);
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertEquals("jdat " + name + ": --timeout 15000 is over 2000 s: it is in seconds (write 15s, or 15000ms for "
                + "milliseconds)", r.err().strip());
    }

    @Test
    void aTimeoutTakesAUnitAndAZeroIsRefused() {
        ToolRun.Run zero = ToolRun.jdat("tx", "--timeout", "0");
        assertEquals(2, zero.exitCode(), zero.err());
        assertEquals("jdat tx: --timeout must be at least 1ms", zero.err().strip());
        ToolRun.Run bad = ToolRun.jdat("perf", "--timeout", "soon");
        assertEquals(2, bad.exitCode(), bad.err());
        assertTrue(bad.err().startsWith("jdat perf: --timeout: 'soon' is not a duration"), bad.err());
    }
}
