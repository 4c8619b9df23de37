package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link SocketFd} (issue 14 item 8) in a child JVM as the unprivileged user {@code nobody} and under a low
 * descriptor limit: it reads {@code TCP_MAXSEG} of its own sockets as any user; with the descriptor table full it
 * still finds a socket near the last one it found (probing needs no descriptor), and when it has to walk
 * {@code /proc/self/fd} (no listing possible) it falls back to the MTU estimate instead of failing.
 */
class SocketFdChildTest {
    private static final Pattern MSS = Pattern.compile("MSS read=(-?\\d+) chosen=(\\d+)");
    private static final Pattern NEAR = Pattern.compile("NEAR chosen=(\\d+)");
    private static final Pattern FULL = Pattern.compile("FULL chosen=(\\d+) mulpdu=(\\d+) files=(\\d+)");

    private static List<String> run(List<String> prefix) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(Path.of("target", "classes").toAbsolutePath() + ":" + Path.of("target", "test-classes").toAbsolutePath());
        cmd.add(SocketFdMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null;) {
                out.add(l);
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child ended");
        assertEquals(0, p.exitValue(), "child exit: " + out);
        return out;
    }

    private static Matcher find(List<String> out, Pattern p) {
        for (String l : out) {
            Matcher m = p.matcher(l);
            if (m.matches()) {
                return m;
            }
        }
        throw new AssertionError("no line " + p + " in " + out);
    }

    @Test
    @DisplayName("as nobody with 64 descriptors: TCP_MAXSEG is read, also with the table full near the last one; else estimated")
    void unprivilegedUserAndLowDescriptorLimit() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "setpriv needs root");
        List<String> out = run(List.of("prlimit", "--nofile=64:64", "setpriv", "--reuid=65534", "--regid=65534",
                "--clear-groups", "--no-new-privs"));
        Matcher m = find(out, MSS);
        int read = Integer.parseInt(m.group(1));
        assertTrue(read > 1000, "TCP_MAXSEG read as nobody: " + out);
        assertEquals(read, Integer.parseInt(m.group(2)), "the read MSS is the one used");
        assertEquals(read, Integer.parseInt(find(out, NEAR).group(1)),
                "with the table full, the descriptor probed near the last lookup's: TCP_MAXSEG still read");
        Matcher f = find(out, FULL);
        int chosen = Integer.parseInt(f.group(1));
        assertTrue(chosen > 1000 && chosen != read, "with no descriptor free, the MTU estimate: " + out);
        assertEquals(TcpConfig.mulpduOfMss(chosen), Integer.parseInt(f.group(2)), "MULPDU from the estimate");
    }
}
