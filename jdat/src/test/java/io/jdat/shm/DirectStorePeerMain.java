package io.jdat.shm;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The target process of {@link ShmDirectStoreTest#aSendAfterAWriteShowsItsBytesAcrossProcesses}: opens the
 * {@code shm} IA {@code args[0]}, registers {@value #BYTES} bytes of {@link ShmMemory} for remote write, connects
 * to {@code args[1]} (an IA directory) on qualifier {@code args[2]} with (context, address) as private data, and
 * for each of {@code args[3]} Sends it receives checks that every byte of the region holds the Send's first byte
 * (the requester wrote the region with that value just before the Send), printing {@code ROUND r OK} or
 * {@code ROUND r BAD ...}, then {@code DONE}.
 */
public final class DirectStorePeerMain {
    static final int BYTES = 256 * 1024;

    private DirectStorePeerMain() {
    }

    /** Runs the child; see the class comment. */
    public static void main(String[] args) {
        ShmTesting.register();
        int rounds = Integer.parseInt(args[3]);
        InterfaceAdapter ia = InterfaceAdapter.open(args[0], 16, null);
        ProtectionZone pz = ProtectionZone.create(ia);
        EventDispatcher recv = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        EventDispatcher req = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        EventDispatcher conn = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
        Endpoint ep = Endpoint.create(ia, pz, recv, req, conn, ShmDirectStoreTest.attr().maxRecvDtos(rounds));
        ShmMemory sm = ShmMemory.allocate(BYTES);
        Lmr target = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), BYTES, pz, MemPriv.ALL);
        MemorySegment buf = Arena.global().allocate(64L * rounds, 64);
        Lmr bufLmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        for (int r = 0; r < rounds; r++) {
            ep.postRecv(1, new LmrTriplet[] {bufLmr.triplet(64L * r, 64)}, r, CompletionFlags.DEFAULT);
        }
        byte[] mine = ByteBuffer.allocate(12).putInt(target.rmrContext()).putLong(target.registeredAddress()).array();
        ep.connect(UnixDomainSocketAddress.of(Path.of(args[1])), Long.parseLong(args[2]), 10_000_000, mine.length,
                mine, Qos.BEST_EFFORT, 0);
        DatEvent e = new DatEvent();
        if (!conn.waitFor(30_000_000, 1, e) || e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            System.out.println("FAILED " + e);
            System.exit(1);
        }
        System.out.println("CONNECTED");
        System.out.flush();
        for (int r = 0; r < rounds; r++) {
            if (!recv.waitFor(30_000_000, 1, e) || e.status() != DtoCompletionStatus.SUCCESS) {
                System.out.println("FAILED receive " + r + ": " + e);
                System.exit(1);
            }
            byte v = buf.get(ValueLayout.JAVA_BYTE, 64L * e.userCookie());
            String verdict = "OK";
            for (long k = 0; k < BYTES; k++) {
                byte got = sm.segment().get(ValueLayout.JAVA_BYTE, k);
                if (got != v) {
                    verdict = "BAD at " + k + ": " + got + ", the Send said " + v;
                    break;
                }
            }
            System.out.println("ROUND " + e.userCookie() + " " + verdict);
            System.out.flush();
        }
        System.out.println("DONE");
        System.out.flush();
        ia.close(io.jdat.CloseFlags.ABRUPT);
    }
}
