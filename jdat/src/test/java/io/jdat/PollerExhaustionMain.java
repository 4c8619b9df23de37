package io.jdat;

import java.io.FileInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The child JVM of {@link PollerExhaustionTest} (run under a low fd limit): opens a {@code tcp} IA and a PSP,
 * exhausts its file descriptors, blocks a virtual thread on a socket while none is free, frees them, then
 * connects an EP of the same IA to the PSP. Uses only jdat and the JDK.
 *
 * <p>Prints {@code READ ok} or {@code READ failed: <throwable>}, then {@code CONNECTED} or {@code CONNECT
 * failed: <what>}, then {@code DONE}.
 */
public final class PollerExhaustionMain {
    private PollerExhaustionMain() {
    }

    /** No arguments. */
    public static void main(String[] args) throws Exception {
        Registry.addProvider(new RegistryEntry("poller-tcp", 'u', 1, 2, true, false, "tcp", "jdat", 1, 0,
                "127.0.0.1", ""));
        System.getLogger("io.jdat.tcp").log(System.Logger.Level.DEBUG, "poller exhaustion child starting");
        InterfaceAdapter ia = InterfaceAdapter.open("poller-tcp", 64, null);
        ProtectionZone pz = ProtectionZone.create(ia);
        EventDispatcher crEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CR);
        EventDispatcher connEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
        EventDispatcher dtoEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
        PublicServicePoint psp = PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);

        // A connected socket pair of the test's own, made while descriptors are free.
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketChannel a = SocketChannel.open(server.getLocalAddress());
        SocketChannel b = server.accept();

        List<FileInputStream> hog = new ArrayList<>();
        try {
            while (true) {
                hog.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException exhausted) {
            // every descriptor is taken
        }
        // A virtual thread blocks on a socket: it parks on the JDK's poller, which must exist already.
        CompletableFuture<Integer> read = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                read.complete(b.read(ByteBuffer.allocate(1)));
            } catch (Throwable t) {
                read.completeExceptionally(t);
            }
        });
        Thread.sleep(200);
        a.write(ByteBuffer.wrap(new byte[] {42}));
        try {
            read.get(10, TimeUnit.SECONDS);
            System.out.println("READ ok");
        } catch (Exception e) {
            System.out.println("READ failed: " + e.getCause());
        }
        for (FileInputStream f : hog) {
            f.close();
        }

        Endpoint active = Endpoint.create(ia, pz, dtoEvd, dtoEvd, connEvd, null);
        active.connect(ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), 10_000_000, 0, null,
                Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
        DatEvent e = new DatEvent();
        String outcome = "no connection request";
        if (crEvd.waitFor(10_000_000, 1, e) && e.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT) {
            Endpoint passive = Endpoint.create(ia, pz, dtoEvd, dtoEvd, connEvd, null);
            e.cr().accept(passive, 0, null);
            int established = 0;
            outcome = "no connection event";
            while (established < 2 && connEvd.waitFor(10_000_000, 1, e)) {
                if (e.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                    outcome = e.eventNumber().toString();
                    break;
                }
                established++;
            }
            if (established == 2) {
                outcome = null;
            }
        }
        System.out.println(outcome == null ? "CONNECTED" : "CONNECT failed: " + outcome);
        System.out.println("DONE");
        System.out.flush();
        System.exit(0);
    }
}
