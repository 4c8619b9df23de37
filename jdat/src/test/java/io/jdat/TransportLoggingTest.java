package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tcp and shm transports log connection events through System.Logger (logger io.jdat.tcp / io.jdat.shm, at
 * DEBUG: java.util.logging's FINE), not to System.err.
 */
@ResourceLock("System.err")
class TransportLoggingTest {
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void connectionEventsGoToTheTransportsLogger(String provider) throws Exception {
        Logger jul = Logger.getLogger("io.jdat." + provider);
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level saved = jul.getLevel();
        jul.setLevel(Level.ALL);
        jul.addHandler(h);
        PrintStream err = System.err;
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        try {
            connectAndDisconnect(provider);
        } finally {
            System.setErr(err);
            jul.removeHandler(h);
            jul.setLevel(saved);
        }
        assertTrue(records.stream().anyMatch(r -> r.getLoggerName().equals("io.jdat." + provider)
                && r.getLevel() == Level.FINE && r.getMessage().contains("disconnected")),
                () -> "no FINE 'disconnected' record on io.jdat." + provider + ": "
                        + records.stream().map(LogRecord::getMessage).toList());
        assertEquals("", errBytes.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("jdat-" + provider)).reduce("", String::concat), "printed to System.err");
    }

    private static void connectAndDisconnect(String provider) {
        DatEvent ev = new DatEvent();
        try (InterfaceAdapter server = InterfaceAdapter.open(provider, 8, null);
                InterfaceAdapter client = InterfaceAdapter.open(provider, 8, null)) {
            EventDispatcher crEvd = EventDispatcher.create(server, 4, null, EvdFlags.CR);
            Endpoint sep = endpoint(server);
            Endpoint cep = endpoint(client);
            PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
            cep.connect(server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), 10_000_000, 0, null,
                    Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            assertTrue(crEvd.waitFor(10_000_000, 1, ev));
            ev.cr().accept(sep, 0, null);
            expect(sep, ev, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            expect(cep, ev, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            cep.disconnect(CloseFlags.GRACEFUL);
            expect(cep, ev, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            expect(sep, ev, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    private static Endpoint endpoint(InterfaceAdapter ia) {
        ProtectionZone pz = ProtectionZone.create(ia);
        EventDispatcher dto = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
        EventDispatcher conn = EventDispatcher.create(ia, 4, null, EvdFlags.CONNECTION);
        return Endpoint.create(ia, pz, dto, dto, conn, null);
    }

    private static void expect(Endpoint ep, DatEvent ev, EventNumber n) {
        EventDispatcher conn = ep.query(EpParam.FIELD_ALL).connectEvdHandle();
        assertTrue(conn.waitFor(10_000_000, 1, ev), "no " + n);
        assertEquals(n, ev.eventNumber());
    }
}
