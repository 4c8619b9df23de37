package io.jdat.mem;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The JVM-wide "network" of the {@code mem} transport: which addresses have an open IA, who listens on
 * which qualifier, and the connection-management thread.
 */
final class MemFabric {
    record Key(MemAddress address, long qual) {
    }

    static final ConcurrentHashMap<MemAddress, Set<MemTransport>> HOSTS = new ConcurrentHashMap<>();
    static final ConcurrentHashMap<Key, MemListener> LISTENERS = new ConcurrentHashMap<>();
    /** Connection management: requests, accepts, rejects and disconnect notices run here, in order. */
    static final ExecutorService CM = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jdat-mem-cm");
        t.setDaemon(true);
        return t;
    });

    private MemFabric() {
    }

    static void up(MemTransport t) {
        HOSTS.computeIfAbsent(t.address(), a -> ConcurrentHashMap.newKeySet()).add(t);
    }

    static void down(MemTransport t) {
        HOSTS.computeIfPresent(t.address(), (a, set) -> {
            set.remove(t);
            return set.isEmpty() ? null : set;
        });
    }

    static boolean reachable(MemAddress a) {
        Set<MemTransport> s = HOSTS.get(a);
        return s != null && !s.isEmpty();
    }

    /** Runs a connection-management step on the CM thread. */
    static void cm(Runnable r) {
        CM.execute(() -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                // A step that raced with an IA close has nothing left to do.
            }
        });
    }
}
