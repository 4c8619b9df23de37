package io.jdat.verbs;

import io.jdat.DatEvent;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.spi.Transport;
import io.jdat.testing.Pair;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What one turn of a consumer's busy poll costs on an empty verbs EVD, and its parts (issue 17: the per-turn cost
 * against perftest's bare {@code ibv_poll_cq}; {@code interop/verbs-poll-turn.c} measures perftest's turn). Run in
 * the siw-vm guest on a connected pair of two IAs of one device, with the JIT mode of {@code jdat perf}'s runs:
 *
 * <pre>
 *   java -XX:TieredStopAtLevel=1 -cp ... io.jdat.verbs.VerbsPollTurn DEVICE-LABEL NETDEV [TURNS]
 * </pre>
 *
 * Each line is one part, ns per turn: the median of 5 rounds of TURNS turns after a warm-up of as many, each round
 * timed by two clock readings only (the guest's clock is the emulated HPET, microseconds per reading). The parts:
 * {@code dat_evd_dequeue} on the client's empty receive EVD (the whole turn); {@code Transport.progress} (the
 * verbs part of it: the poll count, the poll lock, every connection's poll); {@code VerbsConnection.poll} (its
 * checks and the downcall, the poll lock held for the round); the bare {@code poll_cq} downcall; an uncontended
 * {@code ReentrantLock} tryLock/unlock; a compare-and-set and release store of an int; {@code System.nanoTime};
 * {@code Thread.onSpinWait}. A measurement, not a check: it asserts nothing and always exits 0 once measured.
 */
public final class VerbsPollTurn {
    private static final VarHandle FLAG;

    static {
        try {
            FLAG = MethodHandles.lookup().findVarHandle(VerbsPollTurn.class, "flag", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through FLAG
    private volatile int flag;
    private static long sink;

    private VerbsPollTurn() {
    }

    interface Turns {
        void run(int n) throws Throwable;
    }

    public static void main(String[] args) throws Throwable {
        String label = args[0];
        String ia = "verbs-" + label;
        int turns = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
        Registry.addProvider(new RegistryEntry(ia, 'u', 1, 2, true, false, "verbs", "jdat", 1, 0, args[1] + " 0", ""));
        VerbsVmCheck.ia(ia);
        try (Pair p = VerbsVmCheck.connected()) {
            VerbsTransport t = transport(p.client.ia);
            VerbsConnection c = t.connections.snapshot()[0];
            Field cqf = VerbsConnection.class.getDeclaredField("cqAddress");
            Field wcsf = VerbsConnection.class.getDeclaredField("wcsAddress");
            cqf.setAccessible(true);
            wcsf.setAccessible(true);
            long cq = cqf.getLong(c);
            long wcs = wcsf.getLong(c);
            DatEvent e = new DatEvent();
            ReentrantLock lock = new ReentrantLock();
            VerbsPollTurn f = new VerbsPollTurn();
            System.out.printf("%s: ns per turn, median of 5 rounds of %d (rounds in brackets)%n", label, turns);
            measure("dat_evd_dequeue (empty EVD)", turns, n -> {
                for (int i = 0; i < n; i++) {
                    if (p.client.recvEvd.dequeue(e)) {
                        throw new IllegalStateException("an event on an idle EVD: " + e);
                    }
                }
            });
            measure("Transport.progress", turns, n -> {
                boolean any = false;
                for (int i = 0; i < n; i++) {
                    any |= t.progress();
                }
                sink += any ? 1 : 0;
            });
            measure("VerbsConnection.poll (lock held)", turns, n -> {
                t.pollLock.lock();
                try {
                    boolean any = false;
                    for (int i = 0; i < n; i++) {
                        any |= c.poll();
                    }
                    sink += any ? 1 : 0;
                } finally {
                    t.pollLock.unlock();
                }
            });
            measure("poll_cq downcall (lock held)", turns, n -> {
                t.pollLock.lock();
                try {
                    int s = 0;
                    for (int i = 0; i < n; i++) {
                        s += (int) Verbs.POLL_CQ.invokeExact(t.pollCqFn, cq, VerbsConnection.POLL_BATCH,
                                wcs);
                    }
                    sink += s;
                } finally {
                    t.pollLock.unlock();
                }
            });
            measure("ReentrantLock tryLock+unlock", turns, n -> {
                for (int i = 0; i < n; i++) {
                    if (lock.tryLock()) {
                        lock.unlock();
                    }
                }
            });
            measure("int CAS acquire + setRelease", turns, n -> {
                for (int i = 0; i < n; i++) {
                    if (FLAG.compareAndSet(f, 0, 1)) {
                        FLAG.setRelease(f, 0);
                    }
                }
            });
            measure("System.nanoTime", turns / 10, n -> {
                long s = 0;
                for (int i = 0; i < n; i++) {
                    s += System.nanoTime();
                }
                sink += s;
            });
            measure("Thread.onSpinWait", turns, n -> {
                for (int i = 0; i < n; i++) {
                    Thread.onSpinWait();
                }
            });
            VerbsVmCheck.disconnect(p);
        }
        System.out.println("sink " + (sink & 1));
        System.exit(0);
    }

    /** The verbs transport under a core IA (the core keeps it in a package-private field; tests run on the class path). */
    static VerbsTransport transport(Object ia) throws ReflectiveOperationException {
        for (Class<?> k = ia.getClass(); k != null; k = k.getSuperclass()) {
            for (Field fl : k.getDeclaredFields()) {
                if (Transport.class.isAssignableFrom(fl.getType())) {
                    fl.setAccessible(true);
                    return (VerbsTransport) fl.get(ia);
                }
            }
        }
        throw new IllegalStateException("no transport field in " + ia.getClass());
    }

    private static void measure(String what, int turns, Turns body) throws Throwable {
        body.run(turns);
        double[] ns = new double[5];
        for (int r = 0; r < ns.length; r++) {
            long t0 = System.nanoTime();
            body.run(turns);
            ns[r] = (System.nanoTime() - t0) / (double) turns;
        }
        double[] sorted = ns.clone();
        Arrays.sort(sorted);
        StringBuilder runs = new StringBuilder();
        for (double v : ns) {
            runs.append(runs.isEmpty() ? "" : ", ").append(String.format("%.0f", v));
        }
        System.out.printf("  %-36s %8.0f  (%s)%n", what, sorted[2], runs);
    }
}
