package io.jdat.tcp;

import io.jdat.Registry;
import io.jdat.RegistryEntry;

/** Registry entries the {@code tcp} tests open: loopback IAs with and without CRC, with tiny FPDUs. */
public final class TcpTesting {
    /** Loopback, the defaults. */
    public static final String LO = "tcp-test";
    /** Loopback with CRC32c. */
    public static final String LO_CRC = "tcp-test-crc";
    /** Loopback with CRC and 100-byte DDP segments: every message is many FPDUs. */
    public static final String LO_SMALL = "tcp-test-small";
    /** Loopback, MPA revision 1 (no IRD/ORD block, no RTR). */
    public static final String LO_REV1 = "tcp-test-rev1";

    private TcpTesting() {
    }

    /** Adds the entries (again after a test reloaded the registry). */
    public static synchronized void register() {
        add(LO, "127.0.0.1");
        add(LO_CRC, "127.0.0.1 crc=on");
        add(LO_SMALL, "127.0.0.1 crc=on mulpdu=100");
        add(LO_REV1, "127.0.0.1 rev=1");
    }

    private static void add(String name, String params) {
        try {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, "tcp", "jdat", 1, 0, params, ""));
        } catch (io.jdat.DatException e) {
            if (e.type() != io.jdat.DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
    }
}
