package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.WorkRequest;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a connection whose MULPDU was not configured re-sizes it from its MSS ({@code TCP_MAXSEG}) when a
 * message of several FPDUs starts, instead of keeping the MSS of establishment for good. Linux bounds a
 * connection's MSS by half the largest window the peer advertised, so a fresh loopback connection reads about
 * 32 KiB while its MTU allows 65483 bytes; FPDUs sized once at establishment stayed 32 KiB, twice the FPDUs
 * (and the receiver's reads) per MiB. The connection here starts with a MULPDU of 1024 ({@link TcpRig}), so a
 * message that shows any other comes from the MSS; every FPDU still fits one segment (IWARP.md §3).
 */
class TcpMssFollowTest {
    private static final int BIG = 1 << 20;
    private static final int WARM_UP = 16;

    @Test
    @DisplayName("without a configured mulpdu, a message of several FPDUs takes the MULPDU of the connection's"
            + " MSS when it starts, not the one of establishment; every FPDU fits one segment")
    void mulpduFollowsTheMss() throws Exception {
        assertTrue(SocketFd.available(), "getsockopt is bound (the tests run with native access)");
        try (TcpRig rig = new TcpRig("mss-follow", true); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(BIG, 64);
            int mss = SocketFd.maxSegment(rig.mine);
            List<Integer> first = writeAndRecord(rig, src, 1);
            assertEquals(TcpConfig.mulpduOfMss(mss), (int) first.get(0),
                    "the first message's MULPDU is the one of the MSS now (" + mss + "), not the 1024 of establishment");

            List<Integer> all = new ArrayList<>(first);
            all.addAll(writeAndRecord(rig, src, WARM_UP)); // the peer reads as fast as it can: the windows grow
            Thread.sleep(2 * TcpTransmitter.MSS_REFRESH_NANOS / 1_000_000 + 5); // past the refresh limit
            int later = SocketFd.maxSegment(rig.mine);
            List<Integer> last = writeAndRecord(rig, src, 1);
            assertEquals(TcpConfig.mulpduOfMss(later), (int) last.get(0),
                    "a later message's MULPDU is the one of the MSS then (" + later + "; " + mss + " at first)");
            all.addAll(last);

            int end = SocketFd.maxSegment(rig.mine);
            for (int ulpdu : all) {
                assertTrue(Ddp.fpduLength(ulpdu) <= end, "an FPDU of " + Ddp.fpduLength(ulpdu)
                        + " bytes does not fit one segment of MSS " + end);
            }
        }
    }

    @Test
    @DisplayName("a configured MULPDU stays what it is, whatever the MSS")
    void aConfiguredMulpduStays() throws Exception {
        try (TcpRig rig = new TcpRig("mss-fixed", false); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(BIG, 64);
            List<Integer> ulpdus = writeAndRecord(rig, src, 2);
            assertEquals(1024, ulpdus.stream().mapToInt(Integer::intValue).max().orElse(0), "the MULPDU stays 1024");
        }
    }

    /**
     * Submits {@code messages} RDMA Writes of {@code src} and reads their FPDUs at the raw peer.
     *
     * @return the ULPDU length of each FPDU, in order
     */
    private static List<Integer> writeAndRecord(TcpRig rig, MemorySegment src, int messages) throws IOException {
        for (int i = 0; i < messages; i++) {
            WorkRequest wr = new WorkRequest(1);
            wr.add(src, 0, src.byteSize());
            wr.set(WorkRequest.Op.RDMA_WRITE, 0, 0x1234, 0, src.byteSize());
            rig.conn.tx.submit(wr);
        }
        List<Integer> ulpdus = new ArrayList<>();
        ByteBuffer head = ByteBuffer.allocate(Ddp.LENGTH_FIELD + Ddp.TAGGED_HEADER);
        ByteBuffer rest = ByteBuffer.allocate(1 << 17);
        int ended = 0;
        while (ended < messages) {
            readFully(rig.peer, head.clear());
            int ulpdu = head.getShort(Ddp.LENGTH_OFFSET) & 0xFFFF;
            boolean last = (head.get(Ddp.DDP_CONTROL_OFFSET) & Ddp.CTRL_LAST) != 0;
            readFully(rig.peer, rest.clear().limit(Ddp.fpduLength(ulpdu) - head.capacity()));
            ulpdus.add(ulpdu);
            if (last) {
                ended++;
            }
        }
        return ulpdus;
    }

    private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("the stream ended");
            }
        }
    }
}
