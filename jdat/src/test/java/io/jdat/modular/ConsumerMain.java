package io.jdat.modular;

import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
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
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.CloseFlags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.util.TreeSet;

/**
 * A consumer of jdat that uses the exported API only, run by {@link ModuleRunModesTest} in a child JVM with jdat
 * on the module path or on the class path. It prints what it sees, one {@code key=value} line each: the module
 * jdat is in, its exported packages, whether the core and {@code Registry.acquire} are reachable, whether
 * native access is enabled for jdat, and the outcome of a 64 KiB Send (beyond shm's inline size: cross-memory
 * attach) over each of {@code mem}, {@code shm} and {@code tcp}, whose providers the core finds by
 * {@link java.util.ServiceLoader} ({@code provides} in module-info, {@code META-INF/services} on the class path).
 */
public final class ConsumerMain {
    private static final int SIZE = 64 * 1024;
    private static final int WAIT_US = 10_000_000;

    private ConsumerMain() {
    }

    /** Prints the lines, then {@code done}. */
    public static void main(String[] args) throws Exception {
        Module jdat = Dat.class.getModule();
        System.out.println("module=" + (jdat.isNamed() ? jdat.getName() : "unnamed"));
        TreeSet<String> exports = new TreeSet<>();
        if (jdat.isNamed()) {
            for (ModuleDescriptor.Exports e : jdat.getDescriptor().exports()) {
                exports.add(e.isQualified() ? e.source() + "->" + e.targets() : e.source());
            }
        }
        System.out.println("exports=" + String.join(",", exports));
        System.out.println("native=" + jdat.isNativeAccessEnabled());
        System.out.println("core=" + reachable("io.jdat.core.Core"));
        System.out.println("acquire=" + (Modifier.isPublic(
                Registry.class.getDeclaredMethod("acquire", String.class).getModifiers()) ? "public" : "hidden"));
        register("module-test-shm", "shm", "");
        register("module-test-tcp", "tcp", "127.0.0.1");
        for (String ia : new String[] {"mem", "module-test-shm", "module-test-tcp"}) {
            System.out.println("send." + ia + "=" + send(ia));
        }
        System.out.println("done");
    }

    /** {@code open} if a public static method of {@code className} can be called, else {@code closed}. */
    private static String reachable(String className) throws ClassNotFoundException {
        Class<?> c = Class.forName(className);
        for (var m : c.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() == c) {
                try {
                    m.setAccessible(true);
                    return "open";
                } catch (RuntimeException e) {
                    return "closed";
                }
            }
        }
        return "none";
    }

    private static void register(String name, String library, String params) {
        try {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, library, "jdat", 1, 0, params, ""));
        } catch (DatException e) {
            if (e.type() != DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
    }

    /** One Send of 64 KiB from a client IA to a server IA of {@code iaName}: {@code ok} or what went wrong. */
    private static String send(String iaName) {
        try (Arena arena = Arena.ofShared();
                InterfaceAdapter server = InterfaceAdapter.open(iaName, 8, null);
                InterfaceAdapter client = InterfaceAdapter.open(iaName, 8, null)) {
            Side s = new Side(server, arena);
            Side c = new Side(client, arena);
            EventDispatcher crEvd = EventDispatcher.create(server, 4, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
            s.ep.postRecv(1, new LmrTriplet[] {s.lmr.triplet(0, SIZE)}, 1, CompletionFlags.DEFAULT);
            c.ep.connect(server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), WAIT_US, 0, null,
                    Qos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            expect(crEvd, e, EventNumber.CONNECTION_REQUEST_EVENT);
            e.cr().accept(s.ep, 0, null);
            expect(s.connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            expect(c.connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            for (int i = 0; i < SIZE; i++) {
                c.buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            c.ep.postSend(1, new LmrTriplet[] {c.lmr.triplet(0, SIZE)}, 2, CompletionFlags.DEFAULT);
            expect(c.reqEvd, e, EventNumber.DTO_COMPLETION_EVENT);
            if (e.status() != DtoCompletionStatus.SUCCESS) {
                return "send " + e.status();
            }
            expect(s.recvEvd, e, EventNumber.DTO_COMPLETION_EVENT);
            if (e.status() != DtoCompletionStatus.SUCCESS || e.transferredLength() != SIZE) {
                return "receive " + e.status() + " " + e.transferredLength();
            }
            long at = s.buf.mismatch(c.buf);
            if (at >= 0) {
                return "byte " + at + " differs";
            }
            c.ep.disconnect(CloseFlags.ABRUPT);
            return "ok";
        } catch (RuntimeException | Error e) {
            return e.toString().replace('\n', ' ');
        }
    }

    private static void expect(EventDispatcher evd, DatEvent e, EventNumber n) {
        if (!evd.waitFor(WAIT_US, 1, e) || e.eventNumber() != n) {
            throw new IllegalStateException("expected " + n + ", got " + e);
        }
    }

    /** A PZ, a 64 KiB registered buffer and a connected-to-be EP with its three EVDs. */
    private static final class Side {
        final MemorySegment buf;
        final Lmr lmr;
        final EventDispatcher recvEvd;
        final EventDispatcher reqEvd;
        final EventDispatcher connEvd;
        final Endpoint ep;

        Side(InterfaceAdapter ia, Arena arena) {
            ProtectionZone pz = ProtectionZone.create(ia);
            buf = arena.allocate(SIZE, 4096);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), SIZE, pz, MemPriv.ALL);
            recvEvd = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            connEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, null);
        }
    }
}
