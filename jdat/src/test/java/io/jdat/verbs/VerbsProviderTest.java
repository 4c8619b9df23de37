package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.InterfaceAdapter;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.core.DatConfParser;
import io.jdat.spi.TransportProvider;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verbs provider on a host without RDMA: registration, the unavailable path, status mapping, IA parameters. */
class VerbsProviderTest {
    @Test
    @DisplayName("ServiceLoader finds the verbs provider under the library name 'verbs'")
    void registered() {
        boolean found = false;
        for (TransportProvider p : ServiceLoader.load(TransportProvider.class)) {
            found |= p.name().equals("verbs") && p instanceof VerbsTransportProvider;
        }
        assertTrue(found);
    }

    @Test
    @DisplayName("ibv_wc_status -> DAT DTO status: every value of verbs.h, and hostile ones")
    void statusMapping() {
        DtoCompletionStatus[] expected = {
            DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_LOCAL_LENGTH, DtoCompletionStatus.ERR_LOCAL_EP,
            DtoCompletionStatus.ERR_LOCAL_EP, DtoCompletionStatus.ERR_LOCAL_PROTECTION, DtoCompletionStatus.ERR_FLUSHED,
            DtoCompletionStatus.RMR_OPERATION_FAILED, DtoCompletionStatus.ERR_BAD_RESPONSE,
            DtoCompletionStatus.ERR_LOCAL_PROTECTION, DtoCompletionStatus.ERR_REMOTE_RESPONDER,
            DtoCompletionStatus.ERR_REMOTE_ACCESS, DtoCompletionStatus.ERR_REMOTE_RESPONDER,
            DtoCompletionStatus.ERR_TRANSPORT, DtoCompletionStatus.ERR_RECEIVER_NOT_READY,
            DtoCompletionStatus.ERR_LOCAL_PROTECTION, DtoCompletionStatus.ERR_REMOTE_RESPONDER,
            DtoCompletionStatus.ERR_REMOTE_RESPONDER, DtoCompletionStatus.ERR_TRANSPORT, DtoCompletionStatus.ERR_TRANSPORT,
            DtoCompletionStatus.ERR_TRANSPORT, DtoCompletionStatus.ERR_TRANSPORT, DtoCompletionStatus.ERR_TRANSPORT,
        };
        for (int s = 0; s < expected.length; s++) {
            assertEquals(expected[s], VerbsStatus.of(s), "ibv_wc_status " + s);
        }
        assertEquals(DtoCompletionStatus.ERR_TRANSPORT, VerbsStatus.of(-1));
        assertEquals(DtoCompletionStatus.ERR_TRANSPORT, VerbsStatus.of(22)); // IBV_WC_TM_ERR
        assertEquals(DtoCompletionStatus.ERR_TRANSPORT, VerbsStatus.of(Integer.MAX_VALUE));
    }

    @Test
    @DisplayName("IA parameters in DAPL's style: an IPv4 address or a netdev, and a port 0..255")
    void iaParameters() throws Exception {
        VerbsConfig c = VerbsConfig.parse("192.168.10.5 1");
        assertEquals(InetAddress.getByName("192.168.10.5"), c.address());
        assertNull(c.netdev());
        assertEquals(1, c.port());
        VerbsConfig lo = VerbsConfig.parse("  lo  ");
        assertEquals("lo", lo.netdev());
        assertEquals(InetAddress.getByName("127.0.0.1"), lo.address());
        assertEquals(0, lo.port());
        assertEquals(0, VerbsConfig.parse("lo 0").port());
        for (String bad : new String[] {"", "   ", "lo 256", "lo -1", "lo x", "lo 1 2", "no-such-netdev-xyz 0"}) {
            DatException e = assertThrows(DatException.class, () -> VerbsConfig.parse(bad), bad);
            assertEquals(DatReturnType.INVALID_PARAMETER, e.type(), bad);
        }
    }

    @Test
    @DisplayName("dat.conf: DAPL-style verbs lines parse into entries with library 'verbs' and the IA parameters")
    void datConf(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("dat.conf");
        Files.writeString(conf, """
                # DAPL style: netdev or address, then the device port
                ofa-v2-rxe0 u1.2 threadsafe default verbs jdat.1.0 "eth0 0" ""
                ofa-v2-mlx5_0-1 u1.2 threadsafe default verbs jdat.1.0 "192.168.10.5 1" ""
                """);
        DatConfParser.Result r = DatConfParser.parse(conf);
        assertEquals(2, r.entries().size(), r.warnings().toString());
        RegistryEntry a = r.entries().get(0);
        assertEquals("ofa-v2-rxe0", a.iaName());
        assertEquals("verbs", a.library());
        assertEquals("eth0 0", a.iaParams());
        assertEquals("192.168.10.5 1", r.entries().get(1).iaParams());
    }

    @Test
    @DisplayName("Without a usable device the provider says why in one line, and dat_ia_open fails with"
            + " DAT_INSUFFICIENT_RESOURCES / DAT_RESOURCE_DEVICE")
    void unavailable() {
        String why = new VerbsTransportProvider().unavailableReason();
        // This host has no RDMA device (CI and the dev machines); the guest of interop/verbs.sh has two.
        org.junit.jupiter.api.Assumptions.assumeTrue(why != null, "this host has an RDMA device");
        assertFalse(why.contains("\n"), why);
        assertTrue(why.contains("libibverbs") || why.contains("librdmacm") || why.contains("RDMA device"), why);
        String name = "verbs-unavailable-test";
        Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, "verbs", "jdat", 1, 0, "127.0.0.1 0", ""));
        try {
            DatException e = assertThrows(DatException.class, () -> InterfaceAdapter.open(name, 16, null));
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type(), e.getMessage());
            assertEquals(DatReturnSubtype.RESOURCE_DEVICE, e.subtype(), e.getMessage());
            assertNotNull(e.getMessage());
        } finally {
            Registry.removeProvider(name);
        }
    }
}
