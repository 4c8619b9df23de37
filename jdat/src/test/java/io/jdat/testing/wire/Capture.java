package io.jdat.testing.wire;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A running {@code dumpcap} on the loopback interface, made by {@link Tshark#start(int...)}: it records the
 * given TCP ports, plus the UDP marker datagrams it sends itself to know that packets reach its file.
 * {@link #stop()} ends it with the capture complete; {@link #close()} also deletes the file.
 */
public final class Capture implements AutoCloseable {
    private final List<Integer> ports;
    private final Path directory;
    private final Path file;
    private final DatagramSocket marker;
    private final Process process;
    private final StringBuilder stderr = new StringBuilder();
    private final CountDownLatch capturing = new CountDownLatch(1);
    private boolean stopped;
    private boolean closed;

    Capture(String dumpcap, int[] tcpPorts) throws IOException {
        ports = Arrays.stream(tcpPorts).boxed().toList();
        directory = Files.createTempDirectory("jdat-capture");
        file = directory.resolve("capture.pcap");
        marker = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        String filter = ports.stream().map(p -> "tcp port " + p).collect(Collectors.joining(" or "))
                + " or udp port " + marker.getLocalPort();
        ProcessBuilder builder = new ProcessBuilder(dumpcap, "-i", "lo", "-P", "-f", filter, "-w",
                file.toString());
        builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process started;
        try {
            started = builder.start();
        } catch (IOException e) {
            marker.close();
            deleteQuietly();
            throw e;
        }
        process = started;
        process.getOutputStream().close();
        Thread.ofVirtual().start(this::readStderr);
        try {
            boolean ok = capturing.await(Tshark.CAPTURE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (!ok || !process.isAlive()) {
                throw new IOException("dumpcap did not start capturing within " + Tshark.CAPTURE_WAIT + " ("
                        + String.join(" ", builder.command()) + "): " + stderrText());
            }
            // dumpcap reports "Capturing on" a moment before packets really reach the file: wait for a
            // marker datagram, sent again every 100 ms, to arrive there.
            if (!awaitMarker(token("start"), true)) {
                throw new IOException("dumpcap captured no start marker within " + Tshark.CAPTURE_WAIT + ": "
                        + stderrText());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon();
            throw new IOException("interrupted while dumpcap starts", e);
        } catch (IOException e) {
            abandon();
            throw e;
        }
    }

    /**
     * The capture file (pcap format, readable by {@link PcapReader} and {@link Tshark#decode(Path)}).
     * Complete only after {@link #stop()}.
     *
     * @return its path
     */
    public Path file() {
        return file;
    }

    /**
     * The TCP ports this capture records.
     *
     * @return the ports given to {@link Tshark#start(int...)}
     */
    public List<Integer> ports() {
        return ports;
    }

    /**
     * Ends the capture so that the file holds every packet sent before this call. dumpcap receives packets
     * in batches, so the capture sends itself a UDP marker datagram, waits until the marker is in the file
     * (everything sent earlier is then there too), and then ends dumpcap with SIGTERM. The marker stays in
     * the file as one UDP frame. Calling it again returns the file at once.
     *
     * @return the complete capture file
     * @throws IOException if the marker does not reach the file within {@link Tshark#CAPTURE_WAIT} or dumpcap
     *     fails; the capture may then be incomplete
     */
    public synchronized Path stop() throws IOException {
        if (stopped) {
            return file;
        }
        stopped = true;
        boolean seen = awaitMarker(token("stop"), false);
        marker.close();
        process.destroy();
        try {
            if (!process.waitFor(Tshark.CAPTURE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("dumpcap did not end within " + Tshark.CAPTURE_WAIT + " of SIGTERM");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while dumpcap ends", e);
        }
        if (!seen) {
            throw new IOException("the stop marker did not reach " + file + " within " + Tshark.CAPTURE_WAIT
                    + ": the capture may be incomplete; dumpcap said: " + stderrText());
        }
        int exit = process.exitValue();
        if (exit != 0 && exit != 143) {
            throw new IOException("dumpcap exit " + exit + ": " + stderrText());
        }
        return file;
    }

    /**
     * Stops the capture if needed, then deletes its file and directory.
     *
     * @throws IOException if stopping fails
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!stopped) {
                stop();
            }
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
            marker.close();
            deleteQuietly();
        }
    }

    /** Ends a capture that failed to start: no marker, no waiting. */
    private void abandon() throws IOException {
        stopped = true;
        process.destroyForcibly();
        close();
    }

    private static byte[] token(String what) {
        return ("jdat-capture-" + what + "-" + UUID.randomUUID()).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Sends a marker datagram to the capture's own UDP port and waits until the file holds it.
     *
     * @param token the unique datagram payload
     * @param resend whether to send it again every 100 ms until it shows up
     * @return whether it showed up within {@link Tshark#CAPTURE_WAIT}
     */
    private boolean awaitMarker(byte[] token, boolean resend) throws IOException {
        DatagramPacket datagram = new DatagramPacket(token, token.length, marker.getLocalSocketAddress());
        marker.send(datagram);
        long sent = System.nanoTime();
        long deadline = sent + Tshark.CAPTURE_WAIT.toNanos();
        long checked = 0;
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    long from = Math.max(0, checked - token.length);
                    long size = ch.size();
                    if (size > from) {
                        ByteBuffer tail = ByteBuffer.allocate((int) Math.min(size - from, Integer.MAX_VALUE - 8));
                        ch.read(tail, from);
                        if (indexOf(tail.array(), tail.position(), token) >= 0) {
                            return true;
                        }
                        checked = from + tail.position();
                    }
                }
            }
            if (resend && System.nanoTime() - sent > 100_000_000L) {
                marker.send(datagram);
                sent = System.nanoTime();
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    private static int indexOf(byte[] data, int length, byte[] token) {
        outer:
        for (int i = 0; i + token.length <= length; i++) {
            for (int j = 0; j < token.length; j++) {
                if (data[i + j] != token[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private void readStderr() {
        try (InputStream in = process.getErrorStream()) {
            byte[] buf = new byte[4096];
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (stderr) {
                    stderr.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    if (stderr.indexOf("Capturing on") >= 0) {
                        capturing.countDown();
                    }
                }
            }
        } catch (IOException e) {
            // dumpcap ended
        }
    }

    private String stderrText() {
        synchronized (stderr) {
            return stderr.toString().replace('\r', '\n').lines().filter(l -> !l.isBlank())
                    .filter(l -> !l.startsWith("Packets:")).collect(Collectors.joining(" | "));
        }
    }

    private void deleteQuietly() {
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // a temporary file left behind is harmless
        }
    }
}
