package io.jdat.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.Rmr;
import io.jdat.RmrParam;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.DeviceMemory;
import io.jdat.spi.EndpointResources;
import io.jdat.spi.TransportLimits;
import io.jdat.spi.WorkRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The core's side of device memory windows ({@link DeviceMemory.Domain#openWindow()}), with a transport that
 * stands for a device: {@code dat_rmr_create} opens a window, {@code dat_rmr_bind} hands the transport the window,
 * the LMR's registration, the range and the privileges and returns the key the transport gave the window, a failed
 * bind replaces the window, {@code dat_rmr_free} closes it; without windows the fallback registers each binding.
 */
class DeviceWindowTest {
    private static final OpenIaCount UNCOUNTED = new OpenIaCount() {
        @Override
        public void acquire(String iaName) {
        }

        @Override
        public void release(String iaName) {
        }
    };

    /** A device: registrations with counted keys, windows when {@code windows}, one channel it completes by hand. */
    private static final class FakeDevice extends InertTransport implements DeviceMemory, DeviceMemory.Domain {
        final boolean windows;
        final List<FakeRegistration> registrations = new ArrayList<>();
        final List<FakeWindow> opened = new ArrayList<>();
        final List<WorkRequest> submitted = new ArrayList<>();
        ActiveHandler handler;
        int nextKey = 0x100;

        FakeDevice(boolean windows) {
            this.windows = windows;
        }

        @Override
        public TransportLimits limits() {
            return new TransportLimits(1 << 20, 1 << 20, 64, 4, 4, 0, "fake device", 8);
        }

        @Override
        public SocketAddress address() {
            return new InetSocketAddress("127.0.0.1", 0);
        }

        @Override
        public boolean isValidAddress(SocketAddress address) {
            return true;
        }

        @Override
        public DeviceMemory deviceMemory() {
            return this;
        }

        @Override
        public ConnectAttempt connect(SocketAddress remote, long qual, byte[] pd, int ird, int ord, ActiveHandler h) {
            handler = h;
            return new ConnectAttempt() {
                @Override
                public long localPortQual() {
                    return 1;
                }

                @Override
                public void cancel() {
                }
            };
        }

        @Override
        public ConnectAttempt connect(SocketAddress remote, long qual, byte[] pd, int ird, int ord, ActiveHandler h,
                EndpointResources res) {
            return connect(remote, qual, pd, ird, ord, h);
        }

        @Override
        public Domain openDomain() {
            return this;
        }

        @Override
        public Registration register(MemorySegment memory, int privileges) {
            FakeRegistration r = new FakeRegistration(nextKey++);
            registrations.add(r);
            return r;
        }

        @Override
        public Window openWindow() {
            if (!windows) {
                return null;
            }
            FakeWindow w = new FakeWindow();
            opened.add(w);
            return w;
        }

        @Override
        public void close() {
        }
    }

    private static final class FakeRegistration implements DeviceMemory.Registration {
        final int key;

        FakeRegistration(int key) {
            this.key = key;
        }

        @Override
        public int localKey() {
            return key;
        }

        @Override
        public int remoteKey() {
            return key;
        }

        @Override
        public void close() {
        }
    }

    /** A window whose key the "device" advances at each bind, as rdma-core's providers do. */
    private static final class FakeWindow implements DeviceMemory.Window {
        int key = 0x7700;
        int invalidated;
        int closed;

        @Override
        public void invalidate() {
            invalidated++;
            key = 0x8800;
        }

        @Override
        public void close() {
            closed++;
        }
    }

    /** The one connection: RMR binds get the window's next key, as {@code bind_mw} gives it. */
    private static final class FakeChannel implements Channel {
        final FakeDevice d;

        FakeChannel(FakeDevice d) {
            this.d = d;
        }

        @Override
        public long localPortQual() {
            return 1;
        }

        @Override
        public void submit(WorkRequest wr) {
            if (wr.op() == WorkRequest.Op.RMR_BIND && wr.window() instanceof FakeWindow w) {
                w.key++;
                wr.windowBound(w.key);
            }
            d.submitted.add(wr);
        }

        @Override
        public void recvPosted() {
        }

