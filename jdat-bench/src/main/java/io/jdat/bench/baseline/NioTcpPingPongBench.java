package io.jdat.bench.baseline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JVM's TCP latency limit: a raw Java NIO ping-pong over loopback (127.0.0.1) between two threads, with
 * non-blocking {@link SocketChannel}s that both sides busy-poll (no selector, no sleep); modelled on
 * {@code shared/bench/peers/NioTcpPingPong.java} in its {@code spin} mode. This is the baseline of the
 * {@code tcp} transport's latency goal (one-way 64 B &lt;= 1.2x this), measured in the same run.
 *
 * <p>Both ends: {@code TCP_NODELAY}, {@code SO_SNDBUF} and {@code SO_RCVBUF} 4 MiB (as the peer program),
 * direct {@link ByteBuffer}s allocated once. The JMH thread is "ping"; "pong" is an echo thread that this
 * state starts on the accepted connection. One invocation of {@link #roundTrip} is one round trip:
 * <ol>
 *   <li>ping writes {@code size} bytes, calling {@code write} until the buffer is empty;</li>
 *   <li>pong, spinning on {@code read} (which returns 0 while nothing has arrived), reads until it has the
 *       whole {@code size} bytes, then writes them back the same way;</li>
 *   <li>ping spins on {@code read} until it has the whole echo.</li>
 * </ol>
 * Nothing is allocated per round trip (check with {@code -prof gc}).
 *
 * <p>Result: {@code @OperationsPerInvocation(2)} makes JMH divide the time per round trip by two, so the
 * {@code avgt} score (ns/op) is the ONE-WAY latency = RTT / 2, the basis of the peer table and of
 * {@code ucx_perftest tag_lat} and {@code fi_pingpong} (which also report half the mean round trip). The
 * peer program reports the median; the mean here includes the tail (scheduler hiccups on a 2-core machine).
 *
 * <p>On a 2-core machine the two spinning threads take both cores: any third busy thread ruins the figure.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class NioTcpPingPongBench {
    /** Socket buffer sizes of both ends, as in the peer program. */
    static final int SOCKET_BUFFER = 4 << 20;

    /** Message size in bytes. */
    @Param({"64", "4096"})
    public int size;

    private ServerSocketChannel listener;
    private SocketChannel ping;
    private SocketChannel pongChannel;
    private ByteBuffer buf;
    private Thread pong;
    /** Set by teardown to stop pong; set by pong when it ends, so that ping does not spin forever. Only read
     *  when a {@code read} returned 0, and in its own object: ping writes nothing pong reads in its loop. */
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean pongDone = new AtomicBoolean();
    private volatile Throwable pongError;

    /** Connects the two channels over 127.0.0.1 and starts the echo thread. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (size <= 0) throw new IllegalArgumentException("size > 0");
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        ping = SocketChannel.open(listener.getLocalAddress());       // blocking connect, then non-blocking
        pongChannel = listener.accept();
        configure(ping);
        configure(pongChannel);
        buf = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) buf.put(i, (byte) 'p');
        stop.set(false);
        pongDone.set(false);
        pongError = null;
        SocketChannel ch = pongChannel;
        ByteBuffer pongBuf = ByteBuffer.allocateDirect(size);
        pong = new Thread(() -> echo(ch, pongBuf), "pong");
        pong.setDaemon(true);
        pong.start();
    }

    /** Stops the echo thread (stop flag, then end of stream) and closes the channels. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException, InterruptedException {
        stop.set(true);
        ping.shutdownOutput();                  // pong also ends on end of stream
        pong.join(10_000);
        ping.close();
        pongChannel.close();
        listener.close();
        if (pong.isAlive()) throw new IllegalStateException("pong did not stop");
        if (pongError != null) throw new IllegalStateException("pong failed", pongError);
    }

    /** One round trip of a {@code size}-byte message; the score is half of it (see class doc). */
    @Benchmark
    public void roundTrip() throws IOException {
        ByteBuffer b = buf;
        SocketChannel c = ping;
        b.clear();
        while (b.hasRemaining()) {
            if (c.write(b) == 0) checkPong();
        }
        b.clear();
        while (b.hasRemaining()) {
            int n = c.read(b);
            if (n <= 0) {
                if (n < 0) throw new IOException("pong closed the connection");
                checkPong();
            }
        }
    }

    private void checkPong() {
        if (pongDone.get()) throw new IllegalStateException("pong has stopped", pongError);
        Thread.onSpinWait();
    }

    /** The pong loop: read a whole message (busy-polling), write it back; until stopped or end of stream. */
    private void echo(SocketChannel c, ByteBuffer b) {
        try {
            while (true) {
                b.clear();
                while (b.hasRemaining()) {
                    int n = c.read(b);
                    if (n < 0) return;                                  // ping shut down its output
                    if (n == 0) {
                        if (stop.get()) return;
                        Thread.onSpinWait();
                    }
                }
                b.flip();
                while (b.hasRemaining()) {
                    if (c.write(b) == 0) {
                        if (stop.get()) return;
                        Thread.onSpinWait();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!stop.get()) pongError = e;
        } finally {
            pongDone.set(true);
        }
    }

    /** TCP_NODELAY, 4 MiB socket buffers, non-blocking. */
    static void configure(SocketChannel c) {
        try {
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            c.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            c.configureBlocking(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
