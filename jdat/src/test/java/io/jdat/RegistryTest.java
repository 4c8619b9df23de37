package io.jdat;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.RegistryEntry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** The registry is global state: every test restores the property and hooks and reloads. */
@Isolated
class RegistryTest {
    /** The examples of API.md §9, verbatim. */
    static final String SPEC_EXAMPLES = """
            OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "ib0 0" ""
            ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""
            ibd0 u1.2 nonthreadsafe default udapl_tavor.so.1 SUNW.1.0 "" "driver_name=tavor"
            """;

    static final ProviderInfo MEM = new ProviderInfo("mem", 1, 2, true);
    static final ProviderInfo TCP = new ProviderInfo("tcp", 1, 2, true);
    static final ProviderInfo SHM = new ProviderInfo("shm", 1, 2, true);

    @TempDir
    Path dir;

    private String savedProperty;
    private UnaryOperator<String> savedEnv;
    private Path savedDefault;

    @BeforeEach
    void isolate() {
        savedProperty = System.getProperty(Registry.PROPERTY_DAT_CONF);
        savedEnv = Registry.envLookup;
        savedDefault = Registry.defaultConfPath;
        Registry.envLookup = k -> null;
        Registry.defaultConfPath = dir.resolve("no-default-dat.conf");
        System.setProperty(Registry.PROPERTY_DAT_CONF, "");
        Registry.reload();
    }

    @AfterEach
    void restore() {
        if (savedProperty == null) {
            System.clearProperty(Registry.PROPERTY_DAT_CONF);
        } else {
            System.setProperty(Registry.PROPERTY_DAT_CONF, savedProperty);
        }
        Registry.envLookup = savedEnv;
        Registry.defaultConfPath = savedDefault;
        Registry.reload();
    }

    private Path write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private void useConf(String text) throws IOException {
        System.setProperty(Registry.PROPERTY_DAT_CONF, write("dat.conf", text).toString());
        Registry.reload();
    }

