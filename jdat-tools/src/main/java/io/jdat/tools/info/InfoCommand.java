package io.jdat.tools.info;

import io.jdat.DatException;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.ProviderAttr;
import io.jdat.ProviderInfo;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.spi.TransportProvider;
import io.jdat.tools.cli.IaNames;
import io.jdat.tools.cli.VersionProvider;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jdat info}: lists the DAT registry like {@code fi_info} lists libfabric providers: every IA name
 * with its API version and thread safety, and the registry entry's library and parameters; with {@code -v}
 * or {@code --ia NAME} also opens the IA(s) and prints every {@code DAT_IA_ATTR} and
 * {@code DAT_PROVIDER_ATTR} field.
 */
@Command(name = "info", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Lists the DAT registry (IA names); -v or --ia NAME also prints IA and provider attributes.",
        sortOptions = false)
public final class InfoCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--conf", paramLabel = "FILE",
            description = "Read this static registry file (dat.conf) instead of the default one.")
    private Path conf;

    @Option(names = {"-v", "--verbose"},
            description = "Open every IA served by a jdat transport and print all its attributes.")
    private boolean verbose;

    @Option(names = "--ia", paramLabel = "NAME", description = "Show only this IA, and open it to print all its "
            + "attributes.")
    private String ia;

    /** Creates the command (picocli instantiates it). */
    public InfoCommand() {
    }

    @Override
    public Integer call() {
        String previous = System.getProperty(Registry.PROPERTY_DAT_CONF);
        if (conf != null) {
            System.setProperty(Registry.PROPERTY_DAT_CONF, conf.toString());
            Registry.reload();
        }
        try {
            return list(spec.commandLine().getOut());
        } finally {
            if (conf != null) {
                if (previous == null) {
                    System.clearProperty(Registry.PROPERTY_DAT_CONF);
                } else {
                    System.setProperty(Registry.PROPERTY_DAT_CONF, previous);
                }
                Registry.reload();
            }
        }
    }

    private int list(PrintWriter out) {
        List<ProviderInfo> providers = Registry.listProviders(Registry.providerCount());
        if (ia != null) {
            IaNames.require(spec, "--ia", ia);
        }
        Map<String, RegistryEntry> entries = new HashMap<>();
        for (RegistryEntry e : Registry.entries()) {
            entries.put(e.iaName(), e);
        }
        Set<String> transports = transports();
        out.println("DAT registry: " + providers.size() + " IA name(s); static registry file: "
                + Registry.staticRegistryFile().map(Path::toString).orElse("none")
                + "; jdat transports: " + String.join(", ", transports));
        for (String w : Registry.warnings()) {
            out.println("warning: " + w);
        }
        int rc = 0;
        for (ProviderInfo p : providers) {
            if (ia != null && !ia.equals(p.iaName())) {
                continue;
            }
            RegistryEntry e = entries.get(p.iaName());
            out.println();
            printEntry(out, p, e, transports);
            if (ia != null || verbose && e != null && transports.contains(e.library())) {
                rc |= printAttributes(out, p.iaName());
            }
        }
        out.flush();
        return rc;
    }

    private static void printEntry(PrintWriter out, ProviderInfo p, RegistryEntry e, Set<String> transports) {
        out.println(p.iaName());
        out.println("    api version: " + (e == null ? "u" : String.valueOf(e.apiKind()))
                + Integer.toUnsignedString(p.daplVersionMajor()) + "."
                + Integer.toUnsignedString(p.daplVersionMinor()));
        out.println("    thread safe: " + (p.threadSafe() ? "yes" : "no"));
        if (e == null) {
            return;
        }
        out.println("    default: " + (e.isDefault() ? "yes" : "no"));
        boolean own = transports.contains(e.library());
        out.println("    library: " + e.library()
                + (own ? " (jdat transport)" : " (not a jdat transport: jdat cannot open it)"));
        String why = own ? unavailableReason(e.library()) : null;
        if (why != null) {
            out.println("    unavailable: " + why);
        }
        out.println("    provider: " + e.providerId() + " " + Integer.toUnsignedString(e.providerMajor()) + "."
                + Integer.toUnsignedString(e.providerMinor()));
        out.println("    ia params: " + quoted(e.iaParams()));
        out.println("    platform params: " + quoted(e.platformParams()));
    }

    /** Opens the IA, prints its attributes, closes it; returns 1 (after printing the error) if it fails. */
    private int printAttributes(PrintWriter out, String name) {
        InterfaceAdapter opened;
        try {
            opened = InterfaceAdapter.open(name, 8, null);
        } catch (DatException e) {
            if (ia != null) {
                throw e;
            }
            out.println("    cannot open: " + e.getMessage());
            return 1;
        }
        try (InterfaceAdapter a = opened) {
            InterfaceAdapter.QueryResult q = a.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL);
            out.println("    ia_attr:");
            AttrPrinter.print(out, "        ", q.iaAttr());
            out.println("    provider_attr:");
            AttrPrinter.print(out, "        ", q.providerAttr());
        }
        return 0;
    }

    /** The library names of the transports jdat finds on the class path. */
    private static Set<String> transports() {
        Set<String> names = new TreeSet<>();
        for (TransportProvider t : ServiceLoader.load(TransportProvider.class)) {
            names.add(t.name());
        }
        return names;
    }

    /** Why the transport named {@code library} cannot open IAs here (e.g. verbs without a device), or null. */
    private static String unavailableReason(String library) {
        for (TransportProvider t : ServiceLoader.load(TransportProvider.class)) {
            if (t.name().equals(library)) {
                return t.unavailableReason();
            }
        }
        return null;
    }

    private static String quoted(String s) {
        return s.isEmpty() ? "(none)" : "\"" + s + "\"";
    }
}
