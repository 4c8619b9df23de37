package io.jdat.samples.hello;

import io.jdat.*;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** A server and a client in one process: connect, Send/Recv, RDMA Write, RDMA Read. Args: [mem|shm|tcp] */
public class Hello {
    /** One side: an Endpoint, its three EVDs and 4 KiB of registered memory. */
    record Side(Endpoint ep, EventDispatcher recv, EventDispatcher req, EventDispatcher conn, MemorySegment buf, Lmr lmr) {
        static Side open(InterfaceAdapter ia, Arena arena) {
            ProtectionZone pz = ProtectionZone.create(ia);                                          // dat_pz_create
            EventDispatcher recv = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);               // dat_evd_create
            EventDispatcher req = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(ia, 4, null, EvdFlags.CONNECTION);
            MemorySegment buf = arena.allocate(4096, 4096);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), 4096, pz, MemPriv.ALL); // dat_lmr_create
            return new Side(Endpoint.create(ia, pz, recv, req, conn, null), recv, req, conn, buf, lmr); // dat_ep_create
        }
    }

    static final DatEvent ev = new DatEvent(); // reused for every event: waiting allocates nothing

    /** dat_evd_wait for the next event of {@code evd} (5 s at most), which must be {@code n} and succeed. */
    static DatEvent next(EventDispatcher evd, EventNumber n) {
        if (!evd.waitFor(5_000_000, 1, ev) || ev.eventNumber() != n
                || n == EventNumber.DTO_COMPLETION_EVENT && ev.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("expected " + n + ", got " + ev.eventNumber() + " " + ev.status());
        }
        return ev;
    }

    static void check(MemorySegment got, MemorySegment want, String what) {
        if (got.mismatch(want) != -1) throw new IllegalStateException(what + ": data differs");
        System.out.println(what + ": " + got.byteSize() + " bytes checked");
    }

    public static void main(String[] args) {
        String provider = args.length > 0 ? args[0] : "mem";
        try (Arena arena = Arena.ofShared();
             InterfaceAdapter serverIa = InterfaceAdapter.open(provider, 8, null);                  // dat_ia_open
             InterfaceAdapter clientIa = InterfaceAdapter.open(provider, 8, null)) {
            Side server = Side.open(serverIa, arena), client = Side.open(clientIa, arena);
            // The server listens on a free connection qualifier and posts a receive for the first message.
            EventDispatcher crEvd = EventDispatcher.create(serverIa, 4, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.createAny(serverIa, crEvd, PspFlags.CONSUMER); // dat_psp_create_any
            server.ep.postRecv(1, new LmrTriplet[] {server.lmr.triplet(0, 64)}, 1, CompletionFlags.DEFAULT);
            // The client connects; its private data is the RMR triplet of its buffer (16 bytes).
            MemorySegment pd = arena.allocate(RmrTriplet.BYTES);
            client.lmr.remoteTriplet(0, 4096).encode(pd, 0);
            client.ep.connect(serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), 5_000_000,
                    RmrTriplet.BYTES, pd.toArray(ValueLayout.JAVA_BYTE), Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            ConnectionRequest cr = next(crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
            byte[] got = cr.query(CrParam.FIELD_ALL).privateData();                                // dat_cr_query
            RmrTriplet clientBuf = RmrTriplet.decode(MemorySegment.ofArray(got), 0);
            cr.accept(server.ep, 0, null);                                                         // dat_cr_accept
            next(server.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            next(client.conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            System.out.println("connected over " + provider + ", the client's buffer: " + clientBuf);
            // Send/Recv: the client's message lands in the server's posted receive.
            client.buf.setString(0, "hello from the client");
            client.ep.postSend(1, new LmrTriplet[] {client.lmr.triplet(0, 64)}, 2, CompletionFlags.DEFAULT);
            next(client.req, EventNumber.DTO_COMPLETION_EVENT);
            next(server.recv, EventNumber.DTO_COMPLETION_EVENT);
            check(server.buf.asSlice(0, 64), client.buf.asSlice(0, 64), "send/recv \"" + server.buf.getString(0) + "\"");
            // RDMA Write: the server puts 1 KiB into the client's buffer at 1024; the client posts nothing.
            server.buf.asSlice(1024, 1024).fill((byte) 'W');
            RmrTriplet there = new RmrTriplet(clientBuf.rmrContext(), clientBuf.targetAddress() + 1024, 1024);
            server.ep.postRdmaWrite(1, new LmrTriplet[] {server.lmr.triplet(1024, 1024)}, 3, there, CompletionFlags.DEFAULT);
            next(server.req, EventNumber.DTO_COMPLETION_EVENT); // the source may be reused; the data may still travel
            // RDMA Read: the server reads the same 1 KiB back into its buffer at 2048. A Read executes after the
            // Writes posted before it, so once it completes the written data is in the client's memory.
            server.ep.postRdmaRead(1, new LmrTriplet[] {server.lmr.triplet(2048, 1024)}, 4, there, CompletionFlags.DEFAULT);
            next(server.req, EventNumber.DTO_COMPLETION_EVENT);
            check(client.buf.asSlice(1024, 1024), server.buf.asSlice(1024, 1024), "rdma write");
            check(server.buf.asSlice(2048, 1024), client.buf.asSlice(1024, 1024), "rdma read");
            client.ep.disconnect(CloseFlags.GRACEFUL);                                            // dat_ep_disconnect
            next(client.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            next(server.conn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            System.out.println("disconnected");
        } // dat_ia_close of both IAs frees every object they own; then the arena frees the memory
    }
}
