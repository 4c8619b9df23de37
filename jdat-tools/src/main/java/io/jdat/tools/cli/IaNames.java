package io.jdat.tools.cli;

import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.mem.MemAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The checks every command makes of {@code --ia NAME} (and of a server address given with it) before it opens
 * anything, so that a wrong name or a forgotten {@code --ia} is a usage error (exit code 2) that says what to
 * write, at once, instead of a DAT error (or a wait) later.
 */
public final class IaNames {
    private IaNames() {
    }

    /** The IA names of the DAT registry (built-ins and dat.conf), in registry order. */
    public static List<String> registered() {
        return Registry.entries().stream().map(RegistryEntry::iaName).toList();
    }

    /**
     * Fails with a usage error naming the registered IAs when {@code name} is not one of them.
     *
     * @param spec   the command (for the error)
     * @param option the option that gave the name, e.g. {@code --ia}
     * @param name   the IA name
     * @throws ParameterException when the name is not registered
     */
    public static void require(CommandSpec spec, String option, String name) {
        if (entry(name).isEmpty()) {
            String near = registered().stream().filter(n -> distance(n, name) <= 2).findFirst()
                    .map(n -> " (did you mean " + n + "?)").orElse("");
            throw new ParameterException(spec.commandLine(), option + " " + name + ": no IA of that name is "
                    + "registered" + near + "; the registered names are " + String.join(", ", registered())
                    + " (jdat info lists them; a dat.conf file adds more)");
        }
    }

    /** The edit distance of two names (insertions, deletions, substitutions and swaps of neighbours). */
    public static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /**
     * Fails with a usage error when the server address cannot be one of the IA's transport: a host address with
     * the in-JVM {@code mem} or the same-host {@code shm} provider (the user forgot {@code --ia tcp}), an shm
     * IA's directory without an shm IA, a {@code mem:NAME} without a mem IA. Transports other than jdat's three
     * are not judged.
     *
     * @param spec    the command (for the error)
     * @param name    the IA name (registered)
     * @param address the server address the command will connect to
     * @param text    the address as the user wrote it
     * @throws ParameterException when they do not fit
     */
    public static void requireAddressFits(CommandSpec spec, String name, SocketAddress address, String text) {
        String library = entry(name).map(RegistryEntry::library).orElse("");
        if (!List.of("mem", "tcp", "shm").contains(library)) {
            return;
        }
        String needed = address instanceof InetSocketAddress ? "tcp"
                : address instanceof UnixDomainSocketAddress ? "shm"
                : address instanceof MemAddress ? "mem" : library;
        if (needed.equals(library)) {
            return;
        }
        String what = switch (needed) {
            case "tcp" -> "a network address";
            case "shm" -> "the address of an shm IA (its directory)";
            default -> "the address of a mem IA (in this JVM)";
        };
        String ia = registered().stream().filter(n -> entry(n).map(RegistryEntry::library).orElse("").equals(needed))
                .findFirst().orElse(needed);
        throw new ParameterException(spec.commandLine(), text + " is " + what + ", which IA \"" + name + "\" ("
                + library + " provider) cannot reach: add --ia " + ia);
    }

    private static Optional<RegistryEntry> entry(String name) {
        return Registry.entries().stream().filter(e -> e.iaName().equals(name)).findFirst();
    }
}
