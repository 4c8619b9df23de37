package io.jdat.bench.tcp;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.Registry;
import io.jdat.RegistryEntry;

/** The IA the {@code tcp} benchmarks open: the tcp provider bound to 127.0.0.1, CRC off (the default). */
final class BenchIa {
    static final String NAME = "tcp-bench";

    private BenchIa() {
    }

    /** Registers {@link #NAME} (once per JVM) and returns it. */
    static synchronized String name() {
        try {
            Registry.addProvider(new RegistryEntry(NAME, 'u', 1, 2, true, false, "tcp", "jdat", 1, 0,
                    "127.0.0.1 " + System.getProperty("jdat.bench.tcpParams", ""), ""));
        } catch (DatException e) {
            if (e.type() != DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
        return NAME;
    }
}
