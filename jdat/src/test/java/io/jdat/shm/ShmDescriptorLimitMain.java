package io.jdat.shm;

import io.jdat.CloseFlags;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.InterfaceAdapter;
import io.jdat.testing.Pair;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Run by {@link ShmBaseDirectoryTest} in a child JVM under a low {@code ulimit -n} (and {@code ulimit -l 0}),
 * with its base directory in the system property {@value ShmFiles#BASE_DIRECTORY_PROPERTY}: opens {@code shm}
 * IAs until the descriptors run out, closes three, takes every descriptor left, then gives them back one at a
 * time and tries to open an IA after each, so that an open fails at each of its steps that needs a descriptor
 * (the lock file, the progress thread's selector...). Every failure must be a {@link DatException}
 * ({@code DAT_INSUFFICIENT_RESOURCES}, IAO-08) that leaves no instance directory behind; after all IAs close
 * (IAC-07: no leak), only the process's memory directory remains, and an IA connects and moves data again.
 * Prints {@code RESULT ok ...} or {@code RESULT fail: <why>}.
 */
public final class ShmDescriptorLimitMain {
    private static String lastRefusal;
    private ShmDescriptorLimitMain() {
    }

    /** Runs the check; see the class comment. */
    public static void main(String[] args) throws Exception {
        String result;
        try {
            result = "ok " + run();
        } catch (Throwable t) {
            result = "fail: " + t;
            t.printStackTrace(System.out);
        }
        System.out.println("RESULT " + result);
        System.out.flush();
        System.exit(0);
    }

    private static String run() throws Exception {
        ShmTesting.register();
        Path base = ShmFiles.defaultBaseDirectory();
        int loaded = loadAllClasses();
        // warm up (classes loaded, the memory directory made) while descriptors are plenty
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect()) {
            ShmTesting.exchangeBothWays(p);
        }
        List<InterfaceAdapter> open = new ArrayList<>();
        List<FileChannel> padding = new ArrayList<>();
        TreeSet<String> refusals = new TreeSet<>();
        int failures = 0;
        try {
            while (true) {   // until the descriptors run out
                InterfaceAdapter ia = tryOpen(refusals);
                if (ia == null) {
                    failures++;
                    break;
                }
                open.add(ia);
                if (open.size() > 5000) {
                    throw new AssertionError("5000 IAs opened: is there a descriptor limit?");
                }
            }
            for (int i = 0; i < 3 && !open.isEmpty(); i++) {   // free the descriptors of a few IAs...
                open.removeLast().close(CloseFlags.ABRUPT);
            }
            while (true) {   // ...and take every descriptor left
                try {
                    padding.add(FileChannel.open(Path.of("/dev/null")));
                } catch (IOException e) {
                    break;
                }
            }
            while (!padding.isEmpty()) {    // one more descriptor at a time: a refusal at every step of an open
                padding.removeLast().close();
                InterfaceAdapter ia = tryOpen(refusals);
                if (ia == null) {
                    failures++;
                    checkInstances(base, open.size(), "after refusal " + failures + " (" + lastRefusal + ")");
                } else {
                    open.add(ia);
                }
            }
        } finally {
            for (FileChannel c : padding) {
                c.close();
            }
            for (InterfaceAdapter ia : open) {
                ia.close(CloseFlags.ABRUPT);
            }
        }
        int opened = open.size();
        open.clear();
        checkInstances(base, 0, "after every IA closed");
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect()) {
            ShmTesting.exchangeBothWays(p);
        }
        return "opened=" + opened + " refusals=" + failures + " messages=" + refusals.size() + " classes=" + loaded;
    }

    /**
     * Loads (without initializing) every class of the library and of these tests: from a directory of class
     * files each would need a descriptor of its own later, when there is none (a jar, opened once, would not).
     */
    private static int loadAllClasses() throws Exception {
        int n = 0;
        for (Class<?> anchor : List.of(ShmFiles.class, ShmDescriptorLimitMain.class)) {
            Path root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (var files = Files.walk(root)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String name = root.relativize(f).toString();
                    if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
                        Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false,
                                anchor.getClassLoader());
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** Opens an IA; null after a refusal that is a DatException INSUFFICIENT_RESOURCES (else throws). */
    private static InterfaceAdapter tryOpen(TreeSet<String> refusals) {
        try {
            return InterfaceAdapter.open(ShmTesting.SHM, 16, null);
        } catch (DatException e) {
            if (e.type() != DatReturnType.INSUFFICIENT_RESOURCES) {
                throw new AssertionError("refused with " + e.type() + ", not INSUFFICIENT_RESOURCES", e);
            }
            refusals.add(e.getMessage().replaceAll("[0-9a-f]{16}|\\d+", "#"));
            lastRefusal = e.getMessage();
            return null;
        } catch (RuntimeException | Error e) {
            throw new AssertionError("an IA open under a descriptor limit failed with " + e
                    + ", not a DatException", e);
        }
    }

    /** Checks that {@code base} holds the directories of {@code open} IAs plus the memory directory, nothing else. */
    private static void checkInstances(Path base, int open, String when) throws IOException {
        // java.io.File.list needs one descriptor; Files.newDirectoryStream takes two (a secure directory stream)
        String[] listed = base.toFile().list();
        if (listed == null) {
            throw new AssertionError(when + ": cannot list " + base + " (the refused open kept a descriptor?)");
        }
        List<String> names = List.of(listed);
        long instances = names.stream().filter(n -> n.startsWith(ShmFiles.INSTANCE_PREFIX)).count();
        long creating = names.stream().filter(n -> n.startsWith(ShmFiles.NEW_PREFIX)).count();
        if (instances != open + 1 || creating != 0) {
            throw new AssertionError(when + ": " + open + " IAs open (+1 memory directory) but " + base
                    + " holds " + names);
        }
    }
}
