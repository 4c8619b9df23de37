package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.Registry;
import io.jdat.RegistryEntry;

/** Registry entries the {@code shm} tests open. */
public final class ShmTesting {
    /** The defaults: inline up to 16 KiB, cross-memory attach beyond. */
    public static final String SHM = "shm-test";
    /** No cross-memory attach: fragments through the ring, RDMA Reads through the staging area. */
    public static final String SHM_BOUNCE = "shm-test-bounce";
    /** Tiny rings and staging, small inline size, no cross-memory attach: everything is many pieces. */
    public static final String SHM_SMALL = "shm-test-small";
    /** The well-known name {@code jdat-test-named}: its address is {@code <base>/ia-jdat-test-named}. */
    public static final String SHM_NAMED = "shm-test-named";

    private ShmTesting() {
    }

    /** Adds the entries (again after a test reloaded the registry). */
    public static synchronized void register() {
        add(SHM, "");
        add(SHM_BOUNCE, "xmem=off");
        add(SHM_SMALL, "xmem=off ring=65536 inline=100 staging=4096");
        add(SHM_NAMED, "name=jdat-test-named");
    }

    private static void add(String name, String params) {
        try {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, "shm", "jdat", 1, 0, params, ""));
        } catch (DatException e) {
            if (e.type() != DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
    }
}
