package io.jdat.tools.tx;

import static io.jdat.tools.cli.ToolRun.qual;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.cli.ToolRun;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code jdat tx}: counts, validation, both modes, every landed provider. */
class TxCommandTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    /** One IA name per jdat transport in the registry: every provider that has landed. */
    static Stream<String> landedProviders() {
        Map<String, String> byLibrary = new LinkedHashMap<>();
        for (RegistryEntry e : Registry.entries()) {
            byLibrary.putIfAbsent(e.library(), e.iaName());
        }
        return byLibrary.values().stream();
    }

    /** CI: a short configuration with every kind of operation, both posters, 2 threads x 2 endpoints. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("landedProviders")
    void shortRunPassesOnEveryLandedProviderWithExactCounts(String ia) {
        int openBefore = Registry.openCount(ia);
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> ToolRun.jdat("tx", "--ia", ia,
                "-t", "2", "-w", "2", "-i", "10", "--conn-qual", qual(ia), "--json"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        String json = r.out();
        assertTrue(json.startsWith("{\"result\":\"PASS\""), json);
        // 6 default ops x 2 threads x 2 endpoints x 10 iterations, each validated once.
        assertTrue(json.contains("\"total\":{\"expected\":240,\"validated\":240,\"bytes\":" + 4 * 10 * 24576
                + ",\"errors\":0}"), json);
        assertEquals(6, count(json, "\"expected\":40,\"validated\":40,"), json);
        // DTO counters of each IA: per endpoint CONFIG/INFO, FIN, and per iteration READY, DONE and the 3 operations
        // this side posts (requests) or the 1 Send the peer posts (receives); nothing flushed or failed.
        for (String side : List.of("client IA", "server IA")) {
            assertTrue(json.contains("\"" + side + "\":{\"requests_posted\":208,\"requests_completed\":208,"
                    + "\"requests_flushed\":0,\"request_errors\":0,"), json);
            assertTrue(Pattern.compile("\"" + side + "\":\\{[^}]*\"recvs_posted\":128,\"recvs_completed\":128,"
                    + "\"recvs_flushed\":0,\"recv_errors\":0,").matcher(json).find(), json);
        }
        assertEquals("", r.err());
        assertEquals(openBefore, Registry.openCount(ia), "IAs left open");
    }

    @Test
    void tableShowsEveryOperationAndPass() {
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> ToolRun.jdat("tx", "-i", "7",
                "--op", "send:3x4096", "--op", "server:rw:1x65536", "--op", "rr:1000", "--op", "server:sr:5",
                "--conn-qual", qual("mem"), "--poll"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        assertRow(r.out(), "client:send:3x4096", 7, 7 * 3 * 4096);
        assertRow(r.out(), "server:rdma-write:1x65536", 7, 7 * 65536);
        assertRow(r.out(), "client:rdma-read:1x1000", 7, 7 * 1000);
        assertRow(r.out(), "server:send:1x5", 7, 35);
        assertTrue(r.out().contains("polling (dat_evd_dequeue)"), r.out());
        assertTrue(r.out().strip().endsWith("PASS"), r.out());
    }

    private static void assertRow(String out, String op, long n, long bytes) {
        String num = String.format("%,d", n);
        Pattern p = Pattern.compile("(?m)^" + Pattern.quote(op) + "\\s+" + Pattern.quote(num) + "\\s+"
                + Pattern.quote(num) + "\\s+" + Pattern.quote(String.format("%,d", bytes)) + "\\s+0\\s*$");
        assertTrue(p.matcher(out).find(), "no row " + op + " in\n" + out);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    /** Corrupts one byte of one execution's source on one side; the peer's validation must find exactly it. */
    @ParameterizedTest
    @EnumSource(TxOp.Kind.class)
    void oneCorruptedByteIsFoundAndTheRunFails(TxOp.Kind kind) {
        List<TxOp> ops = List.of(new TxOp(false, TxOp.Kind.SEND, 1, 256), new TxOp(true, kind, 3, 1000),
                new TxOp(false, TxOp.Kind.RDMA_WRITE, 1, 64));
        TxConfig c = new TxConfig("mem", ToolRun.nextQual(), 1, 2, 6, ops, false, 10, 42);
        TxHooks corrupt = new TxHooks() {
            @Override
            public void sourceFilled(TxEndpoint ep, long iteration, int op, MemorySegment buffer) {
                if (op == 1 && iteration == 4 && ep.index == 1) {
                    // an RDMA Read source is contiguous; other sources have segments 1088 bytes apart
                    long at = kind == TxOp.Kind.RDMA_READ ? 1500 : 1088 + 7; // logical byte 1007
                    buffer.set(ValueLayout.JAVA_BYTE, at, (byte) (buffer.get(ValueLayout.JAVA_BYTE, at) ^ 0x10));
                }
            }
        };
        int openBefore = Registry.openCount("mem");
        TxResult r = assertTimeoutPreemptively(LIMIT, () -> TxRun.oneProcess(c, corrupt));
        assertFalse(r.passed());
        assertNull(r.fatal(), () -> String.valueOf(r.fatal()));
        assertEquals(1, r.errors());
        assertEquals(1, r.wrong(1));
        assertEquals(0, r.wrong(0) + r.wrong(2));
        assertEquals(c.totalOps(), r.validated(), "validation goes on after wrong data");
        List<String> lines = r.errorLines();
        assertEquals(1, lines.size(), lines::toString);
        String where = kind == TxOp.Kind.RDMA_READ ? "server thread 0 endpoint 1" : "client thread 0 endpoint 1";
        assertTrue(lines.getFirst().startsWith(where + ": server:" + kind.label + ":3x1000 iteration 4: byte "
                + (kind == TxOp.Kind.RDMA_READ ? 1500 : 1007) + " of 3000 is wrong"), lines.getFirst());
        assertEquals(openBefore, Registry.openCount("mem"));
        StringWriter text = new StringWriter();
        TxReport.text(new PrintWriter(text), r, "both sides");
        assertTrue(text.toString().strip().endsWith("FAIL"), text.toString());
    }

    /**
     * A fatal failure in the middle of a run (the server fails in iteration 60 of 100): the report still counts
     * what both sides validated before it (issue 15 item 11: every row said "validated 0").
     */
    @Test
    void afterAFailureTheReportShowsWhatWasValidated() {
        List<TxOp> ops = List.of(new TxOp(false, TxOp.Kind.SEND, 1, 256), new TxOp(true, TxOp.Kind.RDMA_WRITE, 1, 512),
                new TxOp(false, TxOp.Kind.RDMA_READ, 1, 128));
        // one thread of 4 endpoints, which run each iteration in turn: two threads run independently, and on a
        // loaded machine one was 20 iterations behind when the other failed (validated 144 of op 0, not 236..244)
        TxConfig c = new TxConfig("mem", ToolRun.nextQual(), 1, 4, 100, ops, false, 10, 43);
        TxHooks failing = new TxHooks() {
            @Override
            public void sourceFilled(TxEndpoint ep, long iteration, int op, MemorySegment buffer) {
                if (iteration == 60 && ep.name.startsWith("server")) {
                    throw new ToolFailure("injected failure in iteration 60");
                }
            }
        };
        TxResult r = assertTimeoutPreemptively(LIMIT, () -> TxRun.oneProcess(c, failing));
        assertFalse(r.passed());
        assertTrue(String.valueOf(r.fatal()).contains("injected failure in iteration 60"), () -> "" + r.fatal());
        // 4 endpoints: every execution of iterations 0..58 was validated by one side or the other.
        for (int k = 0; k < ops.size(); k++) {
            assertTrue(r.validated(k) >= 4 * 59 && r.validated(k) <= 4 * 61, "op " + k + ": " + r.validated(k));
        }
        assertFalse(r.peerMissing(), "both sides are in this JVM: the server's own counts were taken");
        StringWriter text = new StringWriter();
        TxReport.text(new PrintWriter(text), r, "both sides");
        Pattern total = Pattern.compile("(?m)^total\\s+1,200\\s+([0-9,]+)\\s");
        java.util.regex.Matcher m = total.matcher(text.toString());
        assertTrue(m.find(), text.toString());
        long validated = Long.parseLong(m.group(1).replace(",", ""));
        assertTrue(validated >= 3 * 4 * 59, text.toString());
        assertTrue(text.toString().strip().endsWith("FAIL"), text.toString());
    }

    @Test
    void serverAndClientModesOverTcpExchangeTheirCounts() throws Exception {
        long q = Long.parseLong(qual("tcp"));
        List<TxOp> ops = List.of(new TxOp(false, TxOp.Kind.SEND, 2, 512), new TxOp(true, TxOp.Kind.RDMA_READ, 1, 8192));
        TxConfig c = new TxConfig("tcp", q, 2, 1, 5, ops, false, 10, 7);
        AtomicReference<InetSocketAddress> listening = new AtomicReference<>();
        CompletableFuture<TxResult> server = CompletableFuture.supplyAsync(() -> TxRun.server("tcp", q, false, 10, 20,
                new PrintWriter(new StringWriter()), a -> listening.set((InetSocketAddress) a)));
        TxResult client = assertTimeoutPreemptively(LIMIT, () -> {
            while (listening.get() == null && !server.isDone()) {
                Thread.sleep(10);
            }
            return TxRun.client(c, new InetSocketAddress("127.0.0.1", 0));
        });
        TxResult s = assertTimeoutPreemptively(LIMIT, () -> server.get());
        for (TxResult r : List.of(client, s)) {
            assertTrue(r.passed(), () -> r.errorLines().toString());
            assertEquals(10, r.validated(0));
            assertEquals(10, r.validated(1));
            assertEquals(10 * 1024 + 10 * 8192, r.bytes());
        }
        // Each execution is validated by one side only: the Send's receiver, the RDMA Read's poster.
        assertEquals(0, client.local.validated[0]);
        assertEquals(10, client.peer.validated[0]);
        assertEquals(10, s.local.validated[1]);
        assertEquals(0, s.peer.validated[1]);
        assertEquals(0, Registry.openCount("tcp"));
    }

    @Test
    void clientWithoutServerFailsWithOneErrorLineAndExitCode1() {
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> ToolRun.jdat("tx", "--ia", "tcp",
                "--client", "127.0.0.1:" + qual("tcp"), "-i", "1"));
        assertEquals(1, r.exitCode(), r.out() + r.err());
        List<String> errors = new ArrayList<>(r.out().lines().filter(l -> l.startsWith("error: ")).toList());
        assertEquals(1, errors.size(), r.out());
        assertTrue(errors.getFirst().contains("DAT_CONNECTION_EVENT_NON_PEER_REJECTED (is 'jdat tx --server' "
                + "running there"), errors.getFirst());
        assertTrue(r.out().strip().endsWith("FAIL"), r.out());
    }

    @Test
    void usageErrorsExitWith2() {
        for (String[] args : List.of(new String[] {"tx", "--threads", "0"}, new String[] {"tx", "--op", "fly:2"},
                new String[] {"tx", "--op", "send:0x64"}, new String[] {"tx", "--server", "--client", "x"})) {
            ToolRun.Run r = ToolRun.jdat(args);
            assertEquals(2, r.exitCode(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.err().startsWith("jdat tx: "), r.err());
        }
    }

    /** {@code jdat test}, the former name of {@code jdat tx}, still runs it and says what the name is now. */
    @Test
    void theFormerNameTestStillRunsTxAndSaysSo() {
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> ToolRun.jdat("test", "-i", "2",
                "--op", "send:1x64", "--conn-qual", qual("mem"), "--json"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        assertTrue(r.out().startsWith("{\"result\":\"PASS\""), r.out());
        assertEquals("jdat test: this is now jdat tx (./jdat.sh tx; ./jdat.sh test runs the unit tests): running "
                + "jdat tx", r.err().strip());
    }

    @Test
    void opsParseLikeDapltest() {
        assertEquals(new TxOp(false, TxOp.Kind.SEND, 3, 4096), TxOp.parse("send:3x4096"));
        assertEquals(new TxOp(true, TxOp.Kind.RDMA_WRITE, 1, 65536), TxOp.parse("server:rdma-write:1x64K"));
        assertEquals(new TxOp(false, TxOp.Kind.RDMA_READ, 1, 2048), TxOp.parse("client:RR:2048"));
        assertEquals(new TxOp(false, TxOp.Kind.SEND, 1, 4096), TxOp.parse("sr"));
        assertEquals("server:rdma-read:2x100", new TxOp(true, TxOp.Kind.RDMA_READ, 2, 100).toString());
    }

    @Test
    void patternFindsTheExactWrongByteAtAnyOffset() {
        MemorySegment m = MemorySegment.ofArray(new byte[1000]);
        for (long logical : new long[] {0, 3, 8, 1021}) {
            TxPattern.fill(m, 5, 990, 99, logical);
            assertEquals(-1, TxPattern.mismatch(m, 5, 990, 99, logical));
            assertTrue(TxPattern.mismatch(m, 5, 990, 98, logical) >= 0, "another seed matched");
            for (long at : new long[] {0, 7, 8, 500, 989}) {
                byte b = m.get(ValueLayout.JAVA_BYTE, 5 + at);
                m.set(ValueLayout.JAVA_BYTE, 5 + at, (byte) (b ^ 1));
                assertEquals(at, TxPattern.mismatch(m, 5, 990, 99, logical), "logical " + logical);
                m.set(ValueLayout.JAVA_BYTE, 5 + at, b);
            }
        }
        // A byte written at position p of a stream starting at s equals the one at p - d of a stream at s + d.
        MemorySegment a = MemorySegment.ofArray(new byte[64]);
        TxPattern.fill(a, 0, 64, 5, 0);
        assertEquals(-1, TxPattern.mismatch(a, 13, 40, 5, 13));
    }
}
