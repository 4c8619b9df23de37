package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every synchronous failure of the API is a {@link DatException} (issue 14 item 6): each public method of
 * every handle type, and the static factories, called with {@code null} or an out-of-range value in one
 * argument at a time (the others plausible), on the {@code mem} provider. A {@code NullPointerException},
 * {@code IllegalArgumentException}, {@code IndexOutOfBoundsException} or any other exception escaping the API
 * fails the sweep; {@link #nullArguments()} pins the exact DAT type and subtype of the null cases.
 */
class ArgumentSweepTest {
    /** Objects of every kind, on two connected mem IAs; one sweep call may free or close any of them. */
    private static final class World implements AutoCloseable {
        final Pair pair = new Pair().connect();
        final InterfaceAdapter ia = pair.client.ia;
        final Cno cno = Cno.create(ia, null);
        final Rmr rmr = Rmr.create(pair.client.pz);
        final SharedReceiveQueue srq = SharedReceiveQueue.create(ia, pair.client.pz,
                new SrqAttr(8, 2, 0));
        final EventDispatcher crEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CR);
        final EventDispatcher allEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DEFAULT);
        final EventDispatcher swEvd = EventDispatcher.create(ia, 8, null, EvdFlags.SOFTWARE);
        final Endpoint idleEp = Endpoint.create(ia, pair.client.pz, pair.client.recvEvd, pair.client.reqEvd,
                EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION), null);
        final Endpoint rspEp = Endpoint.create(pair.server.ia, pair.server.pz, pair.server.recvEvd,
                pair.server.reqEvd, pair.server.connEvd, null);
        final PublicServicePoint psp = PublicServicePoint.create(pair.server.ia, Pair.freshQual(), pair.crEvd,
                PspFlags.CONSUMER);
        final ReservedServicePoint rsp = ReservedServicePoint.create(pair.server.ia, Pair.freshQual(), rspEp,
                pair.crEvd);
        final ConnectionRequest cr;
        final Endpoint pendingEp;

        World() {
            pendingEp = Endpoint.create(ia, pair.client.pz, pair.client.recvEvd, pair.client.reqEvd,
                    EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION), null);
            pendingEp.connect(Pair.address(), psp.connQual(), 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
            DatEvent e = pair.server.next(pair.crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
            cr = e.cr();
            swEvd.postSe(DatEvent.software("queued")); // dequeue and wait find an event to copy out
        }

        @Override
        public void close() {
            pair.close();
        }

        /** The plausible value of a parameter of type {@code t} (profile 0: small; 1: zero/empty). */
        Object plausible(Class<?> t, int profile) {
            if (t == int.class) {
                return profile == 0 ? 1 : 0;
            }
            if (t == long.class) {
                return profile == 0 ? 1L : 0L;
            }
            if (t == boolean.class) {
                return profile == 0;
            }
            if (t == String.class) {
                return "mem";
            }
            if (t == InterfaceAdapter.class) {
                return ia;
            }
            if (t == ProtectionZone.class) {
                return pair.client.pz;
            }
            if (t == EventDispatcher.class) {
                return profile == 0 ? allEvd : pair.client.connEvd;
            }
            if (t == Cno.class) {
                return profile == 0 ? cno : null;
            }
            if (t == Endpoint.class) {
                return profile == 0 ? idleEp : pair.client.ep;
            }
            if (t == Lmr.class) {
                return pair.client.lmr;
            }
            if (t == SharedReceiveQueue.class) {
                return srq;
            }
            if (t == LmrTriplet[].class) {
                return profile == 0 ? new LmrTriplet[] {pair.client.lmr.triplet(0, 64)} : new LmrTriplet[0];
            }
            if (t == LmrTriplet.class) {
                return pair.client.lmr.triplet(0, 64);
            }
            if (t == RmrTriplet.class) {
                return pair.server.lmr.remoteTriplet(0, 64);
            }
            if (t == DatEvent.class) {
                return profile == 0 ? DatEvent.software("x") : new DatEvent();
            }
            if (t == byte[].class) {
                return profile == 0 ? new byte[1] : new byte[0];
            }
            if (t == SocketAddress.class) {
                return Pair.address();
            }
            if (t == EpAttr.class) {
                return profile == 0 ? ia.defaultEpAttr() : null;
            }
            if (t == EpParam.class) {
                return pair.client.ep.query(EpParam.FIELD_ALL);
            }
            if (t == SrqAttr.class) {
                return new SrqAttr(4, 1, 0);
            }
            if (t == RegionDescription.class) {
                return RegionDescription.forVa(pair.client.buf);
            }
            if (t == MemorySegment.class) {
                return pair.client.buf;
            }
            if (t == ProxyAgent.class) {
                return (ProxyAgent) evd -> { };
            }
            if (t == Object.class) {
                return "context";
            }
            if (t == RegistryEntry.class) {
                return null;
            }
            throw new AssertionError("no plausible value for " + t);
        }
    }

    /** Hostile values of a parameter type: null for references, extremes and -1 for numbers. */
    private static List<Object> hostile(Class<?> t, World w) {
        List<Object> v = new ArrayList<>();
        if (t == int.class) {
            v.addAll(List.of(-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 65, 1 << 20 + 1));
        } else if (t == long.class) {
            v.addAll(List.of(-1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 32, 65_536L));
        } else if (t == boolean.class) {
            v.add(true);
        } else {
            v.add(null);
            if (t == LmrTriplet[].class) {
                v.add(new LmrTriplet[] {null});
                v.add(new LmrTriplet[] {new LmrTriplet(0x12345601, 0, 64)});
                v.add(new LmrTriplet[] {w.pair.client.lmr.triplet(0, -1)});
                v.add(new LmrTriplet[] {new LmrTriplet(w.pair.client.lmr.lmrContext(), Long.MAX_VALUE, 64)});
            } else if (t == LmrTriplet.class) {
                v.add(new LmrTriplet(0x12345601, -1, -1));
                v.add(new LmrTriplet(w.pair.client.lmr.lmrContext(), Long.MIN_VALUE, Long.MAX_VALUE));
            } else if (t == RmrTriplet.class) {
                v.add(new RmrTriplet(0x12345601, -1, -1));
                v.add(new RmrTriplet(w.pair.server.lmr.rmrContext(), Long.MAX_VALUE, Long.MAX_VALUE));
            } else if (t == SocketAddress.class) {
                v.add(InetSocketAddress.createUnresolved("nowhere.invalid", 1));
            } else if (t == String.class) {
                v.add("");
                v.add("no such IA \0");
            } else if (t == DatEvent.class) {
                v.add(new DatEvent());
            } else if (t == byte[].class) {
                v.add(new byte[100_000]);
            } else if (t == EpAttr.class) {
                v.add(new EpAttr());
                v.add(new EpAttr().maxRecvDtos(-1).maxRequestDtos(Integer.MAX_VALUE).maxRecvIov(-5)
                        .maxMessageSize(-1).maxRdmaReadIn(-1).maxRdmaReadOut(Integer.MIN_VALUE));
            } else if (t == SrqAttr.class) {
                v.add(new SrqAttr(0, 0, 0));
                v.add(new SrqAttr(-1, Integer.MAX_VALUE, -1));
            } else if (t == RegionDescription.class) {
                v.add(RegionDescription.forVa(MemorySegment.NULL));
                v.add(RegionDescription.forVa(null));
                v.add(RegionDescription.forLmr(null));
                v.add(RegionDescription.forSharedMemory(null, null));
                v.add(RegionDescription.forSharedMemory(w.pair.client.buf, new byte[3]));
            } else if (t == MemorySegment.class) {
                v.add(MemorySegment.NULL);
            } else if (t == EpParam.class) {
                v.add(new EpParam());
            }
        }
        return v;
    }

    /** The public API's handle types and the receivers their instance methods are swept on. */
    private static Map<Class<?>, Function<World, List<Object>>> receivers() {
        return Map.ofEntries(
                Map.entry(InterfaceAdapter.class, w -> List.of(w.ia)),
                Map.entry(ProtectionZone.class, w -> List.of(w.pair.client.pz)),
                Map.entry(EventDispatcher.class, w -> List.of(w.pair.client.recvEvd, w.swEvd, w.crEvd)),
                Map.entry(Endpoint.class, w -> List.of(w.pair.client.ep, w.idleEp)),
                Map.entry(Lmr.class, w -> List.of(w.pair.client.lmr)),
                Map.entry(Rmr.class, w -> List.of(w.rmr)),
                Map.entry(Cno.class, w -> List.of(w.cno)),
                Map.entry(PublicServicePoint.class, w -> List.of(w.psp)),
                Map.entry(ReservedServicePoint.class, w -> List.of(w.rsp)),
                Map.entry(ConnectionRequest.class, w -> List.of(w.cr)),
                Map.entry(SharedReceiveQueue.class, w -> List.of(w.srq)),
                Map.entry(Registry.class, w -> List.of()),
                Map.entry(RegionDescription.class, w -> List.of()));
    }

    private static final ExecutorService CALLER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "argument-sweep");
        t.setDaemon(true);
        return t;
    });

    /**
     * Calls {@code m} on {@code target}; returns null when it returned or threw a {@link DatException}, else a
     * description of what escaped. A call still blocked after 300 ms (a wait with a huge timeout) is interrupted
     * and must then end with a DatException too.
     */
    private static String call(Method m, Object target, Object[] args) {
        Future<Throwable> f = CALLER.submit(() -> {
            try {
                Object result = m.invoke(target, args);
                if (result instanceof InterfaceAdapter opened) {
                    opened.close(CloseFlags.ABRUPT); // an IA the sweep opened: no other test may see it
                }
                return null;
            } catch (InvocationTargetException e) {
                return e.getCause();
            }
        });
        Throwable t;
        try {
            try {
                t = f.get(300, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                f.cancel(true);
                try {
                    t = f.get(2, TimeUnit.SECONDS);
                } catch (java.util.concurrent.CancellationException c) {
                    return null; // interrupted: cancel() cannot show us what the call threw; a wait ends
                }
            }
        } catch (ExecutionException | InterruptedException | TimeoutException e) {
            return "the call did not end: " + e;
        }
        if (t == null || t instanceof DatException) {
            return null;
        }
        StringBuilder b = new StringBuilder(t.toString());
        for (StackTraceElement s : t.getStackTrace()) {
            if (s.getClassName().startsWith("io.jdat.") && !s.getClassName().contains("ArgumentSweep")) {
                b.append(" at ").append(s);
                break;
            }
        }
        return b.toString();
    }

    private static String describe(Object v) {
        if (v instanceof Object[] a) {
            return Arrays.toString(a);
        }
        if (v instanceof byte[] a) {
            return "byte[" + a.length + "]";
        }
        if (v instanceof DatHandle h) {
            return h.getHandleType().toString();
        }
        return String.valueOf(v);
    }

    @Test
    @DisplayName("Every public API method, swept with null and out-of-range arguments one at a time: only"
            + " DatException escapes (no NPE, IAE, IndexOutOfBounds, ClassCast...)")
    void onlyDatExceptionEscapes() {
        List<String> escapes = new ArrayList<>();
        int calls = 0;
        int memOpen = Registry.openCount("mem");
        for (Map.Entry<Class<?>, Function<World, List<Object>>> e : receivers().entrySet()) {
            for (Method m : e.getKey().getMethods()) {
                if (m.getDeclaringClass() == Object.class || m.getParameterCount() == 0
                        || m.getName().equals("setConsumerContext")) {
                    continue;
                }
                boolean isStatic = Modifier.isStatic(m.getModifiers());
                Class<?>[] types = m.getParameterTypes();
                for (int p = 0; p < types.length; p++) {
                    for (int profile = 0; profile < 2; profile++) {
                        try (World w = new World()) {
                            List<Object> targets = isStatic ? Arrays.asList((Object) null) : e.getValue().apply(w);
                            for (Object target : targets) {
                                for (Object bad : hostile(types[p], w)) {
                                    Object[] args = new Object[types.length];
                                    for (int i = 0; i < types.length; i++) {
                                        args[i] = i == p ? bad : w.plausible(types[i], profile);
                                    }
                                    calls++;
                                    String escaped = call(m, target, args);
                                    if (escaped != null) {
                                        escapes.add(e.getKey().getSimpleName() + "." + m.getName() + " parameter " + (p + 1)
                                                + " = " + describe(bad) + " (profile " + profile + "): " + escaped);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assertTrue(calls > 500, "swept only " + calls + " calls");
        assertEquals(memOpen, Registry.openCount("mem"), "the sweep left mem IAs open");
        assertTrue(escapes.isEmpty(), escapes.size() + " of " + calls + " calls escaped with a non-DAT exception:\n"
                + String.join("\n", escapes.stream().distinct().toList()));
    }

    private static void expect(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), e.toString());
        assertEquals(subtype, e.subtype(), e.toString());
    }

    @Test
    @DisplayName("EVQ: dat_evd_dequeue with a null event, with an event queued or not -> DAT_INVALID_PARAMETER"
            + " (DAT_INVALID_ARG2), as dat_evd_wait answers it (ARG4); the event stays queued")
    void dequeueNullEvent() {
        try (World w = new World()) {
            expect(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> w.swEvd.dequeue(null));
            w.swEvd.postSe(DatEvent.software("queued"));
            expect(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> w.swEvd.dequeue(null));
            expect(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4,
                    () -> w.swEvd.waitFor(0, 1, null));
            DatEvent e = new DatEvent();
            assertTrue(w.swEvd.dequeue(e));
            assertEquals("queued", e.softwarePointer());
        }
    }

    @Test
    @DisplayName("Null arguments of the public API: the exact DAT type and subtype of each")
    void nullArguments() {
        try (World w = new World()) {
            Pair p = w.pair;
            final DatReturnType param = DatReturnType.INVALID_PARAMETER;
            final DatReturnType handle = DatReturnType.INVALID_HANDLE;
            expect(param, DatReturnSubtype.INVALID_ARG2, () -> p.client.recvEvd.dequeue(null));
            expect(param, DatReturnSubtype.INVALID_ARG2, () -> w.swEvd.postSe(null));
            expect(handle, DatReturnSubtype.INVALID_HANDLE_IA, () -> ProtectionZone.create(null));
            expect(handle, DatReturnSubtype.INVALID_HANDLE_PZ, () -> Rmr.create(null));
            expect(handle, DatReturnSubtype.INVALID_HANDLE_IA, () -> EventDispatcher.create(null, 8, null,
                    EvdFlags.DTO));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> Lmr.create(w.ia, MemType.VIRTUAL, null, 64,
                    p.client.pz, MemPriv.ALL));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> Lmr.create(w.ia, MemType.VIRTUAL,
                    RegionDescription.forVa(null), 64, p.client.pz, MemPriv.ALL));
            expect(handle, DatReturnSubtype.INVALID_HANDLE_PZ, () -> Lmr.create(w.ia, MemType.VIRTUAL,
                    RegionDescription.forVa(p.client.buf), 64, null, MemPriv.ALL));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> p.client.ep.postSend(1, null, 1, 0));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> p.client.ep.postSend(1, new LmrTriplet[] {null}, 1,
                    0));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> p.client.ep.postRecv(1, null, 1, 0));
            expect(param, DatReturnSubtype.INVALID_ARG5, () -> p.client.ep.postRdmaWrite(1,
                    new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 1, null, 0));
            expect(param, DatReturnSubtype.INVALID_ARG5, () -> p.client.ep.postRdmaRead(1,
                    new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 1, null, 0));
            expect(param, DatReturnSubtype.INVALID_ARG2, () -> w.idleEp.connect(null, 1, 1000, 0, null,
                    Qos.BEST_EFFORT, 0));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> p.client.ep.modify(EpParam.FIELD_EP_ATTR_MAX_RECV_IOV, null));
            expect(param, DatReturnSubtype.INVALID_ARG2, () -> w.rmr.bind(null, MemPriv.ALL, p.client.ep, 1, 0));
            expect(handle, DatReturnSubtype.INVALID_HANDLE_EVD_CR, () -> PublicServicePoint.create(p.server.ia,
                    Pair.freshQual(), null, PspFlags.CONSUMER));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> w.srq.postRecv(1, null, 1));
            expect(param, DatReturnSubtype.INVALID_ARG3, () -> SharedReceiveQueue.create(w.ia, p.client.pz, null));
            expect(param, DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(w.ia, p.client.pz, p.client.recvEvd,
                    p.client.reqEvd, p.client.connEvd, new EpAttr().maxRecvDtos(-1)));
            expect(param, DatReturnSubtype.INVALID_ARG2, () -> Lmr.syncRdmaRead(w.ia, null, 1));
        }
    }
}
