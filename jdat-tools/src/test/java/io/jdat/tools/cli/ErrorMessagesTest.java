package io.jdat.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 15 item 10: errors name the fix, at once. An unknown IA is a usage error listing the names in every
 * command; a forgotten {@code --ia tcp} says so; nothing listening is one clear line within seconds; a port in
 * use names the option that picks another; a peer process that went away is said in words; no message carries
 * a conformance statement ID.
 */
class ErrorMessagesTest {
    private static final Duration FAST = Duration.ofSeconds(15);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"perf", "tx", "info", "rping -c", "dtest -h 127.0.0.1", "perf --server",
        "tx --server", "rping -s", "dtest -s", "test"})
    void anUnknownIaIsAUsageErrorListingTheRegisteredNames(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.addAll(List.of("--ia", "no-such-ia"));
        long t0 = System.nanoTime();
        ToolRun.Run r = assertTimeoutPreemptively(FAST,
                () -> ToolRun.jdat(args.toArray(String[]::new)));
        assertEquals(2, r.exitCode(), () -> r.out() + r.err());
        String name = command.split(" ")[0];
        List<String> lines = r.err().lines().filter(l -> !l.startsWith("jdat test: this is now")).toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.getFirst().startsWith("jdat " + name + ": --ia no-such-ia: no IA of that name is registered; "
                + "the registered names are mem, tcp"), r.err());
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "not at once");
    }

    @Test
    void aMistypedIaNameGetsASuggestion() {
        ToolRun.Run r = ToolRun.jdat("info", "--ia", "tpc");
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().startsWith("jdat info: --ia tpc: no IA of that name is registered (did you mean tcp?); "
                + "the registered names are mem, tcp"), r.err());
    }

    @Test
    void aHostAddressWithoutIaTcpSaysAddIaTcp() {
        for (String tool : List.of("perf", "tx")) {
            ToolRun.Run r = ToolRun.jdat(tool, "--client", "127.0.0.1:18515");
            assertEquals(2, r.exitCode(), r.err());
            assertEquals("jdat " + tool + ": 127.0.0.1 is a network address, which IA \"mem\" (mem provider) cannot "
                    + "reach: add --ia tcp", r.err().strip());
        }
        ToolRun.Run shm = ToolRun.jdat("perf", "--ia", "tcp", "--client", "/dev/shm/x/ia-1:5");
        assertEquals(2, shm.exitCode(), shm.err());
        assertTrue(shm.err().contains("is the address of an shm IA (its directory), which IA \"tcp\" (tcp provider) "
                + "cannot reach: add --ia shm"), shm.err());
        ToolRun.Run mem = ToolRun.jdat("tx", "--ia", "tcp", "--client", "mem:mem");
        assertEquals(2, mem.exitCode(), mem.err());
        assertTrue(mem.err().contains("add --ia mem"), mem.err());
    }

    @Test
    void conformanceIdsAreNotShownToUsers() {
        DatException e = new DatException(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                "not an address of this transport: /127.0.0.1:0 (CON-12)");
        assertEquals("DAT_INVALID_ADDRESS (DAT_INVALID_ADDRESS_UNSUPPORTED): not an address of this transport: "
                + "/127.0.0.1:0", ErrorHandler.describe(e));
        assertEquals("x y", ErrorHandler.withoutIds("x (SRZ-03, AMB-25) y"));
        assertEquals("late", ErrorHandler.withoutIds("late (see EVW-03/04)"));
        assertEquals("late", ErrorHandler.withoutIds("late (EVW-03/04)"));
        assertEquals("size (in bytes) 12", ErrorHandler.withoutIds("size (in bytes) 12"));
    }

    @Test
    void dtestWithoutAServerFailsInSecondsWithOneClearLine() throws IOException {
        int port = freePort();
        long t0 = System.nanoTime();
        ToolRun.Run r = assertTimeoutPreemptively(FAST, () -> ToolRun.jdat("dtest", "-h", "127.0.0.1",
                "--info-port", Integer.toString(port)));
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(1, r.exitCode(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals("jdat dtest client: FAILED: no dtest server at 127.0.0.1:" + port + " (connection refused for "
                + "3000 ms): start 'jdat dtest -s' or 'dtest -s' there first, or check -h and --info-port",
                r.err().strip());
        assertTrue(millis < 8000, "took " + millis + " ms");
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void rpingWithoutAServerSaysWhatToStart() {
        String port = ToolRun.qual("tcp");
        ToolRun.Run r = assertTimeoutPreemptively(FAST, () -> ToolRun.jdat("rping", "-c", "-a",
                "127.0.0.1", "-p", port));
        assertEquals(1, r.exitCode(), r.out() + r.err());
        assertEquals("rping client: FAILED: connecting to 127.0.0.1 port " + port + ": refused (DAT_CONNECTION_EVENT_NON_PEER_REJECTED): nothing listens there; "
                + "start 'jdat rping -s -p " + port + "' (or rping -s) there first, or check -a and -p", r.err().strip());
    }

    @Test
    void aPortInUseNamesTheOptionThatPicksAnother() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
            String p = Integer.toString(taken.getLocalPort());
            for (String[] args : List.of(new String[] {"tx", "--ia", "tcp", "--conn-qual", p, "-i", "1"},
                    new String[] {"tx", "--ia", "tcp", "--server", "--conn-qual", p},
                    new String[] {"perf", "--ia", "tcp", "--server", "--conn-qual", p},
                    new String[] {"dtest", "-s", "--conn-qual", p, "--info-port", Integer.toString(freePort())},
                    new String[] {"rping", "-s", "-p", p})) {
                ToolRun.Run r = assertTimeoutPreemptively(FAST, () -> ToolRun.jdat(args));
                assertEquals(1, r.exitCode(), () -> String.join(" ", args) + ": " + r.out() + r.err());
                List<String> errs = r.err().lines().filter(l -> l.contains("error")).toList();
                assertEquals(1, errs.size(), r.err());
                String option = args[0].equals("rping") ? "-p PORT" : "--conn-qual Q";
                assertTrue(errs.getFirst().endsWith("TCP port " + p + " is in use; pick a free one with " + option)
                        || errs.getFirst().endsWith("(perf listens on Q and Q + 1)"), errs::toString);
            }
            ToolRun.Run info = assertTimeoutPreemptively(FAST, () -> ToolRun.jdat("dtest", "-s",
                    "--info-port", p, "--conn-qual", ToolRun.qual("tcp")));
            assertEquals(1, info.exitCode(), info.out() + info.err());
            assertEquals("jdat dtest server: FAILED: port " + p + " (the server info) is in use: pick another with "
                    + "--info-port PORT, and give the client the same", info.err().strip());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