    private static DatException fails(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), e.getMessage());
        if (subtype != null) {
            assertEquals(subtype, e.subtype(), e.getMessage());
        }
        return e;
    }

    private static List<String> names() {
        return Registry.entries().stream().map(RegistryEntry::iaName).toList();
    }

    private static RegistryEntry entry(String name, int major, int minor, boolean threadSafe) {
        return new RegistryEntry(name, 'u', major, minor, threadSafe, true, "mem", "test", 1, 0, "", "");
    }

    @Test
    @DisplayName("REG-01 REG-03: with no dat.conf the registry holds the built-in mem and tcp providers")
    void builtInsOnly() {
        assertEquals(3, Registry.providerCount());
        assertEquals(List.of(MEM, TCP, SHM), Registry.listProviders(3));
        assertEquals(List.of(MEM, TCP, SHM), Registry.listProviders(100));
        assertEquals(new RegistryEntry("tcp", 'u', 1, 2, true, false, "tcp", "jdat", 1, 0, "", ""),
                Registry.lookup("tcp", 1, 2, false));
        assertEquals(new RegistryEntry("mem", 'u', 1, 2, true, true, "mem", "jdat", 1, 0, "", ""),
                Registry.lookup("mem", 1, 2, false));
        assertEquals(List.of(), Registry.warnings());
        assertTrue(Registry.staticRegistryFile().isEmpty());
    }

    @Test
    @DisplayName("REG-01 CFG-03 CFG-04: dat.conf entries follow the built-ins in file order")
    void listWithFile() throws IOException {
        useConf(SPEC_EXAMPLES);
        List<ProviderInfo> expected = List.of(MEM, TCP, SHM, new ProviderInfo("OpenIB-cma", 1, 2, false),
                new ProviderInfo("ofa-v2-ib0", 2, 0, false), new ProviderInfo("ibd0", 1, 2, false));
        assertEquals(6, Registry.providerCount());
        assertEquals(expected, Registry.listProviders(6));
        assertEquals(expected, Registry.listProviders(Integer.MAX_VALUE));
        assertEquals(dir.resolve("dat.conf"), Registry.staticRegistryFile().orElseThrow());
        assertEquals("driver_name=tavor", Registry.lookup("ibd0", 1, 2, false).platformParams());
        assertEquals("libdaplcma.so.1", Registry.lookup("OpenIB-cma", 1, 2, false).library());
    }

    @Test
    @DisplayName("REG-02: a list too small (or negative) fails with INVALID_PARAMETER; providerCount reports the number registered")
    void listTooSmall() throws IOException {
        useConf(SPEC_EXAMPLES);
        for (int max : new int[] {0, 1, 4}) {
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.listProviders(max));
            assertEquals(6, Registry.providerCount());
        }
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.listProviders(-1));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                () -> Registry.listProviders(Integer.MIN_VALUE));
        // With nothing registered, max_to_return 0 suffices.
        Registry.removeProvider("mem");
        Registry.removeProvider("tcp");
        Registry.removeProvider("shm");
        for (String n : List.of("OpenIB-cma", "ofa-v2-ib0", "ibd0")) {
            Registry.removeProvider(n);
        }
        assertEquals(List.of(), Registry.listProviders(0));
    }

    @Test
    @DisplayName("REG-02 CFG-04: a configured static registry that is missing or unreadable gives INTERNAL_ERROR")
    void missingStaticRegistry() {
        System.setProperty(Registry.PROPERTY_DAT_CONF, dir.resolve("missing.conf").toString());
        Registry.reload();
        fails(DatReturnType.INTERNAL_ERROR, DatReturnSubtype.NO_SUBTYPE, () -> Registry.listProviders(10));
        assertTrue(Registry.warnings().get(0).contains("missing.conf"), Registry.warnings().toString());
        // The built-ins stay usable for dat_ia_open.
        assertEquals("mem", Registry.lookup("mem", 1, 2, false).iaName());
        assertEquals(3, Registry.providerCount());
        // A directory is unreadable as a file.
        System.setProperty(Registry.PROPERTY_DAT_CONF, dir.toString());
        Registry.reload();
        fails(DatReturnType.INTERNAL_ERROR, null, () -> Registry.listProviders(10));
        // So is an invalid path.
        System.setProperty(Registry.PROPERTY_DAT_CONF, "bad\0path");
        Registry.reload();
        fails(DatReturnType.INTERNAL_ERROR, null, () -> Registry.listProviders(10));
        // Via DAT_OVERRIDE too.
        System.clearProperty(Registry.PROPERTY_DAT_CONF);
        Registry.envLookup = k -> k.equals("DAT_OVERRIDE") ? dir.resolve("gone.conf").toString() : null;
        Registry.reload();
        fails(DatReturnType.INTERNAL_ERROR, null, () -> Registry.listProviders(10));
        // Negative max_to_return is still INVALID_PARAMETER.
        fails(DatReturnType.INVALID_PARAMETER, null, () -> Registry.listProviders(-1));
    }

    @Test
    @DisplayName("REG-03: listing, failed listing and lookups never change the registry")
    void listingIsReadOnly() throws IOException {
        useConf(SPEC_EXAMPLES);
        List<RegistryEntry> before = Registry.entries();
        List<ProviderInfo> first = Registry.listProviders(6);
        for (int i = 0; i < 5; i++) {
            assertThrows(DatException.class, () -> Registry.listProviders(3));
            assertThrows(DatException.class, () -> Registry.lookup("nope", 1, 2, false));
            assertEquals(first, Registry.listProviders(6));
            Registry.lookup("OpenIB-cma", 1, 2, false);
        }
        assertEquals(before, Registry.entries());
        assertEquals(6, Registry.providerCount());
        assertThrows(UnsupportedOperationException.class, () -> first.add(MEM));
        assertThrows(UnsupportedOperationException.class, () -> Registry.entries().clear());
        assertEquals(6, Registry.providerCount());
    }

    @Test
    @DisplayName("REG-04: adding an IA name that is already registered gives PROVIDER_ALREADY_REGISTERED")
    void addDuplicate() throws IOException {
        useConf(SPEC_EXAMPLES);
        fails(DatReturnType.PROVIDER_ALREADY_REGISTERED, null, () -> Registry.addProvider(entry("mem", 1, 2, true)));
        fails(DatReturnType.PROVIDER_ALREADY_REGISTERED, null,
                () -> Registry.addProvider(entry("OpenIB-cma", 1, 2, false)));
        // Same name with another version or thread safety is still the same IA name.
        fails(DatReturnType.PROVIDER_ALREADY_REGISTERED, null,
                () -> Registry.addProvider(entry("OpenIB-cma", 2, 0, true)));
        RegistryEntry added = entry("added", 1, 2, false);
        Registry.addProvider(added);
        assertEquals(List.of("mem", "tcp", "shm", "OpenIB-cma", "ofa-v2-ib0", "ibd0", "added"), names());
        assertSame(added, Registry.lookup("added", 1, 2, false));
        fails(DatReturnType.PROVIDER_ALREADY_REGISTERED, null, () -> Registry.addProvider(entry("added", 1, 2, false)));
        assertEquals(7, Registry.listProviders(7).size());
        // reload() forgets run-time additions.
        Registry.reload();
        assertFalse(names().contains("added"));
    }

    @Test
    @DisplayName("REG-04 IAO-07: addProvider rejects null entries, bad names and bad fields with INVALID_PARAMETER")
    void addInvalid() {
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.addProvider(null));
        for (String bad : new String[] {null, "", "n".repeat(256), "é".repeat(128), "a\0b"}) {
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    () -> Registry.addProvider(entry(bad, 1, 2, true)));
        }
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.addProvider(
                new RegistryEntry("x", 'x', 1, 2, true, true, "mem", "p", 1, 0, "", "")));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.addProvider(
                new RegistryEntry("x", 'u', 1, 2, true, true, null, "p", 1, 0, "", "")));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.addProvider(
                new RegistryEntry("x", 'u', 1, 2, true, true, "mem", "p", 1, 0, "", null)));
        assertEquals(List.of("mem", "tcp", "shm"), names());
        Registry.addProvider(entry("n".repeat(255), 1, 2, true));
        assertEquals(4, Registry.providerCount());
    }

    @Test
    @DisplayName("REG-04: removing a provider with an open IA gives PROVIDER_IN_USE; unknown names INVALID_PARAMETER")
    void removeInUse() throws IOException {
        useConf(SPEC_EXAMPLES);
        Registry.acquire("OpenIB-cma");
        Registry.acquire("OpenIB-cma");
        assertEquals(2, Registry.openCount("OpenIB-cma"));
        fails(DatReturnType.PROVIDER_IN_USE, null, () -> Registry.removeProvider("OpenIB-cma"));
        Registry.release("OpenIB-cma");
        fails(DatReturnType.PROVIDER_IN_USE, null, () -> Registry.removeProvider("OpenIB-cma"));
        assertTrue(names().contains("OpenIB-cma"));
        Registry.release("OpenIB-cma");
        assertEquals(0, Registry.openCount("OpenIB-cma"));
        Registry.removeProvider("OpenIB-cma");
        assertFalse(names().contains("OpenIB-cma"));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                () -> Registry.lookup("OpenIB-cma", 1, 2, false));
        fails(DatReturnType.INVALID_PARAMETER, null, () -> Registry.removeProvider("OpenIB-cma"));
        fails(DatReturnType.INVALID_PARAMETER, null, () -> Registry.removeProvider("never-registered"));
        fails(DatReturnType.INVALID_PARAMETER, null, () -> Registry.removeProvider(null));
        // The removed name can be registered again.
        Registry.addProvider(entry("OpenIB-cma", 1, 2, false));
        // Built-ins can be removed; reload restores them.
        Registry.removeProvider("mem");
        fails(DatReturnType.PROVIDER_NOT_FOUND, null, () -> Registry.lookup("mem", 1, 2, false));
        Registry.reload();
        assertEquals("mem", Registry.lookup("mem", 1, 2, false).iaName());
    }

    @Test
    @DisplayName("REG-04: acquire needs a registered name; release is tolerant; open counts survive reload")
    void acquireRelease() {
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED, () -> Registry.acquire("nope"));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.acquire(null));
        assertEquals(0, Registry.openCount("nope"));
        Registry.release("nope");
        Registry.release(null);
        assertEquals(0, Registry.openCount(null));
        Registry.acquire("mem");
        Registry.reload();
        assertEquals(1, Registry.openCount("mem"));
        fails(DatReturnType.PROVIDER_IN_USE, null, () -> Registry.removeProvider("mem"));
        Registry.release("mem");
        Registry.release("mem");
        assertEquals(0, Registry.openCount("mem"));
        Registry.removeProvider("mem");
    }

    @Test
    @DisplayName("CFG-04: DAT_OVERRIDE selects the file; the jdat.dat.conf property wins over it")
    void overrideSelection() throws IOException {
        Path viaEnv = write("env.conf", "envia u1.2 threadsafe default mem jdat.1.0 \"\" \"\"\n");
        Path viaProp = write("prop.conf", "propia u1.2 threadsafe default mem jdat.1.0 \"\" \"\"\n");
        Path viaDefault = write("default.conf", "defia u1.2 threadsafe default mem jdat.1.0 \"\" \"\"\n");
        Map<String, String> env = Map.of("DAT_OVERRIDE", viaEnv.toString());
        Registry.envLookup = env::get;
        Registry.defaultConfPath = viaDefault;

        System.clearProperty(Registry.PROPERTY_DAT_CONF);
        Registry.reload();
        assertEquals(List.of("mem", "tcp", "shm", "envia"), names());
        assertEquals(viaEnv, Registry.staticRegistryFile().orElseThrow());

        System.setProperty(Registry.PROPERTY_DAT_CONF, viaProp.toString());
        Registry.reload();
        assertEquals(List.of("mem", "tcp", "shm", "propia"), names());

        // An empty property means "no file at all", even with DAT_OVERRIDE set.
        System.setProperty(Registry.PROPERTY_DAT_CONF, "");
        Registry.reload();
        assertEquals(List.of("mem", "tcp", "shm"), names());
        assertTrue(Registry.staticRegistryFile().isEmpty());
    }

    @Test
    @DisplayName("CFG-04: without property or DAT_OVERRIDE the default file is read if it exists")
    void defaultFile() throws IOException {
        System.clearProperty(Registry.PROPERTY_DAT_CONF);
        Path viaDefault = write("default.conf", SPEC_EXAMPLES);
        Registry.defaultConfPath = viaDefault;
        Registry.reload();
        assertEquals(List.of("mem", "tcp", "shm", "OpenIB-cma", "ofa-v2-ib0", "ibd0"), names());
        // An empty DAT_OVERRIDE counts as unset.
        Registry.envLookup = k -> "";
        Registry.reload();
        assertEquals(6, Registry.providerCount());
        // A missing default file is not an error.
        Registry.defaultConfPath = dir.resolve("absent.conf");
        Registry.reload();
        assertEquals(List.of(MEM, TCP, SHM), Registry.listProviders(3));
        assertEquals(List.of(), Registry.warnings());
        // A default that exists but cannot be read is only a warning.
        Registry.defaultConfPath = dir;
        Registry.reload();
        assertEquals(List.of(MEM, TCP, SHM), Registry.listProviders(3));
        assertEquals(1, Registry.warnings().size(), Registry.warnings().toString());
        assertEquals(Registry.DEFAULT_DAT_CONF, "/etc/dat.conf");
        assertEquals(Registry.ENV_DAT_OVERRIDE, "DAT_OVERRIDE");
    }

    @Test
    @DisplayName("CFG-03: the registry applies the dat.conf rules: skip malformed, u+default only, first wins, built-ins win")
    void fileRules() throws IOException {
        useConf("""
                # jdat test registry\r
                mem u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "ib0 0" ""\r
                seven u1.2 threadsafe default mem jdat.1.0 ""\r
                nine u1.2 threadsafe default mem jdat.1.0 "" "" extra\r
                open u1.2 threadsafe default mem jdat.1.0 "unterminated ""\r
                kern k1.2 threadsafe default mem jdat.1.0 "" ""\r
                nondef u1.2 threadsafe nondefault mem jdat.1.0 "" ""\r
                dup u1.2 threadsafe default first jdat.1.0 "" ""\r
                dup u1.2 threadsafe default second jdat.1.0 "" ""\r
                tcp0 u1.2 threadsafe default tcp jdat.1.0 "127.0.0.1 7471" ""\r
                """);
        assertEquals(List.of("mem", "tcp", "shm", "dup", "tcp0"), names());
        assertEquals("first", Registry.lookup("dup", 1, 2, false).library());
        assertEquals("127.0.0.1 7471", Registry.lookup("tcp0", 1, 2, false).iaParams());
        RegistryEntry mem = Registry.lookup("mem", 1, 2, true);
        assertEquals("mem", mem.library(), "the built-in mem must win over the file line");
        for (String skipped : List.of("seven", "nine", "open", "kern", "nondef")) {
            fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    () -> Registry.lookup(skipped, 1, 2, false));
        }
        List<String> w = Registry.warnings();
        assertEquals(7, w.size(), w.toString());
        String file = dir.resolve("dat.conf").toString();
        assertTrue(w.stream().allMatch(s -> s.startsWith(file + ": ")), w.toString());
        assertTrue(w.get(0).contains("line 3: expected 8 fields, found 7"), w.get(0));
        assertTrue(w.get(6).contains("\"mem\" is a built-in"), w.get(6));
    }

    @Test
    @DisplayName("CFG-01 CFG-03: hostile registry files never break the registry")
    void hostileFile() throws IOException {
        byte[] junk = new byte[64 * 1024];
        new java.util.Random(1).nextBytes(junk);
        Path f = dir.resolve("junk.conf");
        Files.write(f, junk);
        Files.writeString(f, "\nok u1.2 threadsafe default mem jdat.1.0 \"\" \"\"\n", java.nio.file.StandardOpenOption.APPEND);
        System.setProperty(Registry.PROPERTY_DAT_CONF, f.toString());
        assertDoesNotThrow(Registry::reload);
        assertTrue(names().contains("ok"));
        assertEquals(names().size(), Registry.listProviders(names().size()).size());
        useConf("x".repeat(1_000_000) + " u1.2 threadsafe default mem jdat.1.0 a b\n");
        assertEquals(List.of("mem", "tcp", "shm"), names());
        assertTrue(Registry.warnings().get(0).length() < 500);
    }

    @Test
    @DisplayName("IAO-06: an unknown IA name gives PROVIDER_NOT_FOUND (NAME_NOT_REGISTERED)")
    void unknownName() throws IOException {
        useConf(SPEC_EXAMPLES);
        for (String n : List.of("nope", "", "MEM", "mem ", "OpenIB", "n".repeat(255))) {
            fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    () -> Registry.lookup(n, 1, 2, false));
        }
    }

    @Test
    @DisplayName("IAO-07: a null or over-long (>= 256 chars) IA name gives INVALID_PARAMETER")
    void badName() throws IOException {
        String n255 = "n".repeat(255);
        useConf(n255 + " u1.2 threadsafe default mem jdat.1.0 \"\" \"\"\n");
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> Registry.lookup(null, 1, 2, false));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                () -> Registry.lookup(n255 + "n", 1, 2, false));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                () -> Registry.lookup("n".repeat(1_000_000), 1, 2, false));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                () -> Registry.lookup("é".repeat(128), 1, 2, false));
        assertEquals(n255, Registry.lookup(n255, 1, 2, false).iaName());
    }

    @Test
    @DisplayName("IAO-10: equal name and major, minor >= requested, thread safety equal (a threadsafe entry also serves a nonthreadsafe request)")
    void versionMatching() throws IOException {
        useConf(SPEC_EXAMPLES + "maxminor u1.4294967295 threadsafe default mem jdat.1.0 \"\" \"\"\n");
        // OpenIB-cma is u1.2 nonthreadsafe.
        assertEquals("OpenIB-cma", Registry.lookup("OpenIB-cma", 1, 2, false).iaName());
        assertEquals("OpenIB-cma", Registry.lookup("OpenIB-cma", 1, 0, false).iaName());
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MINOR_NOT_FOUND,
                () -> Registry.lookup("OpenIB-cma", 1, 3, false));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> Registry.lookup("OpenIB-cma", 2, 0, false));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> Registry.lookup("OpenIB-cma", 0, 2, false));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.THREAD_SAFETY_NOT_FOUND,
                () -> Registry.lookup("OpenIB-cma", 1, 2, true));
        // ofa-v2-ib0 is u2.0: a 1.2 consumer does not get it.
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> Registry.lookup("ofa-v2-ib0", 1, 2, false));
        assertEquals("ofa-v2-ib0", Registry.lookup("ofa-v2-ib0", 2, 0, false).iaName());
        // mem is u1.2 threadsafe: both kinds of request, and the dat_ia_open default.
        assertEquals("mem", Registry.lookup("mem", 1, 2, true).iaName());
        assertEquals("mem", Registry.lookup("mem", Dat.VERSION_MAJOR, Dat.VERSION_MINOR, Dat.THREADSAFE).iaName());
        // Versions are unsigned DAT_UINT32.
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MINOR_NOT_FOUND, () -> Registry.lookup("mem", 1, -1, false));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND, () -> Registry.lookup("mem", -1, 2, false));
        assertEquals(-1, Registry.lookup("maxminor", 1, -1, true).apiMinor());
        // Major is checked before minor, minor before thread safety.
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> Registry.lookup("OpenIB-cma", 3, 9, true));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MINOR_NOT_FOUND,
                () -> Registry.lookup("OpenIB-cma", 1, 9, true));
    }

    @Test
    @DisplayName("REG-01 REG-03 REG-04: concurrent list, lookup, add, remove, acquire and release stay consistent")
    void concurrency() throws InterruptedException {
        int threads = 8;
        int rounds = 500;
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String own = "t" + t;
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        Registry.addProvider(entry(own, 1, 2, true));
                        Registry.acquire(own);
                        Registry.acquire("mem");
                        assertThrows(DatException.class, () -> Registry.removeProvider(own));
                        assertEquals(own, Registry.lookup(own, 1, 2, false).iaName());
                        try {
                            int n = Registry.providerCount();
                            assertTrue(Registry.listProviders(n + threads).size() >= 2);
                        } catch (DatException e) {
                            throw new AssertionError(e);
                        }
                        Registry.release("mem");
                        Registry.release(own);
                        Registry.removeProvider(own);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertTrue(errors.isEmpty(), () -> errors.peek().toString());
        assertEquals(List.of("mem", "tcp", "shm"), names());
        assertEquals(0, Registry.openCount("mem"));
        assertNull(Registry.entries().stream().filter(e -> e.iaName().startsWith("t") && !e.iaName().equals("tcp")).findAny().orElse(null));
    }
}
