package io.jdat.verbs;

import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The client side of rdma-core's {@code rping} protocol (librdmacm/examples/rping.c), on a DAT EP, against the
 * guest's {@code rping -s -V}: per ping, the client advertises its source buffer (a 16-byte
 * {@code struct rping_rdma_info}: address, rkey, size, big-endian) with a Send; the server RDMA-Reads it and
 * answers with a Send; the client advertises its sink buffer; the server RDMA-Writes what it read there and
 * answers again; the client compares the two buffers.
 */
final class RpingClient {
    private RpingClient() {
    }

    static void run(String ia, String server, int port, int count, int size) throws Exception {
        try (Pair p = new Pair(ia, VerbsVmCheck.attr(), 64); Arena arena = Arena.ofShared()) {
            Pair.Side c = p.client;
            MemorySegment start = arena.allocate(size, 64);
            MemorySegment sink = arena.allocate(size, 64);
            MemorySegment msgs = arena.allocate(64, 64); // [0,16) send, [32,48) receive
            Lmr startLmr = Lmr.create(c.ia, MemType.VIRTUAL, RegionDescription.forVa(start), size, c.pz,
                    MemPriv.LOCAL_READ | MemPriv.REMOTE_READ);
            Lmr sinkLmr = Lmr.create(c.ia, MemType.VIRTUAL, RegionDescription.forVa(sink), size, c.pz,
                    MemPriv.LOCAL_WRITE | MemPriv.LOCAL_READ | MemPriv.REMOTE_WRITE);
            Lmr msgLmr = Lmr.create(c.ia, MemType.VIRTUAL, RegionDescription.forVa(msgs), 64, c.pz, MemPriv.ALL);
            c.ep.postRecv(1, iov(msgLmr, 32, 16), 1, CompletionFlags.DEFAULT);
            c.ep.connect(new InetSocketAddress(InetAddress.getByName(server), 0), port, VerbsVmCheck.WAIT_US, 0, new byte[0],
                    Qos.BEST_EFFORT, 0);
            VerbsVmCheck.expectConn(c, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            int letter = 65;
            for (int ping = 0; ping < count; ping++) {
                byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
                MemorySegment.copy(head, 0, start, ValueLayout.JAVA_BYTE, 0, Math.min(head.length, size));
                int ch = letter;
                for (int i = head.length; i < size; i++) {
                    start.set(ValueLayout.JAVA_BYTE, i, (byte) ch);
                    if (++ch > 122) {
                        ch = 65;
                    }
                }
                if (++letter > 122) {
                    letter = 65;
                }
                start.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
                sink.fill((byte) 0);
                advertise(c, msgs, msgLmr, start, startLmr, size, 10 + ping);
                awaitAnswer(c, msgs, msgLmr);
                advertise(c, msgs, msgLmr, sink, sinkLmr, size, 20 + ping);
                awaitAnswer(c, msgs, msgLmr);
                DataPath.assertBytes(sink, 0, start.toArray(ValueLayout.JAVA_BYTE), 0, size,
                        "ping " + ping + " written back by rping");
            }
            c.ep.disconnect(io.jdat.CloseFlags.ABRUPT);
        }
    }

    private static void advertise(Pair.Side c, MemorySegment msgs, Lmr msgLmr, MemorySegment buf, Lmr lmr,
            int size, long cookie) {
        msgs.set(ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN), 0, buf.address());
        msgs.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 8, lmr.rmrContext());
        msgs.set(ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN), 12, size);
        c.ep.postSend(1, iov(msgLmr, 0, 16), cookie, CompletionFlags.DEFAULT);
        VerbsVmCheck.dtoOk(c.reqEvd, cookie, 16);
    }

    private static void awaitAnswer(Pair.Side c, MemorySegment msgs, Lmr msgLmr) {
        DatEvent e = new DatEvent();
        if (!c.recvEvd.waitFor(20_000_000, 1, e)) {
            throw new AssertionError("no answer from rping within 20 s");
        }
        assertEquals(io.jdat.DtoCompletionStatus.SUCCESS, e.status(), "rping's answer");
        assertEquals(16, e.transferredLength(), "rping's answer is a struct rping_rdma_info");
        c.ep.postRecv(1, iov(msgLmr, 32, 16), 1, CompletionFlags.DEFAULT);
    }
}
