/**
 * jdat: the DAT (uDAPL 1.2) RDMA consumer API for Java, its provider-neutral core and the built-in
 * transports {@code mem} (one JVM), {@code shm} (processes on one host) and {@code tcp} (iWARP over TCP).
 *
 * <p>Exported: the consumer API ({@link io.jdat}: {@code dat_*} functions as methods of the handle types,
 * {@code dat_registry_*} as {@link io.jdat.Registry}) and the transport SPI ({@link io.jdat.spi}) a
 * transport in another module implements and {@code provides}. The core ({@code io.jdat.core}) and the
 * transports' packages ({@code io.jdat.mem}, {@code io.jdat.shm}, {@code io.jdat.tcp}) and their shared
 * scaffolding ({@code io.jdat.transport}) are not exported.
 *
 * <p>The {@code shm} transport maps files and calls {@code process_vm_readv}/{@code process_vm_writev}
 * through the FFM API: run with {@code --enable-native-access=io.jdat} on the module path (or
 * {@code ALL-UNNAMED} when jdat is on the class path); docs/module.md has both run modes.
 */
module io.jdat {
    // The per-IA JMX MBean of DTO counters (io.jdat.core.IaMBean).
    requires java.management;
    // JFR events of the data path (io.jdat.core.JfrEvents).
    requires jdk.jfr;
    // SO_PEERCRED: the shm listener checks the uid of the process that connects (io.jdat.shm.ShmPassive).
    requires jdk.net;

    exports io.jdat;
    exports io.jdat.spi;

    // The core finds a transport by the library name of a registry entry (io.jdat.core.CoreIa).
    uses io.jdat.spi.TransportProvider;

    // Keep in step with META-INF/services/io.jdat.spi.TransportProvider (read when jdat is on the class path).
    provides io.jdat.spi.TransportProvider with
            io.jdat.mem.MemTransportProvider,
            io.jdat.shm.ShmTransportProvider,
            io.jdat.tcp.TcpTransportProvider,
            // RDMA devices through libibverbs/librdmacm (not exported either)
            io.jdat.verbs.VerbsTransportProvider;
}
