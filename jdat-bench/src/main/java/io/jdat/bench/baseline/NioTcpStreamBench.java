package io.jdat.bench.baseline;

import java.io.IOException;
import java.net.InetSocketAddress;
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
 * The JVM's TCP streaming limit: one-direction bulk transfer over loopback (127.0.0.1) between two threads
 * with non-blocking {@link SocketChannel}s, both busy-polling (no selector, no sleep). This is the baseline
 * next to {@code ucx_perftest tag_bw} over {@code UCX_TLS=tcp} (see {@code jdat-bench/peers-tcp.sh}) for the
 * {@code tcp} transport's 1 MiB bandwidth goal.
 *
 * <p>Both ends: {@code TCP_NODELAY}, {@code SO_SNDBUF} and {@code SO_RCVBUF} 4 MiB, as in
 * {@link NioTcpPingPongBench}. The JMH thread is the sender: one invocation of {@link #stream} writes
 * {@value #BYTES} bytes as {@code BYTES / size} messages of {@code size} bytes from one direct buffer,
 * calling {@code write} until each is fully accepted by the socket. The receiver is a thread that this state
 * starts: it drains the connection with {@code read} into a direct buffer of {@code size} bytes. Nothing is
 * allocated per invocation.
 *
 * <p>Result: {@code @OperationsPerInvocation(1 MiB)} counts one operation per byte, so the {@code thrpt}
 * score (ops/s) is bytes per second, as in {@code RdmaWriteBandwidthBench} and {@code MemCopyBench}:
 * MB/s (10^6 B/s, the peer table's unit) = score / 10^6. Bytes are counted when the sender's socket accepts
 * them; at most the two socket buffers (a few MiB) are still in flight when an iteration ends, well under 1%
 * of what a 1 s iteration moves. Teardown shuts the sender's output down, lets the receiver drain to end of
 * stream and checks that it received every byte sent.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(NioTcpStreamBench.BYTES)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class NioTcpStreamBench {
    /** Bytes written per invocation (the unit of the score: keep it equal to {@code @OperationsPerInvocation}). */
    public static final int BYTES = 1 << 20;

    /** Message (write buffer) size in bytes; must divide {@value #BYTES}. */
    @Param({"1048576", "65536"})
    public int size;

    private ServerSocketChannel listener;
    private SocketChannel sender;
    private SocketChannel receiverChannel;
    private ByteBuffer buf;
    private Thread receiver;
    private long sent;                              // written by the sender only
    private volatile long received = -1;            // set by the receiver when it ends
    /** Set by teardown to stop the receiver; set by the receiver when it ends, so that the sender does not
     *  spin forever on a full socket. Only read when a {@code read}/{@code write} returned 0. */
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean receiverDone = new AtomicBoolean();
    private volatile Throwable receiverError;

    /** Connects the two channels over 127.0.0.1 and starts the receiver thread. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (size <= 0 || size > BYTES || BYTES % size != 0) throw new IllegalArgumentException("size must divide " + BYTES);
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        sender = SocketChannel.open(listener.getLocalAddress());
        receiverChannel = listener.accept();
        NioTcpPingPongBench.configure(sender);
        NioTcpPingPongBench.configure(receiverChannel);
        buf = ByteBuffer.allocateDirect(size);
        for (int i = 0; i < size; i++) buf.put(i, (byte) i);
        sent = 0;
        received = -1;
        stop.set(false);
        receiverDone.set(false);
        receiverError = null;
        SocketChannel ch = receiverChannel;
        ByteBuffer rbuf = ByteBuffer.allocateDirect(size);
        receiver = new Thread(() -> drain(ch, rbuf), "receiver");
        receiver.setDaemon(true);
        receiver.start();
    }

    /** Ends the stream, waits for the receiver to drain it, checks the byte count, closes the channels. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException, InterruptedException {
        sender.shutdownOutput();                    // the receiver reads the rest, then end of stream
        receiver.join(10_000);
        if (receiver.isAlive()) {
            stop.set(true);                         // fallback: stop it even if data is still arriving
            receiver.join(10_000);
        }
        sender.close();
        receiverChannel.close();
        listener.close();
        if (receiver.isAlive()) throw new IllegalStateException("receiver did not stop");
        if (receiverError != null) throw new IllegalStateException("receiver failed", receiverError);
        if (received != sent) throw new IllegalStateException("sent " + sent + " bytes, received " + received);
    }

    /** Writes {@value #BYTES} bytes as {@code BYTES / size} messages, busy-polling a full socket. */
    @Benchmark
    public void stream() throws IOException {
        ByteBuffer b = buf;
        SocketChannel c = sender;
        for (int k = BYTES / size; k > 0; k--) {
            b.clear();
            while (b.hasRemaining()) {
                if (c.write(b) == 0) {
                    if (receiverDone.get()) throw new IllegalStateException("receiver has stopped", receiverError);
                    Thread.onSpinWait();
                }
            }
        }
        sent += BYTES;
    }

    /** The receiver loop: read whatever has arrived, busy-polling, until end of stream (or stopped). */
    private void drain(SocketChannel c, ByteBuffer b) {
        long total = 0;
        try {
            while (true) {
                b.clear();
                int n = c.read(b);
                if (n > 0) {
                    total += n;
                } else if (n < 0) {
                    return;
                } else {
                    if (stop.get()) return;
                    Thread.onSpinWait();
                }
            }
        } catch (IOException | RuntimeException e) {
            receiverError = e;
        } finally {
            received = total;
            receiverDone.set(true);
        }
    }
}
