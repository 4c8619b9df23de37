package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.Channel;
import io.jdat.spi.RemoteRegion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * LMF-04 on the tcp responder: the source of an incoming RDMA Read that is withdrawn ({@code dat_lmr_free}, an RMR
 * unbind) after the Read was admitted, but before its Read Responses are in the socket, is not read, and the
 * requester learns why: a Terminate of a refused Read (RDMAP remote protection, invalid STag), after which its
 * Read fails with {@code DAT_DTO_ERR_REMOTE_ACCESS}, not a reset (which fails it as a transport error).
 *
 * <p>Large Read Responses without CRC are sent from views of the source, each send under the source's hold; the
 * rig's sink admits the Read and refuses every hold, so the first send of the batch finds the source withdrawn
 * with no byte of it in the socket. (A send that finds it withdrawn within an FPDU must reset the stream.) Payloads
 * above {@code TcpTransmitter.SMALL} are views; smaller ones are copied when the batch is built.
 */
class TcpReadSourceWithdrawnTest {
    /** The connection's MULPDU (fixed: it does not follow the MSS here). */
    private static final int MULPDU = 16 * 1024;

    @Test
    @DisplayName("a Read source withdrawn before the batch of its one Read Response, a view, is sent: a Terminate,"
            + " not a reset")
    void withdrawnBeforeTheFirstSend() throws Exception {
        assertTerminatedWithoutAByte(8 * 1024);
    }

    @Test
    @DisplayName("the same when the copy of the Read's last Response found the source withdrawn first and its"
            + " Terminate is in the batch dropped: that Terminate still goes")
    void withdrawnWithATerminateInTheBatch() throws Exception {
        // a view of one full FPDU, then 100 bytes copied into a header slot: the copy queues the Terminate
        assertTerminatedWithoutAByte(MULPDU - Ddp.TAGGED_HEADER + 100);
    }

    /**
     * A Read of {@code size} bytes of a source the sink admits and then refuses to hold: the peer reads one
     * Terminate of a refused Read (RDMAP remote protection, invalid STag) and the end of the stream, no Read
     * Response, no reset.
     */
    private static void assertTerminatedWithoutAByte(int size) throws Exception {
        WithdrawingSink sink = new WithdrawingSink(Arena.ofAuto().allocate(size).fill((byte) 0x5A));
        try (TcpRig rig = new TcpRig("read-withdrawn", sink, MULPDU, false)) {
            rig.peer.write(ByteBuffer.wrap(FuzzFrames.encode(
                    FuzzFrames.readRequest(1, 0x1100, 0, size, 0x2200, 0), false)));
            assertEquals("broken", sink.ending.get(10, TimeUnit.SECONDS));
            rig.conn.close(Channel.CLOSE_BREAK); // what the core does with a broken connection
            byte[] sent = readToEnd(rig.peer);
            FuzzFrames.ServerStream stream = FuzzFrames.parseServer(sent, false);
            assertNull(stream.error(), stream.error());
            assertEquals(0, stream.tail(), "a partial FPDU before the end of the stream");
            FuzzFrames.ServerFpdu terminate = stream.terminate();
            assertNotNull(terminate, "no Terminate in " + stream.fpdus());
            assertEquals(1, stream.fpdus().size(), "no byte of the withdrawn source goes out: " + stream.fpdus());
            int word = ByteBuffer.wrap(terminate.payload()).getInt();
            assertEquals(Terminate.LAYER_RDMAP, Terminate.layer(word));
            assertEquals(Terminate.RDMAP_REMOTE_PROTECTION, Terminate.errorType(word));
            assertEquals(Terminate.RDMAP_INVALID_STAG, Terminate.code(word));
            assertTrue(sink.holds.get() >= 1, "the source was never held");
        }
    }

    /** Reads until the end of stream; a reset fails the test. */
    private static byte[] readToEnd(SocketChannel ch) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(64 * 1024);
        ch.socket().setSoTimeout(10_000);
        var in = ch.socket().getInputStream();
        try {
            for (int n; (n = in.read(b.array())) > 0;) {
                all.write(b.array(), 0, n);
            }
        } catch (IOException e) {
            throw new AssertionError("the stream ended with " + e + " after " + all.size() + " bytes", e);
        }
        return all.toByteArray();
    }

    /** Admits every Read of its source, and refuses every hold of it: withdrawn right after the admission. */
    private static final class WithdrawingSink extends TcpRig.IdleSink {
        final MemorySegment source;
        final AtomicInteger holds = new AtomicInteger();
        final CompletableFuture<String> ending = new CompletableFuture<>();

        WithdrawingSink(MemorySegment source) {
            this.source = source;
        }

        @Override
        public int resolveRemote(int rmrContext, long address, long length, int privilege, RemoteRegion out) {
            if (address < 0 || address + length > source.byteSize()) {
                return RemoteRegion.ACCESS_ERROR;
            }
            out.set(source, address);
            return RemoteRegion.OK;
        }

        @Override
        public int holdSource(int rmrContext, long address, long length, RemoteRegion out) {
            holds.incrementAndGet();
            return RemoteRegion.CLOSED;
        }

        @Override
        public void remoteDisconnected() {
            ending.complete("disconnected");
        }

        @Override
        public void broken() {
            ending.complete("broken");
        }
    }
}
