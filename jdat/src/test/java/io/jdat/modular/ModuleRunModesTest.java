package io.jdat.modular;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Dat;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * jdat's two run modes (docs/module.md), each in a child JVM running {@link ConsumerMain} with
 * {@code --illegal-native-access=deny}: jdat as the named module {@code io.jdat} on the module path with
 * {@code --enable-native-access=io.jdat}, and jdat on the class path with {@code --enable-native-access=ALL-UNNAMED}
 * (how jdat-tools.jar and benchmarks.jar run).
 */
class ModuleRunModesTest {
    @Test
    @DisplayName("IAO-01 SND-09: on the module path io.jdat exports io.jdat and io.jdat.spi only, the core is closed,"
            + " Registry.acquire is not public, the transports are found through `provides`, and with"
            + " --enable-native-access=io.jdat a 64 KiB Send works on mem, shm and tcp under"
            + " --illegal-native-access=deny")
    void modulePath() throws Exception {
        Map<String, String> out = run(List.of("--module-path", location(Dat.class), "--add-modules", "io.jdat",
                "--enable-native-access=io.jdat", "--illegal-native-access=deny", "-cp", location(ConsumerMain.class)));
        assertEquals("io.jdat", out.get("module"));
        assertEquals("io.jdat,io.jdat.spi", out.get("exports"));
        assertEquals("true", out.get("native"), "native access enabled for io.jdat");
        assertEquals("closed", out.get("core"), "io.jdat.core is not exported");
        assertEquals("hidden", out.get("acquire"));
        assertSends(out);
    }

    @Test
    @DisplayName("IAO-01 SND-09: on the class path (the unnamed module, as the tools' and benchmarks' jars run) the"
            + " transports are found through META-INF/services and with --enable-native-access=ALL-UNNAMED a 64 KiB"
            + " Send works on mem, shm and tcp under --illegal-native-access=deny")
    void classPath() throws Exception {
        Map<String, String> out = run(List.of("--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny",
                "-cp", location(Dat.class) + File.pathSeparator + location(ConsumerMain.class)));
        assertEquals("unnamed", out.get("module"));
        assertEquals("true", out.get("native"), "native access enabled for the class path");
        assertEquals("open", out.get("core"), "nothing is encapsulated on the class path");
        assertEquals("hidden", out.get("acquire"));
        assertSends(out);
    }

    @Test
    @DisplayName("on the module path, --enable-native-access=ALL-UNNAMED does not reach io.jdat: its native access"
            + " is off (the flag must name the module)")
    void modulePathNeedsTheModuleName() throws Exception {
        Map<String, String> out = run(List.of("--module-path", location(Dat.class), "--add-modules", "io.jdat",
                "--enable-native-access=ALL-UNNAMED", "-cp", location(ConsumerMain.class)));
        assertEquals("io.jdat", out.get("module"));
        assertEquals("false", out.get("native"));
    }

    private static void assertSends(Map<String, String> out) {
        for (String ia : new String[] {"mem", "module-test-shm", "module-test-tcp"}) {
            assertEquals("ok", out.get("send." + ia), "a 64 KiB Send over " + ia);
        }
    }

    /** Runs {@link ConsumerMain} with {@code options} and returns its {@code key=value} lines. */
    private static Map<String, String> run(List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.add(ConsumerMain.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] bytes = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child exits");
            String text = new String(bytes, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), () -> String.join(" ", command) + "\n" + text);
            Map<String, String> out = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    out.put(line.substring(0, eq), line.substring(eq + 1).strip());
                }
            }
            assertTrue(text.contains("done"), () -> String.join(" ", command) + "\n" + text);
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
