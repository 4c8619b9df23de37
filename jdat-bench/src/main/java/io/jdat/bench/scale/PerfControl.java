package io.jdat.bench.scale;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The control FIFO of {@code perf stat --control fifo:CTL[,ACK]} (started with {@code -D -1}, counters off): {@link
 * ScaleBench} enables the counters for its timed rate phase only, so the counts divide by that phase's round trips
 * exactly, without matching {@code -I} intervals to phases by their time.
 *
 * <pre>
 * mkfifo /tmp/ctl /tmp/ack
 * perf stat -D -1 --control fifo:/tmp/ctl,/tmp/ack -e raw_syscalls:sys_enter -- \
 *     java ... io.jdat.bench.scale.ScaleBench --providers tcp --conns 1024 --perf-ctl /tmp/ctl,/tmp/ack
 * </pre>
 */
final class PerfControl {
    private final OutputStream ctl;
    private final BufferedReader ack;

    private PerfControl(OutputStream ctl, BufferedReader ack) {
        this.ctl = ctl;
        this.ack = ack;
    }

    /**
     * Opens the FIFOs named by {@code spec}, {@code CTL} or {@code CTL,ACK} (perf holds them open already).
     *
     * @throws UncheckedIOException if a FIFO cannot be opened
     */
    static PerfControl open(String spec) {
        String[] f = spec.split(",", 2);
        try {
            OutputStream c = Files.newOutputStream(Path.of(f[0]));
            BufferedReader a = f.length > 1 ? Files.newBufferedReader(Path.of(f[1]), StandardCharsets.US_ASCII) : null;
            return new PerfControl(c, a);
        } catch (IOException e) {
            throw new UncheckedIOException("perf control " + spec, e);
        }
    }

    /** Turns perf's counters on (and waits for its acknowledgement when there is an ACK FIFO). */
    void enable() {
        command("enable");
    }

    /** Turns perf's counters off (and waits for its acknowledgement when there is an ACK FIFO). */
    void disable() {
        command("disable");
    }

    private void command(String c) {
        try {
            ctl.write((c + "\n").getBytes(StandardCharsets.US_ASCII));
            ctl.flush();
            if (ack != null) {
                ack.readLine();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("perf control " + c, e);
        }
    }
}
