package io.jdat.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.tools.session.SampleFailure;
import io.jdat.tools.session.SampleSide;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rping sample: rping's data, and a client and a server over the tcp provider on loopback. */
class RpingTest {
    @Test
    void dataIsRpings() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(100);
            Rping.fill(m, 0);
            String s = new String(m.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
            // what rping -v printed in the guest for ping 0 of 100 bytes
            assertEquals("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ[\\",
                    Rping.text(m));
            assertEquals(0, s.charAt(99));
            Rping.fill(m, 58); // the start character wraps after 'z' like rping's
            assertEquals("rdma-ping-58: ABC", Rping.text(m).substring(0, 17));
        }
    }

    @ParameterizedTest
    @CsvSource({"64, 127.0.0.1", "4096, 127.0.0.1 crc=on", "65536, 127.0.0.1 crc=on mulpdu=1442"})
    void clientAndServer(int size, String params) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String ia = SampleSide.registerTcp("rping-test-" + params.replace(' ', '-'), params);
        StringWriter out = new StringWriter();
        PrintWriter w = new PrintWriter(out, true);
        CompletableFuture<Integer> server = CompletableFuture.supplyAsync(
                () -> new Rping(new Rping.Config(ia, null, port, 3, size, true, true, 10_000), w).server());
        int served = -1;
        int pinged = 0;
        for (int attempt = 0; attempt < 50; attempt++) { // until the server listens
            try {
                pinged = new Rping(new Rping.Config(ia, "127.0.0.1", port, 3, size, true, true, 10_000), w).client();
                break;
            } catch (SampleFailure e) {
                if (!e.getMessage().contains("REJECTED")) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
        served = server.get(30, TimeUnit.SECONDS);
        assertEquals(3, pinged);
        assertEquals(3, served, out.toString());
    }
}
