package io.jdat.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The architecture rule of docs/architecture.md: the transports and their shared scaffolding depend on the
 * API and the SPI, never on the core (the core finds them by ServiceLoader).
 */
class TransportLayeringTest {
    private static final List<String> TRANSPORT_PACKAGES = List.of("mem", "shm", "tcp", "verbs", "transport");

    @Test
    void transportsDoNotReferToTheCore() throws IOException {
        Path root = Path.of("src/main/java/io/jdat");
        List<String> offenders = new ArrayList<>();
        int files = 0;
        for (String p : TRANSPORT_PACKAGES) {
            Path dir = root.resolve(p);
            assertTrue(Files.isDirectory(dir), dir + " exists");
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path f : s.filter(x -> x.toString().endsWith(".java")).toList()) {
                    files++;
                    String text = Files.readString(f);
                    if (text.contains("io.jdat.core.") || text.contains("import io.jdat.core")) {
                        offenders.add(root.relativize(f).toString());
                    }
                }
            }
        }
        assertTrue(files > 50, "read the transports' sources (" + files + " files)");
        assertEquals(List.of(), offenders, "transport sources that name io.jdat.core");
    }
}
