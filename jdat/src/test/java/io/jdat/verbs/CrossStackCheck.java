package io.jdat.verbs;

import io.jdat.CloseFlags;
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
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.RmrTriplet;
import io.jdat.testing.DataPath;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One side of a cross-stack exchange between two jdat IAs of any transports (interop/verbs.sh runs jdat
 * {@code verbs} on the guest's siw against jdat {@code tcp} on the host, both ways), every byte verified:
 * <ol>
 * <li>the server accepts with its buffer's RMR triplet (16 bytes) as private data;</li>
 * <li>the client sends messages of 64 B, 4 KiB and 1 MiB, each a pattern; the server checks each and echoes
 * it back; the client checks the echo;</li>
 * <li>the client RDMA-Writes 1 MiB into the server's buffer and RDMA-Reads it back, then sends a 64-byte
 * "check" message; the server checks its buffer holds the pattern and that the 4 KiB around it are untouched,
 * and answers;</li>
 * <li>the client disconnects; both see DISCONNECTED.</li>
 * </ol>
 * Prints {@code PASS name} or {@code FAIL name: why}; exits 0 or 1.
 *
 * <pre>
 *   CrossStackCheck server IA-NAME IA-PARAMS LIBRARY PORT NAME
 *   CrossStackCheck client IA-NAME IA-PARAMS LIBRARY HOST PORT NAME
 * </pre>
 */
public final class CrossStackCheck {
    private static final int BIG = 1 << 20;
    private static final int GUARD = 4096;
    private static final long[] SIZES = {64, 4096, BIG};
    private static final int WAIT = 120_000_000;

    private CrossStackCheck() {
    }

    public static void main(String[] args) {
        boolean server = args[0].equals("server");
        String ia = args[1];
        String name = args[args.length - 1];
        if (!args[3].equals("builtin")) {
            Registry.addProvider(new RegistryEntry(ia, 'u', 1, 2, true, false, args[3], "jdat", 1, 0, args[2], ""));
        }
        try {
            if (server) {
                serve(ia, Integer.parseInt(args[4]));
            } else {
                client(ia, args[4], Integer.parseInt(args[5]));
            }
            System.out.println("PASS " + name);
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("FAIL " + name + ": " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /** Everything one side holds. */
    private static final class Side implements AutoCloseable {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher recv;
        final EventDispatcher req;
        final EventDispatcher conn;
        final Endpoint ep;
        final Arena arena = Arena.ofShared();
        final MemorySegment buf;
        final MemorySegment msg;
        final MemorySegment in;
        final Lmr bufLmr;
        final Lmr msgLmr;
        final Lmr inLmr;

        Side(String name) {
            ia = InterfaceAdapter.open(name, 16, null);
            pz = ProtectionZone.create(ia);
            recv = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
            req = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
            conn = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(ia, pz, recv, req, conn, VerbsVmCheck.attr().maxRdmaReadIn(1).maxRdmaReadOut(1));
            buf = arena.allocate(BIG + 2 * GUARD, 4096);
            msg = arena.allocate(BIG, 4096);
            in = arena.allocate(BIG, 4096);
            bufLmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            msgLmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(msg), msg.byteSize(), pz, MemPriv.ALL);
            inLmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(in), in.byteSize(), pz, MemPriv.ALL);
        }

        DatEvent next(EventDispatcher evd, String what) {
            DatEvent e = new DatEvent();
            if (!evd.waitFor(WAIT, 1, e)) {
                throw new AssertionError("no " + what + " within 120 s");
            }
            return e;
        }

        void ok(EventDispatcher evd, String what, long length) {
            DatEvent e = next(evd, what);
            if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT || e.status() != DtoCompletionStatus.SUCCESS
                    || (length >= 0 && e.transferredLength() != length)) {
                throw new AssertionError(what + ": " + e);
            }
        }

        void expectConn(EventNumber n) {
            DatEvent e = next(conn, n.toString());
            if (e.eventNumber() != n) {
                throw new AssertionError("expected " + n + ", got " + e);
            }
        }

        LmrTriplet[] msg(long len) {
            return new LmrTriplet[] {msgLmr.triplet(0, len)};
        }

        /** Receives go to their own buffer: an echo may land before the send's completion is seen. */
        LmrTriplet[] in(long len) {
            return new LmrTriplet[] {inLmr.triplet(0, len)};
        }

        @Override
        public void close() {
            ia.close(CloseFlags.ABRUPT);
            arena.close();
        }
    }

    static void serve(String ia, int port) {
        try (Side s = new Side(ia)) {
            EventDispatcher cr = EventDispatcher.create(s.ia, 16, null, EvdFlags.CR);
            PublicServicePoint.create(s.ia, port, cr, PspFlags.CONSUMER);
            DataPath.sentinel(s.buf);
            s.ep.postRecv(1, s.in(BIG), 1, CompletionFlags.DEFAULT);
            System.out.println("listening on " + port);
            DatEvent r = s.next(cr, "connection request");
            RmrTriplet t = s.bufLmr.remoteTriplet(GUARD, BIG);
            byte[] pd = ByteBuffer.allocate(16).putInt(t.rmrContext()).putLong(t.targetAddress()).putInt(BIG).array();
            r.cr().accept(s.ep, pd.length, pd);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            int seed = 40;
            for (long len : SIZES) {
                DatEvent m = s.next(s.recv, "message of " + len);
                if (m.status() != DtoCompletionStatus.SUCCESS || m.transferredLength() != len) {
                    throw new AssertionError("message of " + len + ": " + m);
                }
                DataPath.assertPattern(s.in, 0, len, seed++, 0, "message of " + len);
                MemorySegment.copy(s.in, 0, s.msg, 0, len);
                s.ep.postRecv(1, s.in(BIG), 1, CompletionFlags.DEFAULT);
                s.ep.postSend(1, s.msg(len), 2, CompletionFlags.DEFAULT); // echo
                s.ok(s.req, "echo of " + len, len);
            }
            DatEvent check = s.next(s.recv, "the check message");
            if (check.status() != DtoCompletionStatus.SUCCESS) {
                throw new AssertionError("check message: " + check);
            }
            DataPath.assertPattern(s.buf, GUARD, BIG, 77, 0, "the RDMA-written buffer");
            DataPath.assertUntouched(s.buf, 0, GUARD, "before the RDMA target");
            DataPath.assertUntouched(s.buf, GUARD + BIG, GUARD, "after the RDMA target");
            s.ep.postSend(1, s.msg(64), 3, CompletionFlags.DEFAULT);
            s.ok(s.req, "the answer", 64);
            // The server ends the connection once it has seen its answer complete: were the client to end it
            // when the answer arrived, the answer's completion could race the break (siw once completed it
            // IBV_WC_LOC_QP_OP_ERR after the client had it), as DAT allows for a DTO in flight at a disconnect.
            s.ep.disconnect(CloseFlags.GRACEFUL);
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    static void client(String ia, String host, int port) throws Exception {
        try (Side s = new Side(ia)) {
            s.ep.postRecv(1, s.in(BIG), 1, CompletionFlags.DEFAULT);
            byte[] hello = "jdat cross-stack".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            s.ep.connect(new InetSocketAddress(InetAddress.getByName(host), 0), port, WAIT, hello.length, hello,
                    Qos.BEST_EFFORT, 0);
            DatEvent est = s.next(s.conn, "ESTABLISHED");
            if (est.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                throw new AssertionError("connect: " + est);
            }
            ByteBuffer pd = ByteBuffer.wrap(est.privateData());
            RmrTriplet remote = new RmrTriplet(pd.getInt(), pd.getLong(), pd.getInt());
            // siw as the responder can miss an FPDU that arrives right after its MPA Reply (siw-vm README).
            Thread.sleep(200);
            int seed = 40;
            for (long len : SIZES) {
                DataPath.fill(s.msg, 0, len, seed);
                s.ep.postSend(1, s.msg(len), 2, CompletionFlags.DEFAULT);
                s.ok(s.req, "send of " + len, len);
                s.ok(s.recv, "echo of " + len, len);
                DataPath.assertPattern(s.in, 0, len, seed++, 0, "echo of " + len);
                s.in.asSlice(0, len).fill((byte) 0);
                s.ep.postRecv(1, s.in(BIG), 1, CompletionFlags.DEFAULT);
            }
            DataPath.fill(s.buf, 0, BIG, 77);
            s.ep.postRdmaWrite(1, new LmrTriplet[] {s.bufLmr.triplet(0, BIG)}, 4, remote, CompletionFlags.DEFAULT);
            s.ok(s.req, "RDMA Write of 1 MiB", BIG);
            s.msg.fill((byte) 0);
            s.ep.postRdmaRead(1, s.msg(BIG), 5, remote, CompletionFlags.DEFAULT);
            s.ok(s.req, "RDMA Read of 1 MiB", BIG);
            DataPath.assertPattern(s.msg, 0, BIG, 77, 0, "RDMA Read back");
            s.ep.postSend(1, s.msg(64), 6, CompletionFlags.DEFAULT);
            s.ok(s.req, "the check message", 64);
            s.ok(s.recv, "the server's answer", 64);
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED); // the server's disconnect
        }
        // Unused marker so the class reads as a whole.
        ValueLayout.JAVA_BYTE.byteSize();
    }
}
