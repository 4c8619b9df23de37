package io.jdat.tools.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;

/** Runs {@code jdat} in this JVM for the tests of every command, and hands out connection qualifiers. */
public final class ToolRun {
    private static final AtomicLong QUALS = new AtomicLong(32_000);

    private ToolRun() {
    }

    /**
     * Output and exit code of one in-process {@code jdat} run.
     *
     * @param exitCode the exit code
     * @param out      standard output
     * @param err      standard error
     */
    public record Run(int exitCode, String out, String err) {
    }

    /**
     * Runs {@code jdat ARGS} in this JVM.
     *
     * @param args the command line
     * @return its exit code and output
     */
    public static Run jdat(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new Run(rc, out.toString(), err.toString());
    }

    /**
     * A fresh connection qualifier for a provider that is not an IP transport.
     *
     * @return the qualifier
     */
    public static long nextQual() {
        return QUALS.getAndIncrement();
    }

    /**
     * For a {@code tcp} run a TCP port {@code p} such that {@code p} and {@code p + 1} are free (the perf and test
     * tools listen on the qualifier and the one after it): below Linux's ephemeral range (32768 and up), so that
     * no outgoing connection of another test takes one of them meanwhile; a fresh number for other providers.
     *
     * @param ia the IA name
     * @return the qualifier, as text
     */
    public static String qual(String ia) {
        if (!ia.startsWith("tcp")) {
            return Long.toString(nextQual());
        }
        java.util.SplittableRandom rnd = new java.util.SplittableRandom();
        for (int attempt = 0; attempt < 1000; attempt++) {
            int p = 20_000 + rnd.nextInt(12_000);
            try (ServerSocket a = new ServerSocket(p); ServerSocket b = new ServerSocket(p + 1)) {
                return Integer.toString(a.getLocalPort());
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no two free TCP ports in a row below 32000");
    }
}
