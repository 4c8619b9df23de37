package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every open IA has a JMX MBean {@code io.jdat:type=InterfaceAdapter,name=<ia>,id=<n>} in the platform
 * MBeanServer, registered on open and unregistered on close (each a moment later, on the jdat-jmx thread), whose attributes are the IA's DTO counters and a
 * table of its Endpoints with theirs.
 */
class InterfaceAdapterMBeanTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @ParameterizedTest
    @ValueSource(strings = {"mem", "shm", "tcp"})
    void anIasCountersAndEndpointsAreReadableThroughJmx(String provider) throws Exception {
        ObjectName pattern = new ObjectName("io.jdat:type=InterfaceAdapter,name=" + provider + ",*");
        DatEvent ev = new DatEvent();
        ObjectName serverName;
        try (Arena arena = Arena.ofShared()) {
            Set<ObjectName> before = SERVER.queryNames(pattern, null);
            InterfaceAdapter server = InterfaceAdapter.open(provider, 8, null);
            Set<ObjectName> added = new HashSet<>();
            for (long end = System.nanoTime() + 30_000_000_000L; added.isEmpty() && System.nanoTime() < end; ) {
                Thread.sleep(10); // registered on the jdat-jmx thread, a moment after the open
                added.addAll(SERVER.queryNames(pattern, null));
                added.removeAll(before);
            }
            assertEquals(1, added.size(), "one new MBean for the IA: " + added);
            serverName = added.iterator().next();
            assertTrue(serverName.getKeyProperty("id").matches("\\d+"), serverName.toString());
            try (server; InterfaceAdapter client = InterfaceAdapter.open(provider, 8, null)) {
                assertEquals(provider, SERVER.getAttribute(serverName, "Name"));
                assertEquals(0L, SERVER.getAttribute(serverName, "RecvsPosted"));
                EventDispatcher crEvd = EventDispatcher.create(server, 4, null, EvdFlags.CR);
                ProtectionZone spz = ProtectionZone.create(server);
                ProtectionZone cpz = ProtectionZone.create(client);
                EventDispatcher sdto = EventDispatcher.create(server, 8, null, EvdFlags.DTO);
                EventDispatcher sconn = EventDispatcher.create(server, 4, null, EvdFlags.CONNECTION);
                EventDispatcher cdto = EventDispatcher.create(client, 8, null, EvdFlags.DTO);
                EventDispatcher cconn = EventDispatcher.create(client, 4, null, EvdFlags.CONNECTION);
                Endpoint sep = Endpoint.create(server, spz, sdto, sdto, sconn, null);
                Endpoint cep = Endpoint.create(client, cpz, cdto, cdto, cconn, null);
                MemorySegment sbuf = arena.allocate(4096, 4096);
                MemorySegment cbuf = arena.allocate(4096, 4096);
                Lmr slmr = Lmr.create(server, MemType.VIRTUAL, RegionDescription.forVa(sbuf), 4096, spz, MemPriv.ALL);
                Lmr clmr = Lmr.create(client, MemType.VIRTUAL, RegionDescription.forVa(cbuf), 4096, cpz, MemPriv.ALL);
                PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
                sep.postRecv(1, new LmrTriplet[] {slmr.triplet(0, 100)}, 1, CompletionFlags.DEFAULT);
                cep.connect(server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), 10_000_000, 0,
                        null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
                assertTrue(crEvd.waitFor(10_000_000, 1, ev));
                ev.cr().accept(sep, 0, null);
                assertTrue(sconn.waitFor(10_000_000, 1, ev));
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, ev.eventNumber());
                assertTrue(cconn.waitFor(10_000_000, 1, ev));
                cep.postSend(1, new LmrTriplet[] {clmr.triplet(0, 77)}, 2, CompletionFlags.DEFAULT);
                assertTrue(cdto.waitFor(10_000_000, 1, ev));
                assertTrue(sdto.waitFor(10_000_000, 1, ev));
                assertEquals(DtoCompletionStatus.SUCCESS, ev.status());

                assertEquals(1L, SERVER.getAttribute(serverName, "RecvsPosted"));
                assertEquals(1L, SERVER.getAttribute(serverName, "RecvsCompleted"));
                assertEquals(77L, SERVER.getAttribute(serverName, "RecvBytes"));
                assertEquals(0L, SERVER.getAttribute(serverName, "RequestsPosted"));
                TabularData eps = (TabularData) SERVER.getAttribute(serverName, "Endpoints");
                assertEquals(1, eps.size());
                CompositeData row = (CompositeData) eps.values().iterator().next();
                assertEquals(System.identityHashCode(sep), row.get("Id"));
                assertEquals("DAT_EP_STATE_CONNECTED", row.get("State"));
                assertEquals(77L, row.get("RecvBytes"));
                assertFalse(((String) row.get("RemoteAddress")).isEmpty(), row.toString());
                assertTrue(SERVER.getMBeanInfo(serverName).getAttributes().length >= 12);
            }
        }
        for (long end = System.nanoTime() + 30_000_000_000L; SERVER.isRegistered(serverName)
                && System.nanoTime() < end; ) {
            Thread.sleep(10); // unregistered on the jdat-jmx thread, a moment after the close
        }
        assertFalse(SERVER.isRegistered(serverName), "unregistered on close");
    }
}
