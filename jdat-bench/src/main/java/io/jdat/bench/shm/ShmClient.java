package io.jdat.bench.shm;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
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
import io.jdat.RmrTriplet;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;

/**
 * The benchmark process's end of an {@code shm} connection to a {@link ShmPeer} in another process: one EP
 * with a receive EVD and a request EVD, a 32 MiB registered buffer laid out as {@link ShmPeer}'s, the peer's
 * region as an {@link RmrTriplet}. Not a benchmark itself.
 */
final class ShmClient implements AutoCloseable {
    final InterfaceAdapter ia;
    final EventDispatcher recvEvd;
    final EventDispatcher reqEvd;
    final Endpoint ep;
    final MemorySegment buf;
    final Lmr lmr;
    final int peerContext;
    final long peerAddress;
    private final Arena arena = Arena.ofShared();
    private final io.jdat.shm.ShmMemory shared;
    private final Process peer;

    ShmClient(String iaName, int size) throws IOException {
        this(iaName, size, false);
    }

    /**
     * @param sharedMemory allocate this side's buffer as {@link io.jdat.shm.ShmMemory}, which the peer maps (else
     *                     plain native memory, which the peer reaches with cross-memory attach)
     */
    ShmClient(String iaName, int size, boolean sharedMemory) throws IOException {
        String[] ready = new String[4];
        peer = ShmPeer.start(iaName, size, ready);
        ia = InterfaceAdapter.open(iaName, 16, null);
        ProtectionZone pz = ProtectionZone.create(ia);
        recvEvd = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        reqEvd = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        EventDispatcher connEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
        EpAttr attr = ia.defaultEpAttr().maxRecvDtos(ShmPeer.RECVS).maxRequestDtos(64).maxRdmaReadIn(16)
                .maxRdmaReadOut(16).maxMessageSize(ShmPeer.BULK).maxRdmaSize(ShmPeer.BULK)
                .recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.DEFAULT);
        ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, attr);
        shared = sharedMemory ? io.jdat.shm.ShmMemory.allocate(ShmPeer.BUF) : null;
        buf = sharedMemory ? shared.segment() : arena.allocate(ShmPeer.BUF, 4096);
        buf.fill((byte) 3);
        lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), ShmPeer.BUF, pz, MemPriv.ALL);
        peerContext = Integer.parseInt(ready[2]);
        peerAddress = Long.parseLong(ready[3]);
        ep.connect(UnixDomainSocketAddress.of(ready[0]), Long.parseLong(ready[1]), 30_000_000, 0, null,
                Qos.BEST_EFFORT, 0);
        DatEvent e = new DatEvent();
        if (!connEvd.waitFor(30_000_000, 1, e) || e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            throw new IllegalStateException("not connected: " + e);
        }
        // Name our write-back region to the peer (first byte 2), and take its answer.
        MemorySegment m = buf.asSlice(ShmPeer.SEND_AT, 64);
        m.set(ValueLayout.JAVA_BYTE, 0, (byte) 2);
        m.set(ValueLayout.JAVA_INT, 8, lmr.rmrContext());
        m.set(ValueLayout.JAVA_LONG, 16, lmr.registeredAddress() + ShmPeer.WRITE_IN);
        ep.postRecv(1, new LmrTriplet[] {lmr.triplet(ShmPeer.RECV_AT, Math.max(size, 64))}, 7, 0);
        ep.postSend(1, new LmrTriplet[] {lmr.triplet(ShmPeer.SEND_AT, 64)}, 8, 0);
        take(recvEvd, e);
        take(reqEvd, e);
        m.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
    }

    /** The peer's memory at {@code offset}. */
    RmrTriplet remote(long offset, long length) {
        return new RmrTriplet(peerContext, peerAddress + offset, length);
    }

    /** Polls {@code evd} (driving the transport) for one successful completion. */
    static void take(EventDispatcher evd, DatEvent e) {
        while (!evd.dequeue(e)) {
            Thread.onSpinWait();
        }
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("DTO failed: " + e);
        }
    }

    @Override
    public void close() {
        try {
            peer.getOutputStream().close(); // the peer ends with its stdin
            peer.waitFor();
        } catch (IOException | InterruptedException e) {
            peer.destroyForcibly();
        }
        ia.close(CloseFlags.ABRUPT);
        arena.close();
        if (shared != null) {
            shared.close();
        }
    }
}
