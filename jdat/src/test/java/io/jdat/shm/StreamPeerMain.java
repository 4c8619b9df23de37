package io.jdat.shm;

import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

/**
 * The child of {@link ShmStreamEndingTest}'s SIGKILL case: opens the {@code shm} IA named by {@code args[0]},
 * connects to {@code args[1]} (an IA directory) on qualifier {@code args[2]} with its {@link StreamEnd}'s
 * triplets as private data, and streams until it is killed, printing {@code STREAMING n} every 500 completions.
 */
public final class StreamPeerMain {
    private StreamPeerMain() {
    }

    /** Runs the child; see the class comment. */
    public static void main(String[] args) {
        ShmTesting.register();
        InterfaceAdapter ia = InterfaceAdapter.open(args[0], 16, null);
        ProtectionZone pz = ProtectionZone.create(ia);
        EventDispatcher recv = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        EventDispatcher req = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        EventDispatcher conn = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
        Endpoint ep = Endpoint.create(ia, pz, recv, req, conn, ShmStreamEndingTest.attr());
        MemorySegment buf = Arena.global().allocate(StreamEnd.BYTES, 4096);
        Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        StreamEnd s = new StreamEnd("child", ep, recv, req, conn, lmr, buf);
        s.postReceives();
        byte[] mine = s.privateData();
        ep.connect(UnixDomainSocketAddress.of(Path.of(args[1])), Long.parseLong(args[2]), 10_000_000, mine.length,
                mine, Qos.BEST_EFFORT, 0);
        DatEvent e = new DatEvent();
        if (!conn.waitFor(10_000_000, 1, e) || e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            System.out.println("FAILED " + e);
            System.exit(1);
        }
        s.peer(e.privateData());
        System.out.println("CONNECTED");
        System.out.flush();
        while (s.ended == null) {
            s.step(n -> {
                if (n % 500 == 0) {
                    System.out.println("STREAMING " + n);
                    System.out.flush();
                }
            });
        }
        System.out.println("ENDED " + s.ended + " " + s.errors);
    }
}