        @Override
        public void close(int mode) {
        }
    }

    private record Setup(CoreIa ia, FakeDevice device, ProtectionZone pz, Lmr lmr, Endpoint ep, EventDispatcher req,
            ChannelSink sink, Arena arena) implements AutoCloseable {
        static Setup connected(boolean windows) {
            FakeDevice d = new FakeDevice(windows);
            CoreIa ia = CoreIa.open("fake-device", d, 8, null, UNCOUNTED);
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher req = EventDispatcher.create(ia, 16, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            EventDispatcher conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            Endpoint ep = ia.epCreate(pz, req, req, conn, ia.defaultEpAttr().copy());
            Arena arena = Arena.ofShared();
            MemorySegment buf = arena.allocate(16384, 4096);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            ep.connect(new InetSocketAddress("127.0.0.1", 1), 7, 5_000_000, 0, new byte[0], Qos.BEST_EFFORT, 0);
            assertNotNull(d.handler, "the core asked the transport to connect");
            ChannelSink sink = d.handler.established(new FakeChannel(d), new byte[0]);
            DatEvent e = new DatEvent();
            assertTrue(conn.waitFor(5_000_000, 1, e), "connection event");
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber());
            return new Setup(ia, d, pz, lmr, ep, req, sink, arena);
        }

        DatEvent next() {
            DatEvent e = new DatEvent();
            assertTrue(req.waitFor(5_000_000, 1, e), "request event");
            return e;
        }

        WorkRequest last() {
            return device.submitted.get(device.submitted.size() - 1);
        }

        @Override
        public void close() {
            ia.close(CloseFlags.ABRUPT);
            arena.close();
        }
    }

