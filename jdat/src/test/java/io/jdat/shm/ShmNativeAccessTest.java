package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14 item 7: under {@code --illegal-native-access=deny} (the JDK's announced future default) an shm IA
 * opened with {@code ExceptionInInitializerError} from {@code CrossMemory}. Now, without native access the
 * provider copies through shared memory (as where the kernel refuses cross-memory attach); with
 * {@code --enable-native-access=ALL-UNNAMED} it uses cross-memory attach as before. Both JVM settings run in
 * child JVMs: {@link ShmNativeAccessChecks}, then the smoke and data-path suites.
 */
class ShmNativeAccessTest {
    private static final Pattern SUMMARY = Pattern.compile("(?m)^SUMMARY found=(\\d+) succeeded=(\\d+) failed=(\\d+)");

    @ParameterizedTest(name = "native access {0}")
    @ValueSource(strings = {"denied", "enabled"})
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void shmWorksUnderIllegalNativeAccessDeny(String access) throws Exception {
        List<String> jvm = new ArrayList<>(List.of("--illegal-native-access=deny", "-Djdat.test.nativeAccess=" + access,
                "-D" + io.jdat.conformance.Transports.ONLY + "=shm"));
        if (access.equals("enabled")) {
            jvm.add("--enable-native-access=ALL-UNNAMED");
        }
        try (ChildJava child = ChildJava.start("native-access-" + access, List.of(), jvm,
                io.jdat.testing.net.ChildJvm.classPath(), Map.of(), ShmSuiteMain.class.getName(),
                List.of(ShmNativeAccessChecks.class.getName(), ShmSmokeTest.class.getName(),
                        io.jdat.conformance.DataPathTest.class.getName()))) {
            int exit = child.waitFor(Duration.ofMinutes(9));
            String out = child.output();
            assertTrue(Pattern.compile("(?m)^XMEM " + access.equals("enabled") + "$").matcher(out).find()
                    || !System.getProperty("os.name").startsWith("Linux"),
                    "cross-memory attach bound only with native access:\n" + out);
            Matcher m = SUMMARY.matcher(out);
            assertTrue(m.find(), "no summary:\n" + out);
            assertEquals("0", m.group(3), "failures:\n" + out);
            assertTrue(Integer.parseInt(m.group(2)) >= 3, out);
            assertEquals(0, exit, out);
        }
    }
}
