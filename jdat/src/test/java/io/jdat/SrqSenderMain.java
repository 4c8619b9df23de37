package io.jdat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;

/**
 * The sending process of {@link SrqCrossProcessTest}: {@code SrqSenderMain IA ADDRESS QUALIFIER EPS PER_EP}
 * connects {@code EPS} EPs to the server (private data: the EP's index), sends {@code PER_EP} messages on each
 * ({@link #length} bytes, laid out by {@link #body}), then waits until the server disconnects every EP.
 * ADDRESS is an {@code shm} instance directory (an absolute path) or a host name. Prints
 * {@code CONNECTED n}, {@code SENT n}, {@code DONE}; {@code ERROR reason} and exit 1 on any failure.
 */
public final class SrqSenderMain {
    /** Sends in flight per EP. */
    static final int WINDOW = 8;
    /** The largest message; the server's SRQ buffers are this big. */
    static final int MAX = 512;
    /** Bound on every wait, in microseconds. */
    private static final int WAIT = 30_000_000;

    private SrqSenderMain() {
    }

    /** Length of message {@code seq} of EP {@code ep}: 8 to {@link #MAX} bytes, varying. */
    static int length(int ep, int seq) {
        return 8 + (ep * 131 + seq * 37) % (MAX - 7);
    }

    /** Byte {@code k} (at least 8) of message {@code (ep, seq)}; bytes 0-7 are the ep and seq ints. */
    static byte body(int ep, int seq, int k) {
        return (byte) (ep * 29 + seq * 11 + k * 7 + 3);
    }

    /** Runs the sender; see the class comment. */
    public static void main(String[] args) throws Exception {
        io.jdat.shm.ShmTesting.register();
        io.jdat.tcp.TcpTesting.register();
        String iaName = args[0];
        SocketAddress to = args[1].startsWith("/") ? UnixDomainSocketAddress.of(args[1])
                : new InetSocketAddress(InetAddress.getByName(args[1]), 0);
        long qual = Long.parseLong(args[2]);
        int eps = Integer.parseInt(args[3]);
        int perEp = Integer.parseInt(args[4]);
        try (InterfaceAdapter ia = InterfaceAdapter.open(iaName, 64, null); Arena arena = Arena.ofShared()) {
            ProtectionZone pz = ProtectionZone.create(ia);
            MemorySegment buf = arena.allocate((long) eps * WINDOW * MAX, 64);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            Endpoint[] ep = new Endpoint[eps];
            EventDispatcher[] req = new EventDispatcher[eps];
            EventDispatcher[] conn = new EventDispatcher[eps];
            EpAttr attr = io.jdat.testing.DataPath.attr();
            for (int i = 0; i < eps; i++) {
                req[i] = EventDispatcher.create(ia, WINDOW * 4, null, EvdFlags.DTO);
                conn[i] = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
                ep[i] = Endpoint.create(ia, pz, EventDispatcher.create(ia, 8, null, EvdFlags.DTO), req[i], conn[i], attr);
                byte[] pd = ByteBuffer.allocate(4).putInt(i).array();
                ep[i].connect(to, qual, WAIT, pd.length, pd, Qos.BEST_EFFORT, 0);
            }
            DatEvent e = new DatEvent();
            for (int i = 0; i < eps; i++) {
                expect(conn[i], e, EventNumber.CONNECTION_EVENT_ESTABLISHED, "EP " + i);
            }
            System.out.println("CONNECTED " + eps);
            int[] posted = new int[eps];
            int[] done = new int[eps];
            LmrTriplet[] iov = new LmrTriplet[1];
            int finished = 0;
            while (finished < eps) {
                finished = 0;
                for (int i = 0; i < eps; i++) {
                    while (req[i].dequeue(e)) {
                        if (e.status() != DtoCompletionStatus.SUCCESS || e.userCookie() != done[i]) {
                            throw new IllegalStateException("EP " + i + ": send " + done[i] + " completed as " + e);
                        }
                        done[i]++;
                    }
                    while (posted[i] < perEp && posted[i] - done[i] < WINDOW) {
                        int seq = posted[i];
                        long off = ((long) i * WINDOW + seq % WINDOW) * MAX;
                        int len = length(i, seq);
                        buf.set(ValueLayout.JAVA_INT_UNALIGNED, off, i);
                        buf.set(ValueLayout.JAVA_INT_UNALIGNED, off + 4, seq);
                        for (int k = 8; k < len; k++) {
                            buf.set(ValueLayout.JAVA_BYTE, off + k, body(i, seq, k));
                        }
                        iov[0] = lmr.triplet(off, len);
                        ep[i].postSend(1, iov, seq, CompletionFlags.DEFAULT);
                        posted[i]++;
                    }
                    if (done[i] == perEp) {
                        finished++;
                    }
                }
                Thread.onSpinWait();
            }
            System.out.println("SENT " + (long) eps * perEp);
            for (int i = 0; i < eps; i++) {
                expect(conn[i], e, EventNumber.CONNECTION_EVENT_DISCONNECTED, "EP " + i);
            }
            System.out.println("DONE");
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            System.out.println("ERROR " + e);
            System.exit(1);
        }
    }

    private static void expect(EventDispatcher evd, DatEvent e, EventNumber event, String what) {
        if (!evd.waitFor(WAIT, 1, e)) {
            throw new IllegalStateException(what + ": no connection event within 30 s");
        }
        if (e.eventNumber() != event) {
            throw new IllegalStateException(what + ": " + e + " where " + event + " was due");
        }
    }
}
