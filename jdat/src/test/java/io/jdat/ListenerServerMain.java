package io.jdat;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The server of {@link ListenerFailureTest}, run in a child JVM (under a low fd limit, unprivileged): opens
 * an IA of the given library ({@code tcp} or {@code shm}), listens with {@code dat_psp_create_any}, prints
 * every event of its async EVD, and accepts every connection request. Uses only jdat and the JDK (the
 * child may not read the test's other jars).
 *
 * <p>Prints {@code ID uid=U nofile=N}, {@code READY qual=Q address=A}, then {@code ASYNC <event>
 * handle=<type> reason=R psp=<true|false>} per async event, {@code SERVED} per accepted request, and
 * {@code FDS n} (its open file descriptors) each half second in which the count changed.
 */
public final class ListenerServerMain {
    private ListenerServerMain() {
    }

    /** {@code args[0]}: the library ({@code tcp}, {@code shm}); {@code args[1]}: its IA parameters. */
    public static void main(String[] args) throws Exception {
        String library = args[0];
        String name = "listener-" + library;
        Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, library, "jdat", 1, 0,
                args.length > 1 ? args[1] : "", ""));
        // Initialise logging now: once the fds are gone it could not read its configuration.
        System.getLogger("io.jdat." + library).log(System.Logger.Level.INFO, "listener server starting");
        System.out.println("ID uid=" + field("/proc/self/status", "Uid:") + " nofile="
                + field("/proc/self/limits", "Max open files"));
        InterfaceAdapter ia = InterfaceAdapter.open(name, 64, null);
        ProtectionZone pz = ProtectionZone.create(ia);
        EventDispatcher crEvd = EventDispatcher.create(ia, 256, null, EvdFlags.CR);
        EventDispatcher connEvd = EventDispatcher.create(ia, 256, null, EvdFlags.CONNECTION);
        EventDispatcher dtoEvd = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
        PublicServicePoint psp = PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
        EventDispatcher async = ia.asyncEvd();
        Thread.ofPlatform().daemon().name("async-watch").start(() -> {
            DatEvent e = new DatEvent();
            while (true) {
                if (async.waitFor(Dat.TIMEOUT_INFINITE, 1, e)) {
                    System.out.println("ASYNC " + e.eventNumber() + " handle="
                            + (e.asyncHandle() == null ? "null" : e.asyncHandle().getHandleType()) + " reason="
                            + e.reason() + " psp=" + (e.asyncHandle() == psp));
                }
            }
        });
        Thread.ofPlatform().daemon().name("fd-watch").start(ListenerServerMain::watchFds);
        System.out.println("READY qual=" + psp.connQual() + " address="
                + ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress());
        DatEvent e = new DatEvent();
        while (true) {
            if (crEvd.waitFor(Dat.TIMEOUT_INFINITE, 1, e) && e.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT) {
                Endpoint ep = Endpoint.create(ia, pz, dtoEvd, dtoEvd, connEvd, null);
                e.cr().accept(ep, 0, null);
                System.out.println("SERVED");
            }
        }
    }

    /** Prints {@code FDS n} when the number of open fds changed, looking every 500 ms (a look needs an fd). */
    private static void watchFds() {
        long last = -1;
        while (true) {
            long n;
            try (var fds = Files.list(Path.of("/proc/self/fd"))) {
                n = fds.count() - 1; // not the listing's own
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                n = -2; // no fd left to look with
            }
            if (n != last) {
                System.out.println("FDS " + (n == -2 ? "none free to count with" : n));
                last = n;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static String field(String file, String prefix) {
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                if (line.startsWith(prefix)) {
                    return line.substring(prefix.length()).trim().replaceAll("\\s+", ",");
                }
            }
        } catch (java.io.IOException e) {
            return "?";
        }
        return "?";
    }
}
