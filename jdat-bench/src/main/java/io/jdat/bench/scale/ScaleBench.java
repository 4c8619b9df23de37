package io.jdat.bench.scale;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.mem.MemAddress;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * How cost grows with connections (issue 18 item 2): for each provider and each count N, one process opens two
 * IAs of that provider (a serving one and a connecting one), connects N EP pairs through one PSP and measures
 * <ol>
 *   <li><b>setup</b>: connections per second, from the first {@code dat_ep_create} (the IAs, EVDs and PSP
 *       exist already) to the last
 *       {@code DAT_CONNECTION_EVENT_ESTABLISHED} on both sides (at most {@link #CONNECT_WINDOW} connects
 *       outstanding; the serving side accepts each request as it is dequeued);</li>
 *   <li><b>memory</b> per connection (both of its ends, as both IAs are in this process): heap used after a GC
 *       ({@code MemoryMXBean}) and resident set ({@code VmRSS} of {@code /proc/self/status}), each as the
 *       difference from before the IAs were opened, divided by N;</li>
 *   <li><b>idle CPU</b> with every connection idle: process CPU time over {@code --idle-seconds} of sleep, in %
 *       of one core (the IAs' progress threads, heartbeats and timers; JVM background work included);</li>
 *   <li><b>poll</b>: the cost of one {@code dat_evd_dequeue} on the connecting IA's empty receive EVD (it also
 *       drives that IA's progress: consumer-driven progress passes over the IA's connections);</li>
 *   <li><b>rate</b>: aggregate 64 B send/recv round trips per second with every connection active (each
 *       connection has one message in flight; one thread echoes on the serving side and re-sends on the
 *       connecting side, round-robin as completions arrive), the same per second of the process's CPU time
 *       ({@code rt/cpu-s}: less moved by the share of the cores other processes take) and the fairness across
 *       connections: the minimum, median and maximum round trips per connection divided by the mean.</li>
 * </ol>
 * Also printed: the live threads and open file descriptors with the N connections up, and in the CSV the
 * 1-minute load average when the row ended (figures taken while the load is above the core count are not
 * quiet). The goals (issue 18): idle CPU under 1% of a core, poll cost flat in N, the rate at 1024 at least 0.9x
 * the rate at 16. {@code --plot FILE} draws the curve ({@link ScalePlot}); {@code --from-csv FILE} reads the
 * rows of an earlier run instead of measuring (to draw them again). {@code --phases} prints a line with the wall
 * clock at the start and end of every phase of every row (to match {@code perf stat -I} intervals to phases), and
 * {@code --perf-ctl FIFO[,ACK]} writes {@code enable} and {@code disable} to a {@code perf stat --control} FIFO
 * around the timed rate phase ({@link PerfControl}), so that {@code perf stat -D -1} counts that phase only.
 *
 * <pre>
 * jdat-bench/scale.sh [--providers mem,shm,tcp] [--conns 1,16,256,1024] [--idle-seconds 3] [--rate-seconds 2]
 *                     [--csv FILE] [--plot FILE.png] [--from-csv FILE] [--phases] [--perf-ctl FIFO[,ACK]]
 * </pre>
 */
public final class ScaleBench {
    /** Connects outstanding at once during set-up. */
    static final int CONNECT_WINDOW = 64;
    /** Bytes per message. */
    static final int SIZE = 64;
    /** Each connection's slots in each side's buffer: send at 0, receive at {@code SIZE}. */
    static final int SLOT = 2 * SIZE;
    private static final int CONNECT_TIMEOUT_MICROS = 60_000_000;
    private static final long SETUP_LIMIT_NANOS = 180_000_000_000L;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    /** {@code --phases}: print the wall clock at each phase's start and end. */
    private static boolean printPhases;
    /** {@code --perf-ctl}: the perf control FIFO enabled around the timed rate phase, or {@code null}. */
    private static PerfControl perf;

    /** One row of the table. */
    record Row(String provider, int n, double setupPerSec, long heapPerConn, long rssPerConn, double idleCpuPct,
               double pollNanos, double roundTripsPerSec, double fairMin, double fairMedian, double fairMax,
               int threads, long fds, String note, double load, double roundTripsPerCpuSec,
               double bestWindowRoundTripsPerSec) {
    }

    private ScaleBench() {
    }

    /**
     * Runs the table.
     *
     * @param args see the class comment
     * @throws IOException if the CSV cannot be written
     */
    public static void main(String[] args) throws IOException {
        List<String> providers = List.of("mem", "shm", "tcp");
        int[] conns = {1, 16, 256, 1024};
        double idleSeconds = 3;
        double rateSeconds = 2;
        Path csv = null;
        Path plot = null;
        Path fromCsv = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--providers" -> providers = List.of(args[++i].split(","));
                case "--conns" -> conns = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--idle-seconds" -> idleSeconds = Double.parseDouble(args[++i]);
                case "--rate-seconds" -> rateSeconds = Double.parseDouble(args[++i]);
                case "--csv" -> csv = Path.of(args[++i]);
                case "--plot" -> plot = Path.of(args[++i]);
                case "--from-csv" -> fromCsv = Path.of(args[++i]);
                case "--phases" -> printPhases = true;
                case "--perf-ctl" -> perf = PerfControl.open(args[++i]);
                default -> {
                    System.err.println("unknown argument " + args[i]
                            + " (--providers mem,shm,tcp --conns 1,16,256,1024 --idle-seconds S --rate-seconds S"
                            + " --csv FILE --plot FILE.png --from-csv FILE --phases --perf-ctl FIFO[,ACK])");
                    System.exit(2);
                }
            }
        }
        if (fromCsv != null) {
            List<Row> rows = readCsv(fromCsv);
            printHeader(System.out);
            rows.forEach(r -> print(System.out, r));
            if (plot != null) {
                ScalePlot.write(plot, rows, "from " + fromCsv.getFileName() + loadRange(rows));
                System.out.println("scale: chart in " + plot);
            }
            return;
        }
        String machine = String.format(Locale.ROOT, "%d cpus, java %s, idle %.1f s, rate %.1f s",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), idleSeconds,
                rateSeconds);
        System.out.printf(Locale.ROOT, "scale: %d cpus, fd limit %s, java %s, load %.2f%n",
                Runtime.getRuntime().availableProcessors(), fdLimit(), System.getProperty("java.version"), load());
        List<Row> rows = new ArrayList<>();
        PerfControl measuredPerf = perf;
        boolean measuredPhases = printPhases;
        perf = null; // the warm-up is neither counted nor printed
        printPhases = false;
        for (String p : providers) { // warm-up: class loading and JIT, not reported
            try {
                run(p, 16, 0.1, 0.3);
            } catch (DatException | IllegalStateException e) {
                System.out.println("scale: warm-up of " + p + " failed: " + e);
            }
        }
        perf = measuredPerf;
        printPhases = measuredPhases;
        printHeader(System.out);
        for (String p : providers) {
            for (int n : conns) {
                Row r;
                try {
                    r = run(p, n, idleSeconds, rateSeconds);
                } catch (DatException | IllegalStateException e) {
                    r = new Row(p, n, Double.NaN, -1, -1, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                            Double.NaN, Double.NaN, -1, -1, "FAILED: " + e, load(), Double.NaN, Double.NaN);
                }
                rows.add(r);
                print(System.out, r);
            }
        }
        if (csv != null) {
            List<String> lines = new ArrayList<>();
            lines.add(CSV_HEADER);
            for (Row r : rows) {
                lines.add(String.format(Locale.ROOT, "%s,%d,%.1f,%d,%d,%.3f,%.1f,%.1f,%.3f,%.3f,%.3f,%d,%d,%s,%.2f,%.1f,%.1f",
                        r.provider, r.n, r.setupPerSec, r.heapPerConn, r.rssPerConn, r.idleCpuPct, r.pollNanos,
                        r.roundTripsPerSec, r.fairMin, r.fairMedian, r.fairMax, r.threads, r.fds,
                        r.note.replace(',', ';'), r.load, r.roundTripsPerCpuSec, r.bestWindowRoundTripsPerSec));
            }
            Files.write(csv, lines);
            System.out.println("scale: CSV in " + csv);
        }
        if (plot != null) {
            ScalePlot.write(plot, rows, machine + loadRange(rows));
            System.out.println("scale: chart in " + plot);
        }
    }

    /** The CSV's first line. */
    static final String CSV_HEADER = "provider,connections,setup_per_s,heap_bytes_per_conn,rss_bytes_per_conn,"
            + "idle_cpu_pct,poll_ns,round_trips_per_s,fair_min,fair_median,fair_max,threads,fds,note,load1,"
            + "round_trips_per_cpu_s,best_window_round_trips_per_s";

    /**
     * The rows of a CSV written by {@code --csv} (a file without the {@code load1} or
     * {@code round_trips_per_cpu_s} or {@code best_window_round_trips_per_s} column, from before it existed,
     * reads NaN there).
     */
    static List<Row> readCsv(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank() || line.startsWith("provider,")) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length < 14) {
                throw new IOException("not a scale CSV line: " + line);
            }
            rows.add(new Row(f[0], Integer.parseInt(f[1]), Double.parseDouble(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]),
                    Double.parseDouble(f[7]), Double.parseDouble(f[8]), Double.parseDouble(f[9]),
                    Double.parseDouble(f[10]), Integer.parseInt(f[11]), Long.parseLong(f[12]), f[13],
                    f.length > 14 ? Double.parseDouble(f[14]) : Double.NaN,
                    f.length > 15 ? Double.parseDouble(f[15]) : Double.NaN,
                    f.length > 16 ? Double.parseDouble(f[16]) : Double.NaN));
        }
        return rows;
    }

    /** ", load a-b" over the rows (1-minute load averages at the ends of the rows), or "". */
    private static String loadRange(List<Row> rows) {
        double lo = Double.MAX_VALUE;
        double hi = -1;
        for (Row r : rows) {
            if (Double.isFinite(r.load)) {
                lo = Math.min(lo, r.load);
                hi = Math.max(hi, r.load);
            }
        }
        return hi < 0 ? "" : String.format(Locale.ROOT, ", load average %.1f-%.1f", lo, hi);
    }

    /** The 1-minute load average ({@code /proc/loadavg}), NaN where it cannot be read. */
    static double load() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static void printHeader(PrintStream out) {
        out.printf(Locale.ROOT, "%-4s %5s %9s %9s %9s %7s %9s %10s %10s %10s %17s %7s %6s %5s %s%n", "prov",
                "conns", "setup/s", "heap B/c", "rss B/c", "idle%", "poll ns", "rt/s", "rt/cpu-s", "rt/s best",
                "fair min/med/max",
                "threads", "fds", "load", "note");
    }

    private static void print(PrintStream out, Row r) {
        out.printf(Locale.ROOT, "%-4s %5d %9.0f %9d %9d %7.2f %9.1f %10.0f %10.0f %10.0f %5.2f/%5.2f/%5.2f %7d %6d %5.2f %s%n",
                r.provider, r.n, r.setupPerSec, r.heapPerConn, r.rssPerConn, r.idleCpuPct, r.pollNanos,
                r.roundTripsPerSec, r.roundTripsPerCpuSec, r.bestWindowRoundTripsPerSec, r.fairMin, r.fairMedian, r.fairMax, r.threads, r.fds,
                r.load, r.note);
    }

    /** One side: an IA with its PZ, shared EVDs, one buffer of N slots and its EPs. */
    private static final class Side implements AutoCloseable {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher recvEvd;
        final EventDispatcher reqEvd;
        final EventDispatcher connEvd;
        final MemorySegment buf;
        final Lmr lmr;
        final Endpoint[] eps;
        final LmrTriplet[][] send;
        final LmrTriplet[][] recv;
        final EpAttr attr;

        Side(String iaName, Arena arena, int n) {
            ia = InterfaceAdapter.open(iaName, 16, null);
            pz = ProtectionZone.create(ia);
            // Sizes: at most one receive completion per connection outstanding, sends are suppressed (errors
            // only), one ESTABLISHED (and, at close, one DISCONNECTED) per connection.
            recvEvd = EventDispatcher.create(ia, 2 * n + 16, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(ia, 2 * n + 16, null, EvdFlags.DTO);
            connEvd = EventDispatcher.create(ia, 2 * n + 16, null, EvdFlags.CONNECTION);
            buf = arena.allocate((long) n * SLOT, 4096);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            eps = new Endpoint[n];
            send = new LmrTriplet[n][];
            recv = new LmrTriplet[n][];
            for (int i = 0; i < n; i++) {
                send[i] = new LmrTriplet[] {lmr.triplet((long) i * SLOT, SIZE)};
                recv[i] = new LmrTriplet[] {lmr.triplet((long) i * SLOT + SIZE, SIZE)};
            }
            attr = ia.defaultEpAttr().maxRecvDtos(2).maxRequestDtos(2)
                    .recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.DEFAULT);
        }

        Endpoint createEp(int i) {
            eps[i] = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, attr);
            return eps[i];
        }

        @Override
        public void close() {
            ia.close(CloseFlags.ABRUPT);
        }
    }

    private static long nextMemQual = 50_000;

    static Row run(String provider, int n, double idleSeconds, double rateSeconds) {
        gc();
        long heap0 = heapUsed();
        long rss0 = rss();
        Side server = null;
        Side client = null;
        String note = "";
        try (Arena arena = Arena.ofShared()) {
            server = new Side(provider, arena, n);
            client = new Side(provider, arena, n);
            EventDispatcher crEvd = EventDispatcher.create(server.ia, n + 16, null, EvdFlags.CR);
            PublicServicePoint psp;
            SocketAddress to;
            long qual;
            if (provider.equals("mem")) {
                qual = nextMemQual++;
                psp = PublicServicePoint.create(server.ia, qual, crEvd, PspFlags.CONSUMER);
                to = MemAddress.of(provider);
            } else {
                psp = PublicServicePoint.createAny(server.ia, crEvd, PspFlags.CONSUMER);
                qual = psp.connQual();
                to = server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            }
            phase(provider, n, "setup", "start");
            long t0 = System.nanoTime();
            connectAll(server, client, crEvd, to, qual, n);
            long setupNanos = System.nanoTime() - t0;
            phase(provider, n, "setup", "end");
            psp.free();
            for (int i = 0; i < n; i++) {
                client.eps[i].postRecv(1, client.recv[i], i, CompletionFlags.DEFAULT);
                server.eps[i].postRecv(1, server.recv[i], i, CompletionFlags.DEFAULT);
            }
            int threads = ManagementFactory.getThreadMXBean().getThreadCount();
            long fds = openFds();
            gc();
            long heapPerConn = (heapUsed() - heap0) / n;
            long rssPerConn = (rss() - rss0) / n;

            sleep(0.5); // the progress threads settle into their idle state
            phase(provider, n, "idle", "start");
            long cpu0 = cpuNanos();
            long w0 = System.nanoTime();
            sleep(idleSeconds);
            double idlePct = 100.0 * (cpuNanos() - cpu0) / (System.nanoTime() - w0);
            phase(provider, n, "idle", "end");

            phase(provider, n, "poll", "start");
            double pollNanos = pollCost(client.recvEvd);
            phase(provider, n, "poll", "end");

            long[] counts = new long[n];
            double[] cpuAndBest = new double[2];
            double rate = roundTrips(provider, server, client, counts, rateSeconds, cpuAndBest);
            long[] sorted = counts.clone();
            Arrays.sort(sorted);
            double mean = Arrays.stream(counts).sum() / (double) n;
            double min = sorted[0] / mean;
            double median = sorted[n / 2] / mean;
            double max = sorted[n - 1] / mean;
            return new Row(provider, n, n * 1e9 / setupNanos, heapPerConn, rssPerConn, idlePct, pollNanos, rate,
                    min, median, max, threads, fds, note, load(), cpuAndBest[0], cpuAndBest[1]);
        } finally {
            if (client != null) {
                client.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    /**
     * Creates and connects N EP pairs: at most {@link #CONNECT_WINDOW} connects outstanding, every request
     * accepted as soon as it is dequeued.
     */
    private static void connectAll(Side server, Side client, EventDispatcher crEvd, SocketAddress to, long qual,
                                   int n) {
        DatEvent e = new DatEvent();
        int started = 0;
        int accepted = 0;
        int upClient = 0;
        int upServer = 0;
        long deadline = System.nanoTime() + SETUP_LIMIT_NANOS;
        while (upClient < n || upServer < n) {
            boolean any = false;
            while (started < n && started - upClient < CONNECT_WINDOW) {
                client.createEp(started).connect(to, qual, CONNECT_TIMEOUT_MICROS, 0, null, Qos.BEST_EFFORT, 0);
                started++;
                any = true;
            }
            while (crEvd.dequeue(e)) {
                if (e.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
                    throw new IllegalStateException("CR EVD: " + e);
                }
                e.cr().accept(server.createEp(accepted++), 0, null);
                any = true;
            }
            while (server.connEvd.dequeue(e)) {
                expectEstablished("serving side", e);
                upServer++;
                any = true;
            }
            while (client.connEvd.dequeue(e)) {
                expectEstablished("connecting side", e);
                upClient++;
                any = true;
            }
            if (!any) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("set-up stalled: " + started + " connects, " + accepted
                            + " accepted, " + upClient + "/" + upServer + " established");
                }
                Thread.onSpinWait();
            }
        }
    }

    private static void expectEstablished(String side, DatEvent e) {
        if (e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            throw new IllegalStateException(side + ": " + e);
        }
    }

    /** Nanoseconds per {@code dat_evd_dequeue} on {@code evd}, which must stay empty. */
    private static double pollCost(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        for (int i = 0; i < 20_000; i++) { // warm-up: JIT
            if (evd.dequeue(e)) {
                throw new IllegalStateException("EVD not empty: " + e);
            }
        }
        long polls = 0;
        long t0 = System.nanoTime();
        long t;
        do {
            for (int i = 0; i < 1000; i++) {
                if (evd.dequeue(e)) {
                    throw new IllegalStateException("EVD not empty: " + e);
                }
            }
            polls += 1000;
            t = System.nanoTime();
        } while (t - t0 < 500_000_000L);
        return (t - t0) / (double) polls;
    }

    /**
     * Round trips per second with every connection active; per-connection counts into {@code counts}, into
     * {@code cpuAndBest[0]} the round trips per second of the process's CPU time over the same phase (every
     * thread: the consumer and any progress threads), and into {@code cpuAndBest[1]} the rate of the best
     * window of at least {@link #WINDOW_NANOS}. Under load the wall-clock rate moves with the share of the cores
     * the process gets and with what other processes evict from the caches; the best window is the least
     * disturbed stretch, the figure to compare builds by on a shared machine (an A/B, not a rate to quote alone).
     */
    private static double roundTrips(String provider, Side server, Side client, long[] counts, double seconds,
                                     double[] cpuAndBest) {
        int n = counts.length;
        for (int i = 0; i < n; i++) {
            client.eps[i].postSend(1, client.send[i], i, CompletionFlags.SUPPRESS);
        }
        DatEvent e = new DatEvent();
        phase(provider, n, "rate warm-up", "start");
        exchange(server, client, counts, e, System.nanoTime() + 300_000_000L, null); // warm-up
        Arrays.fill(counts, 0);
        phase(provider, n, "rate", "start");
        if (perf != null) {
            perf.enable();
        }
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        double[] best = new double[1];
        exchange(server, client, counts, e, t0 + (long) (seconds * 1e9), best);
        long t = System.nanoTime() - t0;
        long cpu = cpuNanos() - cpu0;
        if (perf != null) {
            perf.disable();
        }
        long total = Arrays.stream(counts).sum();
        cpuAndBest[0] = cpu > 0 ? total * 1e9 / cpu : Double.NaN;
        cpuAndBest[1] = best[0] > 0 ? best[0] : total * 1e9 / t; // a phase shorter than a window: the whole
        phase(provider, n, "rate", String.format(Locale.ROOT, "end (%d round trips in %.3f s; windows:%s)", total,
                t / 1e9, windowRates));
        return total * 1e9 / t;
    }

    /** With {@code --phases}: one line with the wall clock (UTC, ms) at a phase's start or end. */
    private static void phase(String provider, int n, String name, String what) {
        if (printPhases) {
            System.out.printf(Locale.ROOT, "phase %s %d %s %s at %s%n", provider, n, name, what,
                    CLOCK.format(Instant.now()));
        }
    }

    /** The shortest window whose rate counts for the best window's rate. */
    static final long WINDOW_NANOS = 100_000_000L;
    /** With {@code --phases}: the rates of the windows of the last rate phase, for its end line. */
    private static final StringBuilder windowRates = new StringBuilder();
    /** Round trips between two looks at the clock for the windows. */
    private static final int WINDOW_CHECK = 4096;

    /**
     * Echoes and re-sends until {@code until}; with {@code best} non-null, {@code best[0]} gets the highest rate
     * (round trips per second) of the windows of at least {@link #WINDOW_NANOS} the phase splits into (the clock
     * is read every {@link #WINDOW_CHECK} round trips).
     */
    private static void exchange(Side server, Side client, long[] counts, DatEvent e, long until, double[] best) {
        int spins = 0;
        long done = 0;
        long windowDone = 0;
        long windowStart = System.nanoTime();
        windowRates.setLength(0);
        while (true) {
            boolean any = false;
            while (server.recvEvd.dequeue(e)) {
                int i = received(e);
                server.eps[i].postRecv(1, server.recv[i], i, CompletionFlags.DEFAULT);
                server.eps[i].postSend(1, server.send[i], i, CompletionFlags.SUPPRESS);
                any = true;
            }
            while (client.recvEvd.dequeue(e)) {
                int i = received(e);
                counts[i]++;
                client.eps[i].postRecv(1, client.recv[i], i, CompletionFlags.DEFAULT);
                client.eps[i].postSend(1, client.send[i], i, CompletionFlags.SUPPRESS);
                any = true;
                if (++done % WINDOW_CHECK == 0 && best != null) {
                    long now = System.nanoTime();
                    if (now - windowStart >= WINDOW_NANOS) {
                        double r = (done - windowDone) * 1e9 / (now - windowStart);
                        best[0] = Math.max(best[0], r);
                        if (printPhases && windowRates.length() < 4000) {
                            windowRates.append(String.format(Locale.ROOT, " %.0fk", r / 1e3));
                        }
                        windowStart = now;
                        windowDone = done;
                    }
                }
            }
            if (!any && (++spins & 1023) == 0) {
                if (server.reqEvd.dequeue(e) || client.reqEvd.dequeue(e)) {
                    throw new IllegalStateException("send failed: " + e);
                }
            }
            if ((spins & 63) == 0 && System.nanoTime() > until) {
                return;
            }
            spins++;
        }
    }

    private static int received(DatEvent e) {
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("receive failed: " + e);
        }
        return (int) e.userCookie();
    }

    private static void gc() {
        for (int i = 0; i < 2; i++) {
            System.gc();
            sleep(0.05);
        }
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** {@code VmRSS} in bytes, or 0 where {@code /proc} is missing. */
    static long rss() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("VmRSS:")).findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).orElse(0L);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long openFds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException e) {
            return -1;
        }
    }

    static String fdLimit() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/limits"))) {
            return lines.filter(l -> l.startsWith("Max open files")).findFirst()
                    .map(l -> l.replaceAll("Max open files\\s+(\\S+)\\s+(\\S+).*", "$1 (hard $2)")).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    private static void sleep(double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }
}
