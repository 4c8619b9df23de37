package io.jdat.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import io.jdat.spi.Transport;
import io.jdat.transport.NamedTransportProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The {@code verbs} transport: DAT on RDMA hardware (InfiniBand, RoCE, iWARP NICs, and the kernel's soft
 * devices {@code rdma_rxe} and {@code siw}) through {@code libibverbs} and {@code librdmacm}, in pure Java.
 * An IA is the RDMA device that owns an address, named in dat.conf in DAPL's style (see {@link VerbsConfig}):
 * <pre>
 *   ofa-rxe0 u1.2 threadsafe default verbs jdat.1.0 "eth0 0" ""
 * </pre>
 * An IA address is an {@link java.net.InetSocketAddress} (IPv4; its port is ignored); a connection
 * qualifier is an rdma_cm port (1..65535). When the libraries or a device are missing the provider still
 * registers; {@link #unavailableReason()} says why, and {@code dat_ia_open} fails with
 * {@code DAT_INSUFFICIENT_RESOURCES}/{@code DAT_RESOURCE_DEVICE}.
 */
public final class VerbsTransportProvider extends NamedTransportProvider {
    /** The library name in dat.conf. */
    public static final String NAME = "verbs";

    /** For {@link java.util.ServiceLoader}. */
    public VerbsTransportProvider() {
        super(NAME, VerbsTransportProvider::openIa);
    }

    /** {@code dat_ia_open} of a {@code verbs} IA. */
    private static Transport openIa(String iaName, String iaParams) {
        VerbsConfig config = VerbsConfig.parse(iaParams);
        Verbs v;
        try {
            v = Verbs.load();
        } catch (Verbs.Unavailable u) {
            throw VerbsTransport.device("verbs unavailable: " + u.getMessage());
        }
        return new VerbsTransport(v, iaName, config);
    }

    @Override
    public String unavailableReason() {
        Verbs v;
        try {
            v = Verbs.load();
        } catch (Verbs.Unavailable u) {
            return u.getMessage();
        }
        int n = deviceCount(v);
        // ibv_get_device_list fails (NULL, ENOSYS) when the kernel has no RDMA support loaded at all.
        return n > 0 ? null : n == 0 ? "no RDMA device (ibv_get_device_list lists none)"
                : "no RDMA device (ibv_get_device_list: no kernel RDMA support)";
    }

    /** The number of RDMA devices {@code ibv_get_device_list} lists, -1 when it fails. */
    static int deviceCount(Verbs v) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) v.getDeviceList.invokeExact(num);
            if (list.equals(MemorySegment.NULL)) {
                return -1;
            }
            int n = num.get(JAVA_INT, 0);
            v.freeDeviceList.invokeExact(list);
            return n;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** The names of the RDMA devices (for diagnostics), empty when there are none. */
    static java.util.List<String> deviceNames(Verbs v) {
        java.util.List<String> names = new java.util.ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) v.getDeviceList.invokeExact(num);
            if (list.equals(MemorySegment.NULL)) {
                return names;
            }
            int n = num.get(JAVA_INT, 0);
            MemorySegment l = list.reinterpret(8L * (n + 1));
            for (int i = 0; i < n; i++) {
                MemorySegment d = l.getAtIndex(ADDRESS, i);
                MemorySegment name = (MemorySegment) v.getDeviceName.invokeExact(d);
                names.add(name.reinterpret(64).getString(0));
            }
            v.freeDeviceList.invokeExact(list);
        } catch (Throwable t) {
            // diagnostics only
        }
        return names;
    }
}
