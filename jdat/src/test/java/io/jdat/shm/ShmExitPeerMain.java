package io.jdat.shm;

import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.testing.Pair;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shm server of {@link ShmExitCleanupTest}, run in a child JVM: opens two {@code shm} IAs connected to each
 * other (a Pair) with a listening PSP left open, allocates {@link ShmMemory}, reports the SIGINT disposition it
 * inherited, prints {@code READY ia=<client IA dir> server=<server IA dir> memory=<memory dir>}, then serves
 * until a signal ends the JVM.
 */
public final class ShmExitPeerMain {
    private ShmExitPeerMain() {
    }

    /** Runs the server; see the class comment. */
    public static void main(String[] args) throws Exception {
        ShmTesting.register();
        Pair p = new Pair(ShmTesting.SHM, null, 64).connect();
        ShmTesting.exchangeBothWays(p);
        ShmMemory memory = ShmMemory.allocate(1 << 20);
        System.out.println("SIGIGN " + sigIgn());
        System.out.println("READY ia=" + dir(p.client) + " server=" + dir(p.server) + " memory="
                + ShmMemory.home().directory() + " file=" + memory);
        System.out.flush();
        DatEvent e = new DatEvent();
        while (true) {   // serve: wait on the server's connection EVD until the JVM is ended
            if (p.server.connEvd.waitFor(1_000_000, 1, e)
                    && e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                System.out.println("EVENT " + e.eventNumber());
            }
        }
    }

    private static Path dir(Pair.Side side) {
        return ((UnixDomainSocketAddress) side.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress()).getPath();
    }

    /** The SigIgn mask of this process (hex), from /proc/self/status. */
    private static String sigIgn() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("SigIgn:"))
                    .map(l -> l.substring(7).strip()).findFirst().orElse("?");
        } catch (Exception e) {
            return "?";
        }
    }
}
