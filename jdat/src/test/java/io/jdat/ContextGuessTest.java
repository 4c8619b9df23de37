package io.jdat;

import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.tcp.TcpTesting;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A hostile peer in the victim's PZ guesses registration contexts (issue 14 item 4): before, the Nth
 * registration of an IA always had context {@code N<<8|1}, so a peer read and wrote LMRs never advertised to
 * it. Now every guess of {@code N<<8|k} (k = 0, 1, 2; N = 1..24), even with the exact target address of an
 * unadvertised LMR, is refused: a Read completes with DAT_DTO_ERR_REMOTE_ACCESS (a Write too on mem; on tcp
 * a Write may complete SUCCESS first, its bytes being in the socket), the connection breaks on both sides
 * (CONNECTION_EVENT_BROKEN, RWR-09, LMF-04) and no byte moves.
 */
class ContextGuessTest {
    private static final int SECRETS = 16;
    private static final int SECRET_SIZE = 4096;
    private static final byte SECRET = 0x5A;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mem", TcpTesting.LO})
    @DisplayName("RWR-09 RDR-14 LMF-04: guessed contexts N<<8|k of unadvertised LMRs in the target EP's PZ are"
            + " refused: DAT_DTO_ERR_REMOTE_ACCESS, CONNECTION_EVENT_BROKEN on both sides, no byte read or written")
    void guessedContextsAreRefused(String iaName) {
        try (Pair p = new Pair(iaName, null, 16); Arena arena = Arena.ofShared()) {
            MemorySegment secretMemory = arena.allocate((long) SECRETS * SECRET_SIZE, 4096);
            secretMemory.fill(SECRET);
            Lmr[] secrets = new Lmr[SECRETS];
            for (int i = 0; i < SECRETS; i++) {
                secrets[i] = Lmr.create(p.server.ia, MemType.VIRTUAL,
                        RegionDescription.forVa(secretMemory.asSlice((long) i * SECRET_SIZE, SECRET_SIZE)),
                        SECRET_SIZE, p.server.pz, MemPriv.ALL);
            }
            PublicServicePoint psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            SocketAddress to = iaName.equals("mem") ? Pair.address()
                    : p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            long cookie = 0;
            for (int n = 1; n <= 24; n++) {
                // The server's own LMR is registration 1, the secrets 2..17: aim each guess at the address
                // of the LMR the old scheme would have found under N, so a context hit is a data hit.
                Lmr aim = secrets[Math.floorMod(n - 2, SECRETS)];
                for (int key = 0; key <= 2; key++) {
                    int guess = n << 8 | key;
                    boolean write = (n + key) % 2 == 0;
                    connect(p, psp.connQual(), to);
                    p.client.buf.asSlice(0, 64).fill((byte) 0x11);
                    RmrTriplet remote = new RmrTriplet(guess, aim.registeredAddress(), 64);
                    if (write) {
                        p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), ++cookie, remote,
                                CompletionFlags.DEFAULT);
                    } else {
                        p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 64), ++cookie, remote,
                                CompletionFlags.DEFAULT);
                    }
                    DatEvent e = p.client.next(p.client.reqEvd);
                    assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
                    assertEquals(cookie, e.userCookie());
                    if (write && !iaName.equals("mem")) {
                        // iWARP: a Write completes when its bytes are in the socket; the Terminate follows.
                        assertTrue(e.status() == DtoCompletionStatus.SUCCESS
                                || e.status() == DtoCompletionStatus.ERR_REMOTE_ACCESS, e.toString());
                    } else {
                        assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, e.status(), "guess 0x"
                                + Integer.toHexString(guess) + ": " + e);
                    }
                    expectBroken(p);
                    for (int i = 0; i < 64; i++) {
                        assertEquals(0x11, p.client.buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i),
                                "guess 0x" + Integer.toHexString(guess) + " read secret bytes");
                    }
                    for (long i = 0; i < secretMemory.byteSize(); i++) {
                        if (secretMemory.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != SECRET) {
                            throw new AssertionError("guess 0x" + Integer.toHexString(guess) + " wrote secret byte "
                                    + i);
                        }
                    }
                    p.client.ep.reset();
                    p.server.ep.reset();
                }
            }
            // The contexts themselves are none of the guesses.
            for (Lmr s : secrets) {
                int c = s.rmrContext();
                assertEquals(false, (c >>> 8) <= 24 && (c & 0xFF) <= 2, "context 0x" + Integer.toHexString(c)
                        + " is one of the guesses");
                s.free();
            }
            psp.free();
        }
    }

    /** Connects the client EP to the server EP through {@code qual}; both see ESTABLISHED. */
    private static void connect(Pair p, long qual, SocketAddress to) {
        p.client.ep.connect(to, qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent cr = p.server.next(p.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        cr.cr().accept(p.server.ep, 0, null);
        p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }
}