    @Test
    @DisplayName("RMC-01 RMB-02 RMB-06 RMB-09 RMF-01: with device windows, rmr_create opens one, a bind hands the"
            + " transport the window, the LMR's registration, the range and the privileges and returns the key the"
            + " device gave the window; a rebind a new key; an unbind names the bound region; free closes the window")
    void windowBindReturnsTheDeviceKey() {
        try (Setup s = Setup.connected(true)) {
            int registrations = s.device.registrations.size();
            Rmr rmr = Rmr.create(s.pz);
            assertEquals(1, s.device.opened.size(), "dat_rmr_create = ibv_alloc_mw");
            FakeWindow w = s.device.opened.get(0);
            LmrTriplet range = s.lmr.triplet(4096, 1024);
            int ctx = rmr.bind(range, MemPriv.REMOTE_READ | MemPriv.REMOTE_WRITE, s.ep, 5, CompletionFlags.DEFAULT);
            WorkRequest wr = s.last();
            assertEquals(WorkRequest.Op.RMR_BIND, wr.op());
            assertSame(w, wr.window());
            assertSame(s.device.registrations.get(0), wr.windowRegistration(), "the LMR's registration");
            assertEquals(range.virtualAddress(), wr.windowAddress());
            assertEquals(1024, wr.windowLength());
            assertEquals(MemPriv.REMOTE_READ | MemPriv.REMOTE_WRITE, wr.windowPrivileges());
            assertEquals(0x7701, ctx, "the context is the window's new key");
            assertEquals(registrations, s.device.registrations.size(), "no fallback registration");
            assertEquals(ctx, rmr.query(RmrParam.FIELD_ALL).rmrContext());
            s.sink.requestCompleted(DtoCompletionStatus.SUCCESS, 0);
            DatEvent e = s.next();
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, e.eventNumber());
            assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            assertEquals(5, e.userCookie());
            int ctx2 = rmr.bind(s.lmr.triplet(8192, 512), MemPriv.REMOTE_READ, s.ep, 6, CompletionFlags.DEFAULT);
            assertEquals(0x7702, ctx2, "a rebind gives the window a new key");
            assertEquals(MemPriv.REMOTE_READ, s.last().windowPrivileges());
            s.sink.requestCompleted(DtoCompletionStatus.SUCCESS, 0);
            s.next();
            rmr.bind(new LmrTriplet(s.lmr.lmrContext(), s.lmr.registeredAddress(), 0), 0, s.ep, 7,
                    CompletionFlags.DEFAULT);
            WorkRequest unbind = s.last();
            assertSame(w, unbind.window());
            assertEquals(0, unbind.windowLength(), "an unbind is a bind of length 0");
            assertSame(s.device.registrations.get(0), unbind.windowRegistration(), "naming the region it was bound in");
            s.sink.requestCompleted(DtoCompletionStatus.SUCCESS, 0);
            s.next();
            s.lmr.free(); // LMF-01: nothing is bound into it any more
            rmr.free();
            assertEquals(1, w.closed, "dat_rmr_free = ibv_dealloc_mw");
            assertEquals(0, w.invalidated);
        }
    }

    @Test
    @DisplayName("RMB-05: a window bind the device fails completes with its status, breaks the connection, binds"
            + " nothing (the LMR may be freed) and replaces the window")
    void failedWindowBindReplacesTheWindow() {
        try (Setup s = Setup.connected(true)) {
            Rmr rmr = Rmr.create(s.pz);
            FakeWindow w = s.device.opened.get(0);
            rmr.bind(s.lmr.triplet(0, 1024), MemPriv.REMOTE_WRITE, s.ep, 9, CompletionFlags.DEFAULT);
            s.sink.requestCompleted(DtoCompletionStatus.RMR_OPERATION_FAILED, 0);
            DatEvent e = s.next();
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, e.eventNumber());
            assertEquals(DtoCompletionStatus.RMR_OPERATION_FAILED, e.status());
            assertEquals(1, w.invalidated, "the device may hold the old binding: the window is replaced");
            s.lmr.free(); // the failed bind holds no LMR
            rmr.free();
            assertEquals(1, w.closed);
        }
    }

    @Test
    @DisplayName("RMB-05 RMB-09: an unbind the device never executed (flushed by a break) replaces the window, which may"
            + " still hold the binding at the device; a bind overtaken by a later one does not")
    void flushedUnbindReplacesTheWindow() {
        try (Setup s = Setup.connected(true)) {
            Rmr rmr = Rmr.create(s.pz);
            FakeWindow w = s.device.opened.get(0);
            rmr.bind(s.lmr.triplet(0, 1024), MemPriv.REMOTE_WRITE, s.ep, 1, CompletionFlags.DEFAULT);
            rmr.bind(s.lmr.triplet(1024, 1024), MemPriv.REMOTE_WRITE, s.ep, 2, CompletionFlags.DEFAULT);
            s.sink.requestCompleted(DtoCompletionStatus.ERR_FLUSHED, 0); // the first, overtaken by the second
            assertEquals(0, w.invalidated, "a later bind decides the window's state");
            s.sink.requestCompleted(DtoCompletionStatus.SUCCESS, 0);
            rmr.bind(new LmrTriplet(s.lmr.lmrContext(), s.lmr.registeredAddress(), 0), 0, s.ep, 3,
                    CompletionFlags.DEFAULT);
            s.sink.requestCompleted(DtoCompletionStatus.ERR_FLUSHED, 0);
            assertEquals(1, w.invalidated, "the unbind did not happen at the device: a fresh window");
            rmr.free();
        }
    }

    @Test
    @DisplayName("the fallback: without device windows a bind registers the range and returns its rkey; the transport"
            + " sees no window")
    void fallbackRegistersEachBinding() {
        try (Setup s = Setup.connected(false)) {
            int registrations = s.device.registrations.size();
            Rmr rmr = Rmr.create(s.pz);
            assertTrue(s.device.opened.isEmpty());
            int ctx = rmr.bind(s.lmr.triplet(4096, 1024), MemPriv.REMOTE_WRITE, s.ep, 5, CompletionFlags.DEFAULT);
            assertEquals(registrations + 1, s.device.registrations.size(), "the binding is a registration");
            assertEquals(s.device.registrations.get(registrations).key, ctx, "its rkey is the context");
            assertNull(s.last().window());
            s.sink.requestCompleted(DtoCompletionStatus.SUCCESS, 0);
            assertEquals(DtoCompletionStatus.SUCCESS, s.next().status());
            rmr.free();
        }
    }
}
