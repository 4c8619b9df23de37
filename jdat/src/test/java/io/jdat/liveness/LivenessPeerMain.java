package io.jdat.liveness;

import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RegionDescription;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;

/**
 * The passive peer of {@link PeerTimeoutTest}, in a child JVM that the test stops with {@code SIGSTOP}.
 * Arguments: the provider ({@code tcp} or {@code shm}) and its IA parameters. It opens the IA, listens on
 * any qualifier and prints {@code READY <address> <qualifier>} (tcp: the host; shm: the IA directory);
 * posts four receives, accepts one connection with a 64 KiB region's RMR context and address (12 bytes) as private data, prints
 * {@code ESTABLISHED}, and then only waits: its IA's progress thread is what answers the other side.
 */
public final class LivenessPeerMain {
    static final String IA = "liveness-peer";

    private LivenessPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        String provider = args[0];
        String params = args.length > 1 ? args[1] : "";
        Registry.addProvider(new RegistryEntry(IA, 'u', 1, 2, true, false, provider, "jdat", 1, 0, params, ""));
        InterfaceAdapter ia = InterfaceAdapter.open(IA, 16, null);
        ProtectionZone pz = ProtectionZone.create(ia);
        EventDispatcher cr = EventDispatcher.create(ia, 4, null, EvdFlags.CR);
        EventDispatcher dto = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
        EventDispatcher conn = EventDispatcher.create(ia, 4, null, EvdFlags.CONNECTION);
        Endpoint ep = Endpoint.create(ia, pz, dto, dto, conn, PeerTimeoutTest.attr());
        MemorySegment buf = Arena.ofShared().allocate(64 * 1024, 256);
        Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        for (int i = 0; i < 4; i++) { // for the other side's Sends
            ep.postRecv(1, new io.jdat.LmrTriplet[] {lmr.triplet(i * 4096L, 4096)}, i, io.jdat.CompletionFlags.DEFAULT);
        }
        PublicServicePoint psp = PublicServicePoint.createAny(ia, cr, PspFlags.CONSUMER);
        Object addr = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        String where = addr instanceof InetSocketAddress i ? i.getAddress().getHostAddress()
                : ((UnixDomainSocketAddress) addr).getPath().toString();
        System.out.println("READY " + where + " " + psp.connQual());
        DatEvent e = new DatEvent();
        if (!cr.waitFor(60_000_000, 1, e) || e.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
            System.out.println("NO REQUEST " + e);
            System.exit(2);
        }
        byte[] pd = ByteBuffer.allocate(12).putInt(lmr.rmrContext()).putLong(lmr.registeredAddress()).array();
        e.cr().accept(ep, pd.length, pd);
        if (!conn.waitFor(10_000_000, 1, e) || e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            System.out.println("NOT ESTABLISHED " + e);
            System.exit(3);
        }
        System.out.println("ESTABLISHED");
        for (;;) {
            DatEvent next = new DatEvent();
            if (conn.waitFor(1_000_000, 1, next)) {
                System.out.println("EVENT " + next.eventNumber());
            }
        }
    }
}
