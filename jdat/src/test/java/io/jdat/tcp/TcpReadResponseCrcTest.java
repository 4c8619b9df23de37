package io.jdat.tcp;

import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EpState;
import io.jdat.RmrTriplet;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * An RDMA Read Response's source is memory that the responder's consumer may write at any time: it knows
 * nothing of the peer's Read. With MPA CRC on, the CRC must cover exactly the bytes that went on the wire,
 * whatever the consumer writes meanwhile (found by DAPL's dtest exchange, whose read phase rewrites the buffer
 * the peer reads: the Response was CRC'd in one pass over memory and sent from memory in another, so a write
 * between the two made the requester see a CRC mismatch and Terminate the connection).
 */
class TcpReadResponseCrcTest {
    private static final int SIZE = 4096;
    private static final int READS = 2000;

    /** CRC with Ethernet-sized FPDUs: a 4 KiB Response goes out as three FPDUs. */
    private static final String LO_CRC_ETH = "tcp-test-crc-eth";

    @BeforeAll
    static void register() {
        TcpTesting.register();
        try {
            io.jdat.Registry.addProvider(new io.jdat.RegistryEntry(LO_CRC_ETH, 'u', 1, 2, true, false, "tcp", "jdat",
                    1, 0, "127.0.0.1 crc=on mulpdu=1442", ""));
        } catch (io.jdat.DatException e) {
            assertEquals(io.jdat.DatReturnType.PROVIDER_ALREADY_REGISTERED, e.type());
        }
    }

    @Test
    @DisplayName("RDR-02 RDR-19: RDMA Reads with CRC while the responder's consumer keeps rewriting the source: every"
            + " Read completes, each 8-byte word is one the writer wrote, the connection stays up")
    void readSourceRewrittenDuringTheResponse() throws Exception {
        for (String ia : new String[] {TcpTesting.LO_CRC, LO_CRC_ETH}) {
            readWhileRewriting(ia);
        }
    }

    private static void readWhileRewriting(String ia) throws Exception {
        try (Pair p = new Pair(ia, DataPath.attr(), 64).connect()) {
            MemorySegment source = p.server.buf.asSlice(0, SIZE);
            source.fill((byte) 1); // every word positive before the writer starts
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().name("rewriter").start(() -> {
                for (long v = 1; !stop.get(); v++) {
                    for (long at = 0; at < SIZE; at += 8) {
                        source.set(ValueLayout.JAVA_LONG, at, v); // aligned: a Read sees whole words
                    }
                }
            });
            try {
                RmrTriplet from = p.server.lmr.remoteTriplet(0, SIZE);
                MemorySegment sink = p.client.buf.asSlice(SIZE, SIZE);
                for (int i = 0; i < READS; i++) {
                    p.client.ep.postRdmaRead(1, iov(p.client.lmr, SIZE, SIZE), i, from, CompletionFlags.DEFAULT);
                    DatEvent e = p.client.expectDto(p.client.reqEvd, i);
                    assertEquals(SIZE, e.transferredLength());
                    for (long at = 0; at < SIZE; at += 8) {
                        assertTrue(sink.get(ValueLayout.JAVA_LONG, at) > 0, "word " + at + " of Read " + i);
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState(), ia);
            assertEquals(EpState.CONNECTED, p.server.ep.getStatus().epState(), ia);
        }
    }
}
