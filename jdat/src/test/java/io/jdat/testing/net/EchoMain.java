package io.jdat.testing.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Main class run by {@link ChildJvmTest} in a child JVM. Prints
 * {@code READY pid=<pid> args=<args> greeting=<system property echo.greeting, or none>}, then handles stdin
 * lines until end of input (then exits 0):
 * <ul>
 *   <li>{@code exit <n>}: exits with status n;</li>
 *   <li>{@code err <text>}: prints text to stderr;</li>
 *   <li>anything else: prints {@code ECHO <line>}.</li>
 * </ul>
 * A shutdown hook prints {@code SHUTDOWN HOOK}, which a SIGKILL never lets run.
 */
public final class EchoMain {
    private EchoMain() {
    }

    /**
     * Runs the echo loop described above.
     *
     * @param args printed back in the READY line
     */
    public static void main(String[] args) throws IOException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("SHUTDOWN HOOK")));
        System.out.println("READY pid=" + ProcessHandle.current().pid() + " args=" + Arrays.toString(args)
                + " greeting=" + System.getProperty("echo.greeting", "none"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("exit ")) {
                System.exit(Integer.parseInt(line.substring(5).trim()));
            } else if (line.startsWith("err ")) {
                System.err.println(line.substring(4));
            } else {
                System.out.println("ECHO " + line);
            }
        }
    }
}
