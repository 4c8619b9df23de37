package io.jdat.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command that runs a child JVM as a user runs jdat: under {@code ulimit -n}, and as {@code nobody} when the
 * tests run as root (CI), so that what touches fds and permissions is tested without privileges.
 */
public final class LimitedChild {
    private LimitedChild() {
    }

    /**
     * {@code bash -c 'ulimit -n NOFILE && exec ...'}, then {@code setpriv} to uid/gid 65534 when this JVM is root
     * and {@code unprivileged}, then {@code java} with native access, a small stack, {@code classpath} and
     * {@code mainAndArgs}.
     *
     * @param nofile       the child's fd limit
     * @param unprivileged run as {@code nobody} when this JVM is root
     * @param classpath    the child's class path (readable by {@code nobody})
     * @param mainAndArgs  the main class's name and its arguments
     * @return the command
     * @throws IOException if {@code /proc/self/status} cannot be read
     */
    public static List<String> command(int nofile, boolean unprivileged, String classpath, String... mainAndArgs)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> c = new ArrayList<>(List.of("bash", "-c", "ulimit -n " + nofile + " && exec \"$@\"", "bash"));
        if (unprivileged && isRoot()) {
            c.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"));
        }
        c.addAll(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xss512k", "-cp", classpath));
        c.addAll(List.of(mainAndArgs));
        return c;
    }

    /** {@return whether this JVM runs as root} (the real uid of {@code /proc/self/status})
     * @throws IOException if the file cannot be read */
    public static boolean isRoot() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("Uid:")) {
                return l.split("\\s+")[1].equals("0");
            }
        }
        return false;
    }
}
