package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.testing.Pair;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Run by {@link ShmBaseDirectoryTest} in a child JVM whose default base directory (the system property
 * {@value ShmFiles#BASE_DIRECTORY_PROPERTY}) was squatted: another user owns it, or it has group/other
 * permissions. {@code jdat.test.ownShmDir} names an empty directory of this user's for {@code dir=}. Not a
 * test of the build by itself (its name does not end in Test; it is disabled without the property).
 */
@EnabledIfSystemProperty(named = "jdat.test.ownShmDir", matches = ".+")
class ShmSquattedBaseChecks {
    private static final String OWN = "shm-own-dir";

    private static Path squatted() {
        return ShmFiles.defaultBaseDirectory();
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void anIaWithItsOwnDirWorksAndNeverTouchesTheSquattedDefault() throws Exception {
        Path own = Path.of(System.getProperty("jdat.test.ownShmDir"));
        List<String> before = names(squatted());
        ShmTesting.add(OWN, "dir=" + own);
        try (Pair p = new Pair(OWN, null, 64).connect()) {
            ShmTesting.exchangeBothWays(p);
            Path address = ((UnixDomainSocketAddress) p.client.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress())
                    .getPath();
            assertEquals(own, address.getParent());
            assertEquals(own, ShmMemory.home().directory().getParent(), "the memory directory is in dir= too");
        }
        try (ShmMemory m = ShmMemory.allocate(4096)) {
            assertTrue(m.toString().contains(own.toString()), m.toString());
        }
        assertEquals(before, names(squatted()), "the squatted default base is not touched");
    }

    @Test
    void withoutDirTheOpenFailsNamingTheDirectoryAndTheFixAndLeavesNothing() throws Exception {
        ShmTesting.register();
        Path own = Path.of(System.getProperty("jdat.test.ownShmDir"));
        List<String> ownBefore = names(own);
        DatException e = assertThrows(DatException.class, () -> InterfaceAdapter.open(ShmTesting.SHM, 16, null));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type(), e.toString());
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype(), e.toString());
        String m = e.getMessage();
        assertTrue(m.contains("the shm directory " + squatted() + " "), m);
        assertTrue(m.contains("dir=PATH") && m.contains(ShmFiles.BASE_DIRECTORY_PROPERTY + "=PATH")
                && m.contains("remove it"), m);
        assertEquals(ownBefore, names(own), "a refused open creates nothing");
    }
}
