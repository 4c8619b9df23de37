package io.jdat.bench.shm;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
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
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The second process of the {@code shm} benchmarks: a DAT server that accepts one connection and answers.
 *
 * <p>Usage: {@code ShmPeer IA SIZE}. Prints {@code READY <ia-address> <qualifier> <rmr_context> <buffer address>}
 * once it listens, then, connected, loops until its stdin ends:
 * <ul>
 *   <li>each received message (receives of {@code SIZE} at {@link #RECV_AT} are kept posted) is sent back
 *       from {@link #SEND_AT}, unless the message's first byte is 0 (a bandwidth stream: only reposted);</li>
 *   <li>when the 8-byte sequence number in the last word of {@code [WRITE_IN, WRITE_IN + SIZE)} changes, the
 *       same {@code SIZE} bytes are RDMA-written back to the client's {@code WRITE_IN} area (the RDMA Write
 *       ping-pong, polling memory as {@code ib_write_lat} and {@code ucp_put_lat} do; the client names its
 *       region in its first message);</li>
 *   <li>it polls its EVD the whole time, which drives the transport's receive path (RDMA Reads and Writes of
 *       the client are served by it).</li>
 * </ul>
 */
public final class ShmPeer {
    /** Buffer layout (both sides use the same). */
    static final long SEND_AT = 0;
    static final long RECV_AT = 2L << 20;
    static final long RECV_AREA = 16L << 20;
    static final long WRITE_IN = 18L << 20;
    static final long BULK = 20L << 20;
    static final long BUF = 32L << 20;
    static final int RECVS = 32;

    /** Bytes between two receive buffers of messages of {@code size}: they never overlap. */
    static long recvStride(int size) {
        return Math.max(65536, (size + 4095) & -4096L);
    }

    /** How many receives of {@code size} the peer keeps posted. */
    static int recvCount(int size) {
        return (int) Math.min(RECVS, RECV_AREA / recvStride(size));
    }

    private ShmPeer() {
    }

    /** Runs the server; see the class comment. */
    public static void main(String[] args) throws IOException {
        String iaName = args[0];
        int size = Integer.parseInt(args[1]);
        try (InterfaceAdapter ia = InterfaceAdapter.open(iaName, 16, null); Arena arena = Arena.ofShared()) {
            Conn c = new Conn(ia, arena);
            EventDispatcher crEvd = EventDispatcher.create(ia, 4, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
            Path addr = ((UnixDomainSocketAddress) ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress()).getPath();
            for (int i = 0; i < recvCount(size); i++) {
                c.ep.postRecv(1, new LmrTriplet[] {c.lmr.triplet(RECV_AT + i * recvStride(size), Math.max(size, 64))},
                        i, 0);
            }
            System.out.println("READY " + addr + " " + psp.connQual() + " " + c.lmr.rmrContext() + " "
                    + c.lmr.registeredAddress());
            System.out.flush();
            DatEvent e = new DatEvent();
            if (!crEvd.waitFor(30_000_000, 1, e)) {
                throw new IllegalStateException("no connection request");
            }
            ConnectionRequest cr = e.cr();
            cr.accept(c.ep, 0, null);
            c.expect(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            Thread stdin = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // until the benchmark ends
                    }
                } catch (IOException ignored) {
                    // gone
                }
                c.stop = true;
            });
            c.serve(size);
            stdin.interrupt();
        }
    }

    /** The server's objects and loop. */
    private static final class Conn {
        final ProtectionZone pz;
        final EventDispatcher evd;
        final EventDispatcher connEvd;
        final Endpoint ep;
        final MemorySegment buf;
        final Lmr lmr;
        volatile boolean stop;

        Conn(InterfaceAdapter ia, Arena arena) {
            pz = ProtectionZone.create(ia);
            evd = EventDispatcher.create(ia, 256, null, EvdFlags.DTO);
            connEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            EpAttr attr = ia.defaultEpAttr().maxRecvDtos(RECVS).maxRequestDtos(64).maxRdmaReadIn(16)
                    .maxRdmaReadOut(16).maxMessageSize(BULK).maxRdmaSize(BULK)
                    .recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.DEFAULT);
            ep = Endpoint.create(ia, pz, evd, evd, connEvd, attr);
            buf = arena.allocate(BUF, 4096);
            buf.fill((byte) 1);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), BUF, pz, MemPriv.ALL);
        }

        void expect(EventNumber n) {
            DatEvent e = new DatEvent();
            if (!connEvd.waitFor(30_000_000, 1, e) || e.eventNumber() != n) {
                throw new IllegalStateException("expected " + n + ", got " + e);
            }
        }

        void serve(int size) {
            LmrTriplet[] send = {lmr.triplet(SEND_AT, size)};
            LmrTriplet[] writeBack = {lmr.triplet(WRITE_IN, size)};
            LmrTriplet[][] recv = new LmrTriplet[recvCount(size)][];
            for (int i = 0; i < recv.length; i++) {
                recv[i] = new LmrTriplet[] {lmr.triplet(RECV_AT + i * recvStride(size), Math.max(size, 64))};
            }
            long seqAt = WRITE_IN + size - 8;
            long lastSeq = buf.get(ValueLayout.JAVA_LONG, seqAt);
            RmrTriplet clientWrite = null;
            DatEvent e = new DatEvent();
            int spins = 0;
            while (!stop) {
                if (evd.dequeue(e)) {
                    if (e.status() != DtoCompletionStatus.SUCCESS) {
                        throw new IllegalStateException("peer: " + e);
                    }
                    if (e.eventNumber() == EventNumber.DTO_COMPLETION_EVENT && e.userCookie() < RECVS) {
                        int slot = (int) e.userCookie();
                        MemorySegment m = buf.asSlice(RECV_AT + slot * recvStride(size), 64);
                        byte first = m.get(ValueLayout.JAVA_BYTE, 0);
                        if (first == 2) { // the client names its write-back region: context, address
                            clientWrite = new RmrTriplet(m.get(ValueLayout.JAVA_INT, 8), m.get(ValueLayout.JAVA_LONG, 16),
                                    size);
                        }
                        ep.postRecv(1, recv[slot], slot, 0);
                        if (first != 0) {
                            ep.postSend(1, send, 1000, 0);
                        }
                    }
                    continue;
                }
                long seq = buf.get(ValueLayout.JAVA_LONG, seqAt);
                if (seq != lastSeq && clientWrite != null) {
                    lastSeq = seq;
                    ep.postRdmaWrite(1, writeBack, 2000, clientWrite, 0);
                    continue;
                }
                if ((++spins & 0xFFFF) == 0) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    /** Starts a peer process and reads its READY line. */
    static Process start(String iaName, int size, String[] ready) throws IOException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC", "-cp", System.getProperty("java.class.path"),
                ShmPeer.class.getName(), iaName, Integer.toString(size))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("READY ")) {
            p.destroyForcibly();
            throw new IOException("the shm peer did not start: " + line);
        }
        String[] w = line.split(" ");
        System.arraycopy(w, 1, ready, 0, 4);
        return p;
    }
}
