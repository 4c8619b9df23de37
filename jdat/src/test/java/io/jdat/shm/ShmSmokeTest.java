package io.jdat.shm;

import static io.jdat.testing.DataPath.dtoOk;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ShmSmokeTest {
    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    static Stream<String> ias() {
        return Stream.of(ShmTesting.SHM, ShmTesting.SHM_BOUNCE, ShmTesting.SHM_SMALL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ias")
    void sendWriteRead(String ia) {
        try (Pair p = new Pair(ia, null, 64).connect()) {
            for (int i = 0; i < 1024; i++) {
                p.client.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 4096)}, 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 1000)}, 2, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 2, 1000);
            dtoOk(p.server.recvEvd, 1, 1000);
            for (int i = 0; i < 1000; i++) {
                assertEquals((byte) (i * 7), p.server.buf.get(ValueLayout.JAVA_BYTE, i));
            }
            RmrTriplet remote = new RmrTriplet(p.server.lmr.rmrContext(), p.server.buf.address() + 8192, 30000);
            p.client.ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(0, 30000)}, 3, remote,
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 3, 30000);
            for (int i = 0; i < 1000; i++) {
                assertEquals((byte) (i * 7), p.server.buf.get(ValueLayout.JAVA_BYTE, 8192 + i));
            }
            p.client.ep.postRdmaRead(1, new LmrTriplet[] {p.client.lmr.triplet(40000, 20000)}, 4,
                    new RmrTriplet(p.server.lmr.rmrContext(), p.server.buf.address() + 8192, 20000),
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 4, 20000);
            for (int i = 0; i < 1000; i++) {
                assertEquals((byte) (i * 7), p.client.buf.get(ValueLayout.JAVA_BYTE, 40000 + i));
            }
        }
    }
}
