package io.jdat;

import io.jdat.core.DatConfParser;
import io.jdat.core.OpenIaCount;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The DAT registry: the IA names {@code dat_ia_open} can open (API.md §5.1, §5.15, §9; CONFORMANCE
 * REG-01..04, CFG-03/04, IAO-06/07/10). All methods are static and thread-safe.
 *
 * <p>Contents, in this order, one entry per IA name:
 * <ol>
 *   <li>the built-in entries of jdat's transports: {@code mem u1.2 threadsafe default mem jdat.1.0 "" ""}
 *       and {@code tcp u1.2 threadsafe nonshared tcp jdat.1.0 "" ""} (every interface; see
 *       {@code io.jdat.tcp.TcpTransportProvider} for its IA parameters);</li>
 *   <li>the registered lines of the static registry file (see {@link DatConfParser}): the file named by
 *       the system property {@value #PROPERTY_DAT_CONF}, else by the environment variable
 *       {@value #ENV_DAT_OVERRIDE}, else {@value #DEFAULT_DAT_CONF} if it exists. An empty property
 *       value means "no file"; an empty {@code DAT_OVERRIDE} counts as unset. A file line whose IA
 *       name is a built-in is ignored (built-ins win) with a warning;</li>
 *   <li>entries added at run time by {@link #addProvider(RegistryEntry)}.</li>
 * </ol>
 *
 * <p>A file chosen by the property or {@code DAT_OVERRIDE} that cannot be read makes
 * {@link #listProviders(int)} fail with {@code DAT_INTERNAL_ERROR}; the other entries stay usable
 * for {@link #lookup}. An unreadable default file is only reported in {@link #warnings()}.
 */
public final class Registry {
    /** System property naming the static registry file; wins over {@value #ENV_DAT_OVERRIDE}. */
    public static final String PROPERTY_DAT_CONF = "jdat.dat.conf";
    /** Environment variable naming an alternative static registry file (CFG-04). */
    public static final String ENV_DAT_OVERRIDE = "DAT_OVERRIDE";
    /** The static registry file read when neither the property nor the variable is set. */
    public static final String DEFAULT_DAT_CONF = "/etc/dat.conf";

    private static final List<RegistryEntry> BUILT_INS = List.of(
            new RegistryEntry("mem", 'u', 1, 2, true, true, "mem", "jdat", 1, 0, "", ""),
            new RegistryEntry("tcp", 'u', 1, 2, true, false, "tcp", "jdat", 1, 0, "", ""),
            new RegistryEntry("shm", 'u', 1, 2, true, false, "shm", "jdat", 1, 0, "", ""));

    private static final Object LOCK = new Object();

    /** Environment lookup; replaced by tests to exercise {@value #ENV_DAT_OVERRIDE}. */
    static volatile UnaryOperator<String> envLookup = System::getenv;
    /** The default file; replaced by tests. */
    static volatile Path defaultConfPath = Path.of(DEFAULT_DAT_CONF);

    // All guarded by LOCK.
    private static final Map<String, RegistryEntry> entries = new LinkedHashMap<>();
    private static final Map<String, Integer> openCount = new HashMap<>();
    /** {@link #acquire} and {@link #release} for the core, which {@code dat_ia_open} hands it (not public). */
    static final OpenIaCount OPEN_IAS = new OpenIaCount() {
        @Override
        public void acquire(String iaName) {
            Registry.acquire(iaName);
        }

        @Override
        public void release(String iaName) {
            Registry.release(iaName);
        }
    };
    private static List<String> warnings = List.of();
    private static String loadError;
    private static Path confFile;

    static {
        reload();
    }

    private Registry() {
    }

    /**
     * {@code dat_registry_list_providers}: the registered entries, in registry order (REG-01, REG-03:
     * listing never changes the registry).
     *
     * @param maxToReturn the capacity of the caller's list ({@code max_to_return})
     * @return all registered entries, never more than {@code maxToReturn}
     * @throws DatException {@code DAT_INVALID_PARAMETER}/{@code DAT_INVALID_ARG1} if
     *                      {@code maxToReturn} is negative or smaller than {@link #providerCount()}
     *                      (the C call then reports that count in {@code entries_returned});
     *                      {@code DAT_INTERNAL_ERROR} if the configured static registry file is
     *                      missing or unreadable (REG-02)
     */
    public static List<ProviderInfo> listProviders(int maxToReturn) {
        synchronized (LOCK) {
            if (maxToReturn < 0) {
                throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                        "max_to_return " + maxToReturn + " is negative");
            }
            if (loadError != null) {
                throw new DatException(DatReturnType.INTERNAL_ERROR, loadError);
            }
            if (maxToReturn < entries.size()) {
                throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                        "max_to_return " + maxToReturn + " is smaller than the " + entries.size()
                                + " registered providers");
            }
            List<ProviderInfo> list = new ArrayList<>(entries.size());
            for (RegistryEntry e : entries.values()) {
                list.add(e.toProviderInfo());
            }
            return List.copyOf(list);
        }
    }

    /**
     * The number of registered entries: what {@code dat_registry_list_providers} reports in
     * {@code entries_returned} when it fails with {@code DAT_INVALID_PARAMETER}.
     *
     * @return the number of entries
     */
    public static int providerCount() {
        synchronized (LOCK) {
            return entries.size();
        }
    }

    /** {@return every registered entry with every {@code dat.conf} field, in registry order (for tools)} */
    public static List<RegistryEntry> entries() {
        synchronized (LOCK) {
            return List.copyOf(entries.values());
        }
    }

    /**
     * The registry lookup of {@code dat_ia_open} ({@code dat_ia_openv}): the entry for an IA name that
     * satisfies the requested API version and thread safety (IAO-06, IAO-07, IAO-10). An entry
     * matches if its name and major version are equal, its minor version is at least the requested
     * one, and it is thread-safe when thread safety is requested; a thread-safe entry also satisfies
     * a non-thread-safe request. Versions compare as unsigned {@code DAT_UINT32}.
     *
     * @param iaName the IA name
     * @param major the provider major version
     * @param minor the provider minor version
     * @param threadSafe whether the thread-safe variant is asked for
     * @return the best matching entry
     * @throws DatException {@code DAT_INVALID_PARAMETER}/{@code DAT_INVALID_ARG1} for a null name or one
     *                      of {@value Dat#NAME_MAX_LENGTH} or more UTF-8 bytes;
     *                      {@code DAT_PROVIDER_NOT_FOUND} with {@code DAT_NAME_NOT_REGISTERED},
     *                      {@code DAT_MAJOR_NOT_FOUND}, {@code DAT_MINOR_NOT_FOUND} or
     *                      {@code DAT_THREAD_SAFETY_NOT_FOUND} when no entry matches
     */
    public static RegistryEntry lookup(String iaName, int major, int minor, boolean threadSafe) {
        checkNameArg(iaName);
        RegistryEntry e;
        synchronized (LOCK) {
            e = entries.get(iaName);
        }
        if (e == null) {
            throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "no provider registered as " + show(iaName));
        }
        if (e.apiMajor() != major) {
            throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                    show(iaName) + " implements API " + version(e.apiMajor(), e.apiMinor()) + ", not "
                            + version(major, minor));
        }
        if (Integer.compareUnsigned(e.apiMinor(), minor) < 0) {
            throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MINOR_NOT_FOUND,
                    show(iaName) + " implements API " + version(e.apiMajor(), e.apiMinor()) + ", older than "
                            + version(major, minor));
        }
        if (threadSafe && !e.threadSafe()) {
            throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.THREAD_SAFETY_NOT_FOUND,
                    show(iaName) + " is not thread-safe");
        }
        return e;
    }

    /**
     * {@code dat_registry_add_provider}: registers an entry under its IA name (appended to the
     * registry order). Lasts until {@link #removeProvider(String)} or {@link #reload()}.
     *
     * @param entry the entry
     * @throws DatException {@code DAT_INVALID_PARAMETER}/{@code DAT_INVALID_ARG1} for a null entry,
     *                      an invalid IA name (null, empty, {@value Dat#NAME_MAX_LENGTH} or more UTF-8
     *                      bytes, containing NUL), an API kind other than {@code 'u'}/{@code 'k'} or
     *                      a null string field; {@code DAT_PROVIDER_ALREADY_REGISTERED} if the IA name
     *                      is registered already (REG-04)
     */
    public static void addProvider(RegistryEntry entry) {
        if (entry == null) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, "entry is null");
        }
        if (!DatConfParser.isValidIaName(entry.iaName())) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "invalid IA name " + show(entry.iaName()));
        }
        if (entry.apiKind() != 'u' && entry.apiKind() != 'k') {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "API kind must be 'u' or 'k'");
        }
        if (entry.library() == null || entry.providerId() == null || entry.iaParams() == null
                || entry.platformParams() == null) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "null field in entry for " + show(entry.iaName()));
        }
        synchronized (LOCK) {
            if (entries.containsKey(entry.iaName())) {
                throw new DatException(DatReturnType.PROVIDER_ALREADY_REGISTERED,
                        show(entry.iaName()) + " is already registered");
            }
            entries.put(entry.iaName(), entry);
        }
    }

    /**
     * {@code dat_registry_remove_provider}: unregisters an IA name; IAs already open stay usable, but
     * removal is refused while any is open. Built-in names can be removed too ({@link #reload()}
     * restores them).
     *
     * @param iaName the IA name
     * @throws DatException {@code DAT_INVALID_PARAMETER}/{@code DAT_INVALID_ARG1} if the name is null
     *                      or not registered; {@code DAT_PROVIDER_IN_USE} while an IA of that name is
     *                      open (REG-04)
     */
    public static void removeProvider(String iaName) {
        if (iaName == null) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, "IA name is null");
        }
        synchronized (LOCK) {
            if (!entries.containsKey(iaName)) {
                throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                        show(iaName) + " is not registered");
            }
            int open = openCount.getOrDefault(iaName, 0);
            if (open > 0) {
                throw new DatException(DatReturnType.PROVIDER_IN_USE,
                        show(iaName) + " has " + open + " open IA(s)");
            }
            entries.remove(iaName);
        }
    }

    /**
     * Counts one more open IA of a registered name; {@code dat_ia_open} calls this once it has opened
     * the IA (with the name it looked up), so that {@code dat_registry_remove_provider} reports
     * {@code DAT_PROVIDER_IN_USE}. Not a consumer call: the core reaches it through {@link #OPEN_IAS}.
     *
     * @param iaName the IA name
     * @throws DatException {@code DAT_INVALID_PARAMETER}/{@code DAT_INVALID_ARG1} for a null or over-long
     *                      name; {@code DAT_PROVIDER_NOT_FOUND}/{@code DAT_NAME_NOT_REGISTERED} if the
     *                      name is not (or no longer) registered
     */
    static void acquire(String iaName) {
        checkNameArg(iaName);
        synchronized (LOCK) {
            if (!entries.containsKey(iaName)) {
                throw new DatException(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                        "no provider registered as " + show(iaName));
            }
            openCount.merge(iaName, 1, Integer::sum);
        }
    }

    /**
     * Counts one open IA of that name less; {@code dat_ia_close} calls this exactly once per successful
     * {@link #acquire(String)}. A name with no open IA (or null) is ignored. Not a consumer call (see {@link #OPEN_IAS}).
     *
     * @param iaName the IA name
     */
    static void release(String iaName) {
        if (iaName == null) {
            return;
        }
        synchronized (LOCK) {
            openCount.computeIfPresent(iaName, (k, v) -> v <= 1 ? null : v - 1);
        }
    }

    /**
     * The number of IAs of that name currently open (acquired and not released).
     *
     * @param iaName the IA name
     * @return the number of IAs of that name currently open (acquired and not released)
     */
    public static int openCount(String iaName) {
        synchronized (LOCK) {
            return iaName == null ? 0 : openCount.getOrDefault(iaName, 0);
        }
    }

    /**
     * Rebuilds the registry from the built-ins and the static registry file, re-reading the property,
     * {@value #ENV_DAT_OVERRIDE} and the file. Entries added or removed at run time are forgotten;
     * open-IA counts are kept. Meant for tests and tools.
     */
    public static void reload() {
        String property = System.getProperty(PROPERTY_DAT_CONF);
        String override = envLookup.apply(ENV_DAT_OVERRIDE);
        Path defaultPath = defaultConfPath;

        List<String> warn = new ArrayList<>();
        String error = null;
        Path file = null;
        List<RegistryEntry> fileEntries = List.of();
        String source = null;
        boolean required = true;
        if (property != null) {
            source = property.isEmpty() ? null : property;
        } else if (override != null && !override.isEmpty()) {
            source = override;
        } else if (defaultPath != null && Files.exists(defaultPath)) {
            source = defaultPath.toString();
            required = false;
        }
        if (source != null) {
            try {
                file = Path.of(source);
                DatConfParser.Result r = DatConfParser.parse(file);
                fileEntries = r.entries();
                for (String w : r.warnings()) {
                    warn.add(file + ": " + w);
                }
            } catch (IOException | InvalidPathException e) {
                String msg = "cannot read static registry " + show(source) + ": " + e;
                warn.add(msg);
                if (required) {
                    error = msg;
                }
            }
        }

        synchronized (LOCK) {
            entries.clear();
            for (RegistryEntry e : BUILT_INS) {
                entries.put(e.iaName(), e);
            }
            for (RegistryEntry e : fileEntries) {
                if (entries.putIfAbsent(e.iaName(), e) != null) {
                    warn.add(file + ": IA name " + show(e.iaName())
                            + " is a built-in jdat provider; the file entry is ignored");
                }
            }
            warnings = List.copyOf(warn);
            loadError = error;
            confFile = file;
        }
    }

    /**
     * Problems found by the last {@link #reload()}: skipped {@code dat.conf} lines (prefixed with the
     * file name), file entries shadowed by built-ins, an unreadable file.
     *
     * @return the problems, one line each; empty when there were none
     */
    public static List<String> warnings() {
        synchronized (LOCK) {
            return warnings;
        }
    }

    /** {@return the static registry file the last {@link #reload()} used (read or tried), if any} */
    public static Optional<Path> staticRegistryFile() {
        synchronized (LOCK) {
            return Optional.ofNullable(confFile);
        }
    }

    private static void checkNameArg(String iaName) {
        if (iaName == null) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, "IA name is null");
        }
        if (iaName.length() >= Dat.NAME_MAX_LENGTH
                || iaName.getBytes(StandardCharsets.UTF_8).length >= Dat.NAME_MAX_LENGTH) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "IA name longer than " + (Dat.NAME_MAX_LENGTH - 1) + " bytes");
        }
    }

    private static String version(int major, int minor) {
        return Integer.toUnsignedString(major) + "." + Integer.toUnsignedString(minor);
    }

    private static String show(String s) {
        if (s == null) {
            return "null";
        }
        String t = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            sb.append(c < 0x20 || c == 0x7F ? '?' : c);
        }
        return sb.append('"').toString();
    }
}
