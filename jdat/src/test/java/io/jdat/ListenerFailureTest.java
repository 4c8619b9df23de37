package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.shm.ShmTesting;
import io.jdat.tcp.TcpTesting;
import io.jdat.testing.LimitedChild;
import io.jdat.testing.Pair;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A listener survives accept failures (issue 14 item 3): a server in a child JVM under {@code ulimit -n 256}
 * (and, when the tests run as root, as the unprivileged user {@code nobody} through {@code setpriv}) has its
 * fds exhausted by idle connections. Its accept fails with EMFILE; the listener logs it (WARNING), backs off,
 * posts {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} (dat_handle = the PSP) on the IA's async EVD once the
 * failure has lasted a second, logs that (ERROR), keeps retrying, and once the idle connections are released
 * it serves a later client and logs that it accepts again (INFO). Before, the first failed accept ended the
 * accept thread silently and every later client timed out.
 */
class ListenerFailureTest {
    private static final int NOFILE = 256;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @BeforeAll
    static void register() {
        TcpTesting.register();
        ShmTesting.register();
    }

    /** A child JVM whose stdout and stderr lines (merged) are queued for {@link #await}. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<String> seen = new ArrayList<>();

        Child(List<String> command) throws IOException {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Thread.ofPlatform().daemon().name("listener-child-output").start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null;) {
                        System.err.println("[listener child] " + l);
                        lines.add(l);
                    }
                } catch (IOException e) {
                    // the child is gone
                }
            });
        }

        Matcher await(String regex) throws InterruptedException {
            Matcher m = tryAwait(regex, WAIT);
            if (m == null) {
                throw new AssertionError("the child printed no line matching /" + regex + "/ within " + WAIT
                        + (process.isAlive() ? "" : " (it exited)") + "; it printed:\n" + String.join("\n", seen));
            }
            return m;
        }

        /** The next line matching {@code regex} within {@code timeout}, or null. */
        Matcher tryAwait(String regex, Duration timeout) throws InterruptedException {
            Pattern p = Pattern.compile(regex);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String l = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (l == null) {
                    return null;
                }
                seen.add(l);
                Matcher m = p.matcher(l);
                if (m.find()) {
                    return m;
                }
            }
        }

        /** Takes into {@link #seen} every line the child prints within {@code timeout}. */
        void drain(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (String l; (l = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) != null;) {
                seen.add(l);
            }
        }

        /** Like {@link #await}, but a line already passed over by an earlier wait counts too. */
        void sawOrAwait(String regex) throws InterruptedException {
            Pattern p = Pattern.compile(regex);
            if (seen.stream().noneMatch(l -> p.matcher(l).find())) {
                await(regex);
            }
        }

        /**
         * Waits until the child's last {@code FDS n} line (one it printed before this call included) says fewer
         * than {@code limit} open fds.
         */
        void awaitFdsBelow(int limit, Duration timeout) throws InterruptedException {
            Pattern p = Pattern.compile("^FDS (\\d+)$");
            long n = -1;
            for (String l : seen) {
                Matcher m = p.matcher(l);
                n = m.find() ? Long.parseLong(m.group(1)) : l.startsWith("FDS ") ? -1 : n;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (n < 0 || n >= limit) {
                Matcher m = tryAwait("^FDS (\\d+|none.*)$", Duration.ofNanos(deadline - System.nanoTime()));
                if (m == null) {
                    throw new AssertionError("the child's open fds did not fall below " + limit + " within "
                            + timeout + " (last count " + n + ")");
                }
                n = Character.isDigit(m.group(1).charAt(0)) ? Long.parseLong(m.group(1)) : -1;
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The command that runs {@link ListenerServerMain} with {@code library} under {@code ulimit -n NOFILE},
     * as {@code nobody} when this JVM runs as root (and {@code unprivileged}). The class path is jdat's own
     * class directories only, which every user can read.
     */
    private static List<String> command(String library, String params, boolean unprivileged) throws Exception {
        String cp = Path.of(InterfaceAdapter.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                + File.pathSeparator
                + Path.of(ListenerServerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return LimitedChild.command(NOFILE, unprivileged, cp, "-Djdat." + library + ".trace=true",
                ListenerServerMain.class.getName(), library, params);
    }

    @Test
    @DisplayName("tcp, ulimit -n 256, as nobody: idle connections exhaust the server's fds, accept fails (WARNING),"
            + " DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR on the async EVD (handle = PSP), the idle connections go,"
            + " a later client is ESTABLISHED and the listener logs that it accepts again")
    void tcpListenerSurvivesFdExhaustion() throws Exception {
        try (Child child = new Child(command("tcp", "127.0.0.1", true))) {
            Matcher id = child.await("^ID uid=(\\d+).* nofile=(\\d+)");
            if (LimitedChild.isRoot()) {
                assertEquals("65534", id.group(1), "the child runs as nobody");
            }
            assertEquals(String.valueOf(NOFILE), id.group(2), "the child's fd limit");
            int port = Integer.parseInt(child.await("^READY qual=(\\d+)").group(1));
            InetSocketAddress server = new InetSocketAddress("127.0.0.1", port);
            List<Socket> idle = new ArrayList<>();
            Matcher failed;
            Matcher async;
            try {
                // More than the child has fds for: it accepts until EMFILE; the rest wait in the backlog.
                for (int i = 0; i < NOFILE + 64; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(server, 2_000);
                    } catch (IOException e) {
                        s.close();
                        break; // the backlog is full too
                    }
                    idle.add(s);
                }
                // Not fatal yet: without a trace of the failure, the served client below is the first check.
                failed = child.tryAwait(ACCEPT_FAILED, Duration.ofSeconds(15));
                async = child.tryAwait(ASYNC, Duration.ofSeconds(failed == null ? 1 : 15));
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
            child.awaitFdsBelow(NOFILE / 4, WAIT); // as in the shm case below
            try (Pair p = new Pair(TcpTesting.LO, null, 16)) {
                p.client.ep.connect(server, port, 20_000_000, 0, null, Qos.BEST_EFFORT, 0);
                DatEvent e = new DatEvent();
                assertTrue(p.client.connEvd.waitFor(25_000_000, 1, e), "no connection event within 25 s");
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), "a later client is served");
                child.await("^SERVED");
                p.client.ep.disconnect(CloseFlags.ABRUPT);
            }
            checkTrace(child, failed, async);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    /** The first line of a java.util.logging record: "Nov 27, 2026 9:40:31 PM io.jdat... log". */
    private static final Pattern LOG_HEADER = Pattern.compile("^[A-Z][a-z]{2} \\d+, \\d{4} ");

    private static final String ACCEPT_FAILED = "accept failed \\(java.io.IOException: Too many open files\\)";
    private static final String ASYNC = "^ASYNC (\\S+) handle=(\\S+) reason=(\\d+) psp=(\\w+)";

    /** The failure was logged (WARNING), reported (async event, handle = the PSP), and the recovery logged. */
    private static void checkTrace(Child child, Matcher failed, Matcher async) throws InterruptedException {
        assertNotNull(failed, "no WARNING of the failed accept");
        assertNotNull(async, "no async event");
        assertEquals(EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR.name(), async.group(1));
        assertEquals("PSP", async.group(2));
        assertEquals(String.valueOf(AsyncReason.IA_OTHER_ERROR), async.group(3));
        assertEquals("true", async.group(4), "dat_handle is the PSP");
        child.sawOrAwait("accepting again after \\d+ failed accepts");
    }

    @Test
    @DisplayName("shm, ulimit -n 256: idle requesters on the qualifier's socket exhaust the server's fds, accept fails"
            + " (WARNING), DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR (handle = PSP), the requesters go, a later client"
            + " is ESTABLISHED")
    void shmListenerSurvivesFdExhaustion() throws Exception {
        // shm as a non-root user is issue 14 item 1 (another change): this child runs as the current user.
        try (Child child = new Child(command("shm", "", false))) {
            child.await("^ID uid=(\\d+).* nofile=" + NOFILE);
            Matcher ready = child.await("^READY qual=(\\d+) address=(\\S+)");
            long qual = Long.parseLong(ready.group(1));
            Path dir = Path.of(ready.group(2));
            Path socket = dir.resolve("q-" + Long.toUnsignedString(qual));
            List<SocketChannel> idle = new ArrayList<>();
            Thread opener = Thread.ofPlatform().daemon().start(() -> {
                // A blocking connect waits while the backlog is full: open from a thread, stop when the child
                // has failed to accept for a while.
                for (int i = 0; i < NOFILE + 64 && !Thread.currentThread().isInterrupted(); i++) {
                    try {
                        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                        synchronized (idle) {
                            idle.add(ch);
                        }
                        ch.connect(UnixDomainSocketAddress.of(socket));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            Matcher failed;
            Matcher async;
            try {
                failed = child.tryAwait(ACCEPT_FAILED, Duration.ofSeconds(15));
                async = child.tryAwait(ASYNC, Duration.ofSeconds(failed == null ? 1 : 15));
            } finally {
                opener.interrupt();
                synchronized (idle) {
                    for (SocketChannel ch : idle) {
                        ch.close();
                    }
                }
                opener.join(10_000);
                synchronized (idle) {
                    for (SocketChannel ch : idle) {
                        ch.close();
                    }
                }
            }
            // A Unix socket's full backlog refuses at once (NON_PEER_REJECTED, CON-08) where TCP's makes the
            // client retry: connect once the listener works through its backlog again, retrying as a client would
            // for up to 30 s (a CI run once saw five attempts a second apart all refused; the child traces its
            // side and prints its open fds, so that a failure says why).
            child.tryAwait("accepting again after \\d+ failed accepts", Duration.ofSeconds(15));
            // The idle requests' passive sides close as they read EOF. A request read while the fds are still
            // exhausted once failed to load CmMessage from the class directories, for good (NoClassDefFoundError
            // on every later request): the listener now links its handshake's classes when it starts
            // (StreamListener.linkHandshake), so this test fails again if that goes.
            child.awaitFdsBelow(NOFILE / 4, WAIT);
            String trace = System.setProperty("jdat.shm.trace", "true"); // the client's side of a failure, too
            try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
                restore("jdat.shm.trace", trace);
                SocketAddress to = UnixDomainSocketAddress.of(dir);
                DatEvent e = new DatEvent();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                int attempts = 0;
                do {
                    if (attempts++ > 0) {
                        p.client.ep.reset();
                        Thread.sleep(1_000);
                    }
                    p.client.ep.connect(to, qual, 20_000_000, 0, null, Qos.BEST_EFFORT, 0);
                    assertTrue(p.client.connEvd.waitFor(25_000_000, 1, e), "no connection event within 25 s");
                } while (e.eventNumber() == EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                        && System.nanoTime() < deadline);
                if (e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                    child.drain(Duration.ofSeconds(1)); // what the child printed meanwhile
                    throw new AssertionError("a later client is served: " + attempts + " attempts in 30 s ended "
                            + e.eventNumber() + "; the child printed (idle requests' EOFs left out):\n"
                            + String.join("\n", child.seen.stream()
                                    .filter(l -> !l.contains("request dropped: java.io.EOFException")
                                            && !l.contains("accept failed: java.io.IOException")
                                            && !LOG_HEADER.matcher(l).find())
                                    .toList()));
                }
                assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), "a later client is served");
                child.await("^SERVED");
                p.client.ep.disconnect(CloseFlags.ABRUPT);
            }
            checkTrace(child, failed, async);
        }
    }
}
