package io.jdat.bench.baseline;

import java.util.concurrent.TimeUnit;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
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
 * Aeron IPC ping-pong in one JVM, modelled on {@code shared/bench/peers/AeronTunedPingPong.java} with its
 * best 2-core setting: embedded {@link MediaDriver} in {@link ThreadingMode#SHARED} with a backoff idle
 * strategy (the driver is not on the IPC data path once the streams are connected), ping and pong both
 * busy-spinning.
 *
 * <p>The JMH thread is "ping": one invocation of {@link #roundTrip} offers a {@code messageBytes} message
 * on stream 1002 of {@code aeron:ipc} (spinning while {@code offer} is back-pressured) and spins polling
 * stream 1003 until the echo arrives. "Pong" is a thread this state starts: it polls stream 1002 and
 * offers each fragment back on stream 1003. Ping and pong share one Aeron client (the peer found no
 * difference with separate clients for IPC).
 *
 * <p>Result: {@code @OperationsPerInvocation(2)} makes JMH divide the time per round trip by two, so the
 * {@code avgt} score (ns/op) is the ONE-WAY latency = RTT / 2, the basis of the peer table.
 *
 * <p>JVM flags (in {@code @Fork}): Agrona needs {@code --add-opens} of {@code jdk.internal.misc} and
 * {@code sun.nio.ch}; bounds checks are off as in Aeron's own latency tests.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow",
    "-Dagrona.disable.bounds.checks=true"})
public class AeronIpcPingPongBench {
    private static final String CHANNEL = "aeron:ipc?term-length=4m";
    private static final int PING_STREAM = 1002, PONG_STREAM = 1003;

    /** Message length in bytes. */
    @Param({"64"})
    public int messageBytes;

    private MediaDriver driver;
    private Aeron aeron;
    private ExclusivePublication pingPub;
    private Subscription pingSub;
    private Image pongImage;
    private UnsafeBuffer msg;
    private Thread pong;
    private volatile boolean running;       // read by pong; ping writes no field of this object per round trip
    private final FragmentHandler onPong = (buffer, offset, length, header) -> { };

    /** Launches the embedded driver, connects ping and pong, starts the pong thread. */
    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .aeronDirectoryName(CommonContext.generateRandomDirName())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));

        Subscription pongSub = aeron.addSubscription(CHANNEL, PING_STREAM);
        ExclusivePublication pongPub = aeron.addExclusivePublication(CHANNEL, PONG_STREAM);
        pingSub = aeron.addSubscription(CHANNEL, PONG_STREAM);
        pingPub = aeron.addExclusivePublication(CHANNEL, PING_STREAM);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(pingPub.isConnected() && pongPub.isConnected() && pingSub.imageCount() > 0)) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("Aeron IPC streams did not connect");
            Thread.sleep(1);
        }
        pongImage = pingSub.imageAtIndex(0);
        msg = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(messageBytes, 64), 64));
        msg.setMemory(0, messageBytes, (byte) 'p');

        running = true;
        pong = new Thread(() -> echo(pongSub, pongPub), "pong");
        pong.setDaemon(true);
        pong.start();
    }

    /** Stops pong, closes the client and the driver (which deletes its directory). */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        pong.join(10_000);
        aeron.close();
        driver.close();
    }

    /** One round trip of a {@code messageBytes} message; the score is half of it (see class doc). */
    @Benchmark
    public void roundTrip() {
        while (pingPub.offer(msg, 0, messageBytes) < 0) Thread.onSpinWait();
        while (pongImage.poll(onPong, 1) == 0) Thread.onSpinWait();
    }

    private void echo(Subscription sub, ExclusivePublication pub) {
        FragmentHandler echo = (DirectBuffer buffer, int offset, int length, io.aeron.logbuffer.Header header) -> {
            while (pub.offer(buffer, offset, length) < 0) {
                if (!running) return;
                Thread.onSpinWait();
            }
        };
        while (running) {
            if (sub.poll(echo, 1) == 0) Thread.onSpinWait();
        }
        pub.close();
        sub.close();
    }
}
