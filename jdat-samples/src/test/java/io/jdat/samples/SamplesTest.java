package io.jdat.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.samples.clientserver.Client;
import io.jdat.samples.clientserver.Server;
import io.jdat.samples.hello.Hello;
import io.jdat.samples.kv.KvClient;
import io.jdat.samples.kv.KvServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every sample's main on mem, shm and tcp. The servers of the two-process samples run in a child JVM on shm
 * and tcp (on mem, whose IAs live in one JVM, in a thread of this one); the clients run here.
 */
@ResourceLock("System.out")
class SamplesTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+) qualifier (\\d+).*");

    /** System.out while a sample runs: each thread's output goes where {@link #OUT} routes it. */
    private static final Map<Thread, OutputStream> OUT = new ConcurrentHashMap<>();

    /** Runs {@code main} with {@code args} on this thread and returns what it printed. */
    static String run(Consumer<String[]> main, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        routed(bytes, main, args);
        String out = bytes.toString(StandardCharsets.UTF_8);
        System.err.print(out); // in the test log
        return out;
    }

    /** Runs {@code main} on this thread with its System.out output going to {@code sink}. */
    static void routed(OutputStream sink, Consumer<String[]> main, String... args) {
        PrintStream saved;
        synchronized (OUT) {
            saved = System.out;
            if (!(saved instanceof Router)) {
                System.setOut(new Router(saved));
            }
            OUT.put(Thread.currentThread(), sink);
        }
        try {
            main.accept(args);
        } finally {
            System.out.flush();
            OUT.remove(Thread.currentThread());
        }
    }

    /** A System.out that writes each thread's bytes to its route, the rest to the original stream. */
    private static final class Router extends PrintStream {
        Router(PrintStream original) {
            super(new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    OutputStream o = OUT.get(Thread.currentThread());
                    if (o == null) {
                        original.write(b, off, len);
                    } else {
                        o.write(b, off, len);
                    }
                }
            }, true, StandardCharsets.UTF_8);
        }
    }

    /** Bytes to lines, for a server thread's output. */
    static final class Lines extends OutputStream {
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.add(line.toString(StandardCharsets.UTF_8));
                line.reset();
            } else {
                line.write(b);
            }
        }

        String next(int seconds) throws InterruptedException {
            String l = lines.poll(seconds, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("no server output within " + seconds + " s");
            }
            return l;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "shm", "tcp"})
    void hello(String provider) {
        String out = run(Hello::main, provider);
        assertTrue(out.contains("rdma write: 1024 bytes checked\n") && out.contains("rdma read: 1024 bytes checked\n")
                && out.endsWith("disconnected\n"), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "shm", "tcp"})
    void clientServer(String provider) throws Exception {
        String out = twoSides(provider, "io.jdat.samples.clientserver.Server", Server::main,
                (addr, q) -> run(Client::main, provider, addr, q, "hello", "rdma", "wörld"));
        assertEquals("hello -> HELLO\nrdma -> RDMA\nwörld -> WÖRLD\n", out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "shm", "tcp"})
    void oneSidedKeyValueLookup(String provider) throws Exception {
        String out = twoSides(provider, "io.jdat.samples.kv.KvServer", KvServer::main,
                (addr, q) -> run(KvClient::main, provider, addr, q, "Fe", "Au", "U", "Xx", "iron"));
        String[] lines = out.split("\n");
        assertEquals(5, lines.length, out);
        assertTrue(lines[0].startsWith("Fe -> iron ("), out);
        assertTrue(lines[1].startsWith("Au -> gold ("), out);
        assertTrue(lines[2].startsWith("U -> uranium ("), out);
        assertTrue(lines[3].startsWith("Xx: not found ("), out);
        assertTrue(lines[4].startsWith("iron: not found ("), out);
    }

    interface ClientRun {
        String run(String address, String qualifier) throws Exception;
    }

    /**
     * Starts the server for one client (a child JVM, or a thread on mem), runs the client with the address
     * and qualifier the server printed, and checks that the server ends well. Returns the client's output.
     */
    private static String twoSides(String provider, String serverClass, Consumer<String[]> serverMain,
            ClientRun client) throws Exception {
        if (provider.equals("mem")) {
            Lines lines = new Lines();
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> routed(lines, serverMain, provider, "1"));
            Matcher m = listening(lines.next(30));
            String out = client.run(m.group(1), m.group(2));
            server.get(30, TimeUnit.SECONDS);
            assertTrue(lines.next(5).startsWith("client 1"), "server's last line");
            return out;
        }
        try (Child server = Child.start(null, serverClass, provider, "1")) {
            Matcher m = listening(server.line(60));
            String out = client.run(m.group(1), m.group(2));
            assertEquals(0, server.exit(60), server.output());
            assertTrue(server.output().contains("\nclient 1"), server.output());
            if (serverClass.endsWith("KvServer")) {
                assertTrue(server.output().contains("server DTOs posted: 0"), server.output());
            }
            return out;
        }
    }

    private static Matcher listening(String line) {
        Matcher m = LISTENING.matcher(line);
        assertTrue(m.matches(), "server's first line: " + line);
        return m;
    }
}
