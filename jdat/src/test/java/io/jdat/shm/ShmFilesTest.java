package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.testing.net.ChildJvm;

/** {@link ShmFiles}: permissions, refusal of unsafe directories, instance life, stale cleanup after SIGKILL. */
class ShmFilesTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Pattern READY = Pattern.compile("READY dir=(.+)");

    @TempDir
    Path tmp;

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void createsOwnerOnlyDirectoryAndFiles() throws Exception {
        Path base = tmp.resolve("shm");
        ShmFiles files = ShmFiles.open(base);
        assertEquals(base, files.baseDirectory());
        assertEquals("rwx------", mode(base));
        try (ShmFiles.Instance ia = files.createInstance()) {
            assertEquals("ia-" + ia.id(), ia.directory().getFileName().toString());
            assertTrue(ia.id().startsWith(ProcessHandle.current().pid() + "-"));
            assertEquals("rwx------", mode(ia.directory()));
            assertEquals("rw-------", mode(ia.directory().resolve(ShmFiles.LOCK_FILE)));
            try (FileChannel ch = ia.createFile("ring", 65536)) {
                assertEquals(65536, ch.size());
            }
            assertEquals("rw-------", mode(ia.path("ring")));
            assertThrows(DatException.class, () -> ia.createFile("ring", 1), "CREATE_NEW");
            assertThrows(IllegalArgumentException.class, () -> ia.path("../x"));
            assertThrows(IllegalArgumentException.class, () -> ia.path(ShmFiles.LOCK_FILE));
            assertEquals(0, files.cleanStale(), "a live instance of this JVM is never removed");
            assertTrue(Files.exists(ia.path("ring")));
            // a second open of the same base accepts it and leaves the live instance alone
            ShmFiles.open(base);
            assertTrue(Files.exists(ia.path("ring")));
            ia.close();
            assertFalse(Files.exists(ia.directory()));
            assertThrows(IllegalStateException.class, () -> ia.createFile("x", 1));
        }
        try (var s = Files.list(base)) {
            assertEquals(0, s.count());
        }
    }

    @Test
    void defaultBaseIsPerUserInDevShmOrTmpdir() {
        Path d = ShmFiles.defaultBaseDirectory();
        if (System.getProperty(ShmFiles.BASE_DIRECTORY_PROPERTY) == null) {
            Path shm = Path.of("/dev/shm");
            Path expected = Files.isDirectory(shm) && Files.isWritable(shm) ? shm
                    : Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
            assertEquals(expected, d.getParent());
            assertEquals("jdat-shm-" + ShmFiles.currentUid(), d.getFileName().toString());
        }
    }

    @Test
    void refusesLooseForeignOrFakeDirectories() throws Exception {
        Path loose = Files.createDirectory(tmp.resolve("loose"));
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rwxr-xr-x"));
        DatException e = assertThrows(DatException.class, () -> ShmFiles.open(loose));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
        assertTrue(e.getMessage().contains("rwxr-xr-x"), e.getMessage());

        Path notDir = Files.createFile(tmp.resolve("file"));
        assertEquals(DatReturnType.INVALID_PARAMETER, assertThrows(DatException.class, () -> ShmFiles.open(notDir)).type());

        Path target = Files.createDirectory(tmp.resolve("target"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), target);
        e = assertThrows(DatException.class, () -> ShmFiles.open(link));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());

        if (ShmFiles.currentUid() == 0) {   // root can give a directory away
            Path foreign = Files.createDirectory(tmp.resolve("foreign"));
            Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
            Files.setAttribute(foreign, "unix:uid", 65534);
            e = assertThrows(DatException.class, () -> ShmFiles.open(foreign));
            assertTrue(e.getMessage().contains("owned by"), e.getMessage());
        }
    }

    /**
     * Issue 14 item 1: the uid is this process's, not that of the root-owned {@code /proc/self} link (which made
     * every process believe it was root). Meaningful as a non-root user: {@link ShmUnprivilegedTest} runs it so.
     */
    @Test
    void currentUidIsThisProcesssUid() throws Exception {
        Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
        String out = new String(id.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip();
        assertEquals(0, id.waitFor());
        assertEquals(Long.parseLong(out), ShmFiles.currentUid());
        assertEquals("jdat-shm-" + out, ShmFiles.defaultBaseDirectory().getFileName().toString(),
                "the default base is named after the real uid");
    }

    /**
     * Issue 14 items 1 and 2: a base directory of another user is refused with {@code DAT_INVALID_PARAMETER}
     * ({@code DAT_INVALID_ARG1}) and a message naming it and the fix. As root the test gives a directory to uid
     * 65534; as another user it uses the root-owned directory of the system property
     * {@code jdat.test.foreignShmDir} ({@link ShmUnprivilegedTest} sets it), else {@code /}.
     */
    @Test
    void refusesAnotherUsersDirectoryNamingTheFix() throws Exception {
        Path foreign;
        if (ShmFiles.currentUid() == 0) {
            foreign = Files.createDirectory(tmp.resolve("squatted"));
            Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));
            Files.setAttribute(foreign, "unix:uid", 65534);
        } else {
            foreign = Path.of(System.getProperty("jdat.test.foreignShmDir", "/"));
            assertNotEquals(ShmFiles.currentUid(), ((Number) Files.getAttribute(foreign, "unix:uid")).longValue());
        }
        DatException e = assertThrows(DatException.class, () -> ShmFiles.open(foreign));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertEquals(DatReturnSubtype.INVALID_ARG1, e.subtype());
        String m = e.getMessage();
        assertTrue(m.contains(foreign.toAbsolutePath().normalize().toString()), m);
        assertTrue(m.contains("is owned by") && m.contains("(uid " + ShmFiles.currentUid() + ")"), m);
        assertTrue(m.contains("remove it") && m.contains("dir=PATH")
                && m.contains(ShmFiles.BASE_DIRECTORY_PROPERTY + "=PATH"), m);
    }

    @Test
    void removesFilesOfKilledInstancesNotOfLiveOnes() throws Exception {
        Path base = tmp.resolve("shm");
        ShmFiles.open(base);
        try (ChildJvm dead = ChildJvm.start("shm-dead", ShmFilesPeerMain.class, base.toString());
                ChildJvm live = ChildJvm.start("shm-live", ShmFilesPeerMain.class, base.toString())) {
            Path deadDir = Path.of(dead.awaitLine(READY, WAIT).group(1));
            Path liveDir = Path.of(live.awaitLine(READY, WAIT).group(1));
            assertNotEquals(deadDir, liveDir);
            assertTrue(Files.exists(deadDir.resolve("ring")));
            dead.kill();
            assertEquals(137, dead.waitFor(WAIT));
            assertTrue(Files.exists(deadDir.resolve("ring")), "SIGKILL leaves the files behind");

            ShmFiles files = ShmFiles.open(base);   // the next open cleans up
            assertFalse(Files.exists(deadDir), "the killed child's files are removed");
            assertTrue(Files.exists(liveDir.resolve("ring")), "the live child's files stay");
            assertEquals(0, files.cleanStale());

            live.writeLine("close");
            live.awaitLine(l -> l.equals("CLOSED"), WAIT);
            assertFalse(Files.exists(liveDir), "close removes the instance's files");
        }
    }

    @Test
    void abandonedCreationsAreRemovedAfterTheGracePeriod() throws Exception {
        Path base = tmp.resolve("shm");
        ShmFiles files = ShmFiles.open(base);
        Path fresh = Files.createDirectory(base.resolve(ShmFiles.NEW_PREFIX + "1-fresh"));
        Path old = Files.createDirectory(base.resolve(ShmFiles.NEW_PREFIX + "1-old"));
        Files.createFile(old.resolve(ShmFiles.LOCK_FILE));
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minusSeconds(60)));
        Path noLock = Files.createDirectory(base.resolve(ShmFiles.INSTANCE_PREFIX + "1-nolock"));
        Files.createFile(noLock.resolve("ring"));
        Path other = Files.createDirectory(base.resolve("unrelated"));
        assertEquals(2, files.cleanStale());
        assertTrue(Files.exists(fresh), "a creation in progress is left alone");
        assertFalse(Files.exists(old));
        assertFalse(Files.exists(noLock));
        assertTrue(Files.exists(other), "names outside the layout are never touched");
    }
}
