package io.jdat.conformance;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.assertQueuedSilently;
import static io.jdat.testing.DataPath.checkDto;
import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.next;
import static io.jdat.testing.Images.SENTINEL;
import static io.jdat.testing.Images.pattern;
import static io.jdat.testing.Images.scatterInto;
import static io.jdat.testing.Images.sentinelImage;
import static io.jdat.testing.Images.spread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.LmrTriplet;
import io.jdat.PublicServicePoint;
import io.jdat.conformance.Transports.IaUnderTest;
import io.jdat.testing.ConnFixture.Ep;
import io.jdat.testing.ConnFixture.Node;
import io.jdat.testing.Images;
import io.jdat.testing.Pair;
import io.jdat.testing.Region;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;

/**
 * The data path on every transport ({@link EveryTransport}): messages, RDMA Writes and Reads of 0 B to 1 MiB
 * through gather and scatter lists, mixed requests back to back, an RMR bind in order, reads beyond the ORD,
 * solicited waits, both directions at once and 16 endpoints between two IAs (CONFORMANCE.md §2.1 SND, §2.2
 * RCV, §2.3 RDR, §2.4 RWR, RMB, CON). Every byte is checked, and so is every byte that must stay untouched.
 */
public class DataPathTest {
    /**
     * Message and RDMA sizes: empty, around a word, around the small-copy threshold and shm-test-small's inline
     * size (100), exactly one FPDU of tcp-test-small (82 bytes of Send, 86 of Write payload) and of the tcp
     * loopback MULPDU (65478 / 65482), 64 KiB + 13 (beyond shm's 16 KiB inline: cross-memory attach or
     * fragments), 1 MiB.
     */
    private static final int[] SIZES = {0, 1, 63, 64, 82, 86, 1024, 1025, 4096, 65478, 65482, 65536 + 13, 1 << 20};
    private static final long SPAN = (2L << 20) + 8192;

    private static int seed(IaUnderTest ia, int test, int k) {
        return ia.ia().hashCode() * 31 + test * 1000 + k;
    }

    /**
     * EP attributes with deep queues for the tests that post many requests at once. Messages of at most 4 segments:
     * a device bounds a Send's and a receive's segments by its {@code max_sge} (siw: 6).
     */
    private static EpAttr deep(int dtos) {
        return new EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(dtos).maxRequestDtos(dtos)
                .maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(8).maxRdmaWriteIov(8).maxRdmaReadIn(4)
                .maxRdmaReadOut(4).recvCompletionFlags(CompletionFlags.EVD_THRESHOLD)
                .requestCompletionFlags(CompletionFlags.EVD_THRESHOLD);
    }

    @EveryTransport
    @DisplayName("SND-01 SND-02 SND-05 SND-09 RCV-01 RCV-02 SND-12: messages of 0 B to 1 MiB go from a 3-segment"
            + " gather into a 4-segment scatter list (last segment partial); every byte arrives, nothing else is"
            + " written")
    void sendRecvSizes(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            Region src = Region.on(p.client, SPAN);
            Region dst = Region.on(p.server, SPAN);
            for (int k = 0; k < SIZES.length; k++) {
                int n = SIZES[k];
                byte[] msg = pattern(seed(ia, 1, k), n);
                long[] gather = spread(16, n, 3, 1000, 0);
                scatterInto(src, gather, msg);
                long[] scatter = spread(8 + k, n, 4, 333, 50);
                dst.seg.fill(SENTINEL);
                byte[] img = sentinelImage(SPAN);
                scatterInto(img, scatter, msg);
                p.server.ep.postRecv(4, dst.iov(scatter), 1000 + k, CompletionFlags.DEFAULT);
                if (n == 0) {
                    p.client.ep.postSend(0, null, k, CompletionFlags.DEFAULT);
                } else {
                    p.client.ep.postSend(3, src.iov(gather), k, CompletionFlags.DEFAULT);
                }
                dtoOk(p.client.reqEvd, k, n);
                dtoOk(p.server.recvEvd, 1000 + k, n);
                dst.assertImage(img, ia + ": receive buffer after a message of " + n + " bytes");
            }
            assertEmpty(p.server.reqEvd, "server request EVD");
            assertEmpty(p.client.recvEvd, "client recv EVD");
        }
    }

    @EveryTransport
    @DisplayName("RWR-01 RWR-02 RWR-04 RWR-08: RDMA Writes of 0 B to 1 MiB from a 3-segment local iov land"
            + " gathered in order in the remote range, touch nothing else and produce no event at the target")
    void rdmaWriteSizes(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            Region src = Region.on(p.client, SPAN);
            Region dst = Region.on(p.server, SPAN);
            for (int k = 0; k < SIZES.length; k++) {
                int n = SIZES[k];
                byte[] msg = pattern(seed(ia, 2, k), n);
                long[] gather = spread(16, n, 3, 1000, 0);
                scatterInto(src, gather, msg);
                long at = 100 + 3 * k;
                dst.seg.fill(SENTINEL);
                byte[] img = sentinelImage(SPAN);
                System.arraycopy(msg, 0, img, (int) at, n);
                if (n == 0) {
                    p.client.ep.postRdmaWrite(0, null, k, dst.remote(at, 0), CompletionFlags.DEFAULT);
                } else {
                    p.client.ep.postRdmaWrite(3, src.iov(gather), k, dst.remote(at, n), CompletionFlags.DEFAULT);
                }
                dtoOk(p.client.reqEvd, k, n);
                // A write may complete before it is placed (tcp: once in the socket): a later message tells the target it landed.
                p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 500 + k, CompletionFlags.DEFAULT);
                p.client.ep.postSend(0, null, 600 + k, CompletionFlags.DEFAULT);
                dtoOk(p.client.reqEvd, 600 + k, 0);
                dtoOk(p.server.recvEvd, 500 + k, 0);
                dst.assertImage(img, ia + ": target after a write of " + n + " bytes");
            }
            assertEmpty(p.server.recvEvd, "target recv EVD");
            assertEmpty(p.server.reqEvd, "target request EVD");
        }
    }

    @EveryTransport
    @DisplayName("RDR-02 RDR-03 RDR-04 RDR-06 RDR-19: RDMA Reads of 0 B to 1 MiB into a 3-segment local iov 13 bytes"
            + " longer than the remote range: filled in order, transfered_length = bytes read, the rest untouched")
    void rdmaReadSizes(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            Region src = Region.on(p.server, SPAN);
            Region sink = Region.on(p.client, SPAN);
            for (int k = 0; k < SIZES.length; k++) {
                int n = SIZES[k];
                byte[] msg = pattern(seed(ia, 3, k), n);
                long at = 200 + 5 * k;
                src.put(at, msg, 0, n);
                byte[] srcImg = src.snapshot();
                long[] scatter = spread(16, n, 3, 1000, 13);
                sink.seg.fill(SENTINEL);
                byte[] img = sentinelImage(SPAN);
                scatterInto(img, scatter, msg);
                p.client.ep.postRdmaRead(3, sink.iov(scatter), k, src.remote(at, n), CompletionFlags.DEFAULT);
                dtoOk(p.client.reqEvd, k, n);
                sink.assertImage(img, ia + ": sink after a read of " + n + " bytes");
                src.assertImage(srcImg, ia + ": read source");
            }
            assertEmpty(p.server.recvEvd, "target recv EVD");
            assertEmpty(p.server.reqEvd, "target request EVD");
        }
    }

    @EveryTransport
    @DisplayName("SND-12 RDR-04 RWR-04 SND-05 SND-09: 200 sends, writes and reads posted back to back complete in"
            + " post order with their cookies and lengths; every message, written and read byte is right")
    void mixedBackToBack(IaUnderTest ia) {
        int ops = 200;
        int stride = 5120;
        try (Pair p = new Pair(ia.ia(), deep(256), 512).connect()) {
            Region cSrc = Region.on(p.client, (long) stride * (ops + 1));
            Region cSink = Region.on(p.client, (long) stride * (ops + 1));
            Region sDst = Region.on(p.server, (long) stride * (ops + 1));
            Region sSrc = Region.on(p.server, (long) stride * (ops + 1));
            byte[] sinkImg = sentinelImage(cSink.seg.byteSize());
            byte[] dstImg = sentinelImage(sDst.seg.byteSize());
            int[] len = new int[ops];
            for (int i = 0; i < ops; i++) {
                len[i] = (i * 7919 + 13) % 5000; // 13 .. 4999 bytes, a few zero-ish and many above 1024
                byte[] msg = pattern(seed(ia, 4, i), len[i]);
                long at = (long) i * stride;
                if (i % 3 == 2) {
                    sSrc.put(at, msg, 0, len[i]);
                    System.arraycopy(msg, 0, sinkImg, (int) at, len[i]);
                } else {
                    cSrc.put(at, msg, 0, len[i]);
                    System.arraycopy(msg, 0, dstImg, (int) at, len[i]);
                }
                if (i % 3 == 0) {
                    p.server.ep.postRecv(1, sDst.iov(at, stride), 10_000 + i, CompletionFlags.DEFAULT);
                }
            }
            for (int i = 0; i < ops; i++) {
                long at = (long) i * stride;
                switch (i % 3) {
                    case 0 -> p.client.ep.postSend(1, cSrc.iov(at, len[i]), i, CompletionFlags.DEFAULT);
                    case 1 -> p.client.ep.postRdmaWrite(1, cSrc.iov(at, len[i]), i, sDst.remote(at, len[i]),
                            CompletionFlags.DEFAULT);
                    default -> p.client.ep.postRdmaRead(1, cSink.iov(at, len[i]), i, sSrc.remote(at, len[i]),
                            CompletionFlags.DEFAULT);
                }
            }
            // A last read: when it completes, the target has taken every earlier write.
            long last = (long) ops * stride;
            p.client.ep.postRdmaRead(1, cSink.iov(last, 8), ops, sSrc.remote(last, 8), CompletionFlags.DEFAULT);
            System.arraycopy(sentinelImage(8), 0, sinkImg, (int) last, 8);
            for (int i = 0; i < ops; i++) {
                dtoOk(p.client.reqEvd, i, len[i]);
            }
            dtoOk(p.client.reqEvd, ops, 8);
            for (int i = 0; i < ops; i += 3) {
                dtoOk(p.server.recvEvd, 10_000 + i, len[i]);
            }
            cSink.assertImage(sinkImg, ia + ": read sinks");
            sDst.assertImage(dstImg, ia + ": receive buffers and write targets");
            assertEmpty(p.client.reqEvd, "one completion per request");
            assertEmpty(p.server.recvEvd, "one completion per message");
        }
    }

    @EveryTransport
    @DisplayName("RMB-02 RMB-04 RMB-07 RWR-09: a bind posted behind an RDMA Read completes after it, in order; the"
            + " context sent right behind the bind works for the peer's Write and Read inside the window; a Write"
            + " crossing the window's end is refused: both EPs BROKEN, nothing outside the window written")
    void rmrBindInOrder(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), deep(64), 64).connect()) {
            Region sr = Region.on(p.server, 16384);
            Region cr = Region.on(p.client, 16384);
            byte[] peerData = pattern(seed(ia, 11, 0), 512);
            cr.put(0, peerData, 0, 512);
            // The client speaks first: without an RTR (revision 1) the server's Read would wait for its first
            // FPDU (RFC 5044 §7.1.2, TcpResponderFirstFpduTest).
            p.server.ep.postRecv(1, sr.iov(12288, 64), 20, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, cr.iov(12288, 4), 21, CompletionFlags.DEFAULT);
            dtoOk(p.server.recvEvd, 20, 4);
            dtoOk(p.client.reqEvd, 21, 4);
            io.jdat.Rmr rmr = io.jdat.Rmr.create(p.server.pz);
            io.jdat.LmrTriplet window = sr.lmr.triplet(4096, 1024);
            p.server.ep.postRdmaRead(1, sr.iov(0, 512), 1, cr.remote(0, 512), CompletionFlags.DEFAULT);
            int ctx = rmr.bind(window, io.jdat.MemPriv.REMOTE_WRITE | io.jdat.MemPriv.REMOTE_READ, p.server.ep, 2,
                    CompletionFlags.DEFAULT);
            sr.seg.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 8192, ctx);
            p.client.ep.postRecv(1, cr.iov(8192, 64), 3, CompletionFlags.DEFAULT);
            p.server.ep.postSend(1, sr.iov(8192, 4), 4, CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 1, 512);
            io.jdat.testing.DataPath.bind(p.server.reqEvd, DtoCompletionStatus.SUCCESS, 2);
            dtoOk(p.server.reqEvd, 4, 4);
            dtoOk(p.client.recvEvd, 3, 4);
            int got = cr.seg.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 8192);
            assertEquals(ctx, got);
            byte[] before = sr.snapshot();
            byte[] w = pattern(seed(ia, 11, 1), 100);
            cr.put(1024, w, 0, 100);
            io.jdat.RmrTriplet inside = new io.jdat.RmrTriplet(got, window.virtualAddress() + 924, 100);
            p.client.ep.postRdmaWrite(1, cr.iov(1024, 100), 5, inside, CompletionFlags.DEFAULT);
            p.client.ep.postRdmaRead(1, cr.iov(2048, 100), 6, inside, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 5, 100);
            dtoOk(p.client.reqEvd, 6, 100);
            System.arraycopy(w, 0, before, 4096 + 924, 100);
            sr.assertImage(before, ia + ": target after a write through the RMR");
            Images.assertImageEquals(cr.seg.asSlice(2048, 100), w, "read back through the RMR");
            p.client.ep.postRdmaWrite(1, cr.iov(1024, 100), 7,
                    new io.jdat.RmrTriplet(got, window.virtualAddress() + 1000, 100), CompletionFlags.DEFAULT);
            io.jdat.testing.DataPath.expectBroken(p);
            sr.assertImage(before, ia + ": target after a refused write");
        }
    }

    @EveryTransport
    @DisplayName("RDR-04 RDR-16 RDR-19 CON-23: with max_rdma_read_out 1, 16 reads posted at once (up to 70 000 bytes,"
            + " many FPDUs) wait for the ORD slot and all complete in order with the right data")
    void readsBeyondOrd(IaUnderTest ia) {
        EpAttr attr = deep(64).maxRdmaReadOut(1);
        try (Pair p = new Pair(ia.ia(), attr, 64).connect()) {
            assertEquals(1, p.client.ep.query(io.jdat.EpParam.FIELD_ALL).epAttr().maxRdmaReadOut());
            int stride = 70_016;
            Region src = Region.on(p.server, 16L * stride);
            Region sink = Region.on(p.client, 16L * stride);
            byte[] img = sentinelImage(sink.seg.byteSize());
            int[] len = new int[16];
            for (int i = 0; i < 16; i++) {
                len[i] = i % 2 == 0 ? 70_000 - i : 100 + i;
                byte[] msg = pattern(seed(ia, 5, i), len[i]);
                src.put((long) i * stride, msg, 0, len[i]);
                System.arraycopy(msg, 0, img, i * stride, len[i]);
            }
            for (int i = 0; i < 16; i++) {
                p.client.ep.postRdmaRead(1, sink.iov((long) i * stride, len[i]), 100 + i,
                        src.remote((long) i * stride, len[i]), CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < 16; i++) {
                dtoOk(p.client.reqEvd, 100 + i, len[i]);
            }
            sink.assertImage(img, ia + ": read sinks");
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
            assertEquals(EpState.CONNECTED, p.server.ep.getStatus().epState());
        }
    }

    @EveryTransport
    @DisplayName("SND-10 RCV-04: with recv_completion_flags SOLICITED_WAIT, unsolicited messages are queued without"
            + " waking the waiter; a send with SOLICITED_WAIT arrives as a solicited event and wakes it")
    void solicitedWait(IaUnderTest ia) {
        EpAttr attr = deep(64).recvCompletionFlags(CompletionFlags.SOLICITED_WAIT);
        try (Pair p = new Pair(ia.ia(), attr, 64).connect()) {
            byte[] msg = pattern(seed(ia, 6, 0), 300);
            p.client.buf.asSlice(0, 300).copyFrom(java.lang.foreign.MemorySegment.ofArray(msg));
            for (int i = 1; i <= 3; i++) {
                p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(1024L * i, 1024)}, i,
                        CompletionFlags.DEFAULT);
            }
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 100)}, 11, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(100, 100)}, 12, CompletionFlags.DEFAULT);
            // A read completes after the target processed everything before it: both receives are queued now.
            p.client.ep.postRdmaRead(1, new LmrTriplet[] {p.client.lmr.triplet(8192, 8)}, 13,
                    p.server.lmr.remoteTriplet(60_000, 8), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 11, 100);
            dtoOk(p.client.reqEvd, 12, 100);
            dtoOk(p.client.reqEvd, 13, 8);
            assertQueuedSilently(p.server.recvEvd, 2);
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(200, 100)}, 14,
                    CompletionFlags.SOLICITED_WAIT);
            dtoOk(p.client.reqEvd, 14, 100);
            DatEvent first = next(p.server.recvEvd);
            checkDto(first, DtoCompletionStatus.SUCCESS, 1);
            assertEquals(2, first.nmore(), "both unsolicited receives are queued before the solicited one");
            checkDto(dequeued(p.server.recvEvd), DtoCompletionStatus.SUCCESS, 2);
            DatEvent third = dequeued(p.server.recvEvd);
            checkDto(third, DtoCompletionStatus.SUCCESS, 3);
            assertEquals(100, third.transferredLength());
            for (int i = 1; i <= 3; i++) {
                Images.assertImageEquals(p.server.buf.asSlice(1024L * i, 100),
                        java.util.Arrays.copyOfRange(msg, 100 * (i - 1), 100 * i), "message " + i);
            }
        }
    }

    @EveryTransport
    @DisplayName("SND-09 SND-12 RCV-02: client and server send 2000 messages each to each other at once, from two"
            + " threads; every message arrives in order, whole and exact")
    void bothDirectionsAtOnce(IaUnderTest ia) throws Exception {
        int n = 2000;
        int stride = 1536;
        try (Pair p = new Pair(ia.ia(), deep(2048), 4096).connect()) {
            Region[] src = {Region.on(p.client, (long) n * stride), Region.on(p.server, (long) n * stride)};
            Region[] dst = {Region.on(p.client, (long) n * stride), Region.on(p.server, (long) n * stride)};
            Pair.Side[] sides = {p.client, p.server};
            int[][] len = new int[2][n];
            byte[][] img = new byte[2][];
            for (int s = 0; s < 2; s++) {
                img[s] = sentinelImage(dst[1 - s].seg.byteSize());
                for (int i = 0; i < n; i++) {
                    len[s][i] = 1 + (i * 613 + s * 101) % stride;
                    byte[] msg = pattern(seed(ia, 7, s * n + i), len[s][i]);
                    src[s].put((long) i * stride, msg, 0, len[s][i]);
                    System.arraycopy(msg, 0, img[s], i * stride, len[s][i]);
                }
            }
            for (int s = 0; s < 2; s++) {
                for (int i = 0; i < n; i++) {
                    sides[s].ep.postRecv(1, dst[s].iov((long) i * stride, stride), i, CompletionFlags.DEFAULT);
                }
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                int me = s;
                Thread t = new Thread(() -> {
                    try {
                        Pair.Side side = sides[me];
                        for (int i = 0; i < n; i++) {
                            side.ep.postSend(1, src[me].iov((long) i * stride, len[me][i]), i, CompletionFlags.DEFAULT);
                        }
                        for (int i = 0; i < n; i++) {
                            dtoOk(side.reqEvd, i, len[me][i]);
                        }
                        for (int i = 0; i < n; i++) {
                            dtoOk(side.recvEvd, i, len[1 - me][i]);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "data-path-" + (s == 0 ? "client" : "server"));
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                t.join(60_000);
                assertFalse(t.isAlive(), t.getName() + " still running");
            }
            if (failure.get() != null) {
                throw new AssertionError(ia + ": " + failure.get(), failure.get());
            }
            dst[1].assertImage(img[0], ia + ": client -> server messages");
            dst[0].assertImage(img[1], ia + ": server -> client messages");
        }
    }

    @EveryTransport
    @DisplayName("CON-02 CON-04 CRQ-01 SND-09 RWR-02 RDR-02: 16 EPs connected at once between the same two IAs each"
            + " carry their own traffic (sends both ways, a write and a read), none mixed up with another's")
    void sixteenEndpoints(IaUnderTest ia) {
        int eps = 16;
        int stride = 64 * 1024;
        try (Node client = new Node(ia.ia()); Node server = new Node(ia.ia())) {
            PublicServicePoint psp = server.listenAny();
            Ep[] c = new Ep[eps];
            Ep[] s = new Ep[eps];
            for (int i = 0; i < eps; i++) {
                c[i] = client.ep(deep(64), 128);
                s[i] = server.ep(deep(64), 128);
            }
            for (int i = 0; i < eps; i++) {
                c[i].connect(server, psp.connQual(), new byte[] {(byte) i});
            }
            boolean[] seen = new boolean[eps];
            for (int k = 0; k < eps; k++) {
                ConnectionRequest cr = server.request();
                byte[] pd = cr.query(CrParam.FIELD_ALL).privateData();
                assertEquals(1, pd.length);
                int i = pd[0];
                assertFalse(seen[i], "request " + i + " twice");
                seen[i] = true;
                cr.accept(s[i].ep, 1, new byte[] {(byte) (100 + i)});
            }
            for (int i = 0; i < eps; i++) {
                s[i].expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                DatEvent est = c[i].expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertEquals(100 + i, est.privateData()[0], "accept data reaches its own requester");
            }
            Region cr = Region.on(client, (long) eps * stride);
            Region sr = Region.on(server, (long) eps * stride);
            byte[] cImg = sentinelImage(cr.seg.byteSize());
            byte[] sImg = sentinelImage(sr.seg.byteSize());
            int msgs = 8;
            // Per EP i: [0, 8 KiB) messages to the peer, [8, 16) received messages, [16, 32) write target /
            // read source, [32, 48) read sink.
            for (int i = 0; i < eps; i++) {
                long base = (long) i * stride;
                for (int m = 0; m < msgs; m++) {
                    byte[] up = pattern(seed(ia, 8, i * 100 + m), 1000);
                    byte[] down = pattern(seed(ia, 9, i * 100 + m), 1000);
                    cr.put(base + m * 1024L, up, 0, 1000);
                    sr.put(base + m * 1024L, down, 0, 1000);
                    System.arraycopy(up, 0, cImg, (int) (base + m * 1024L), 1000);
                    System.arraycopy(down, 0, sImg, (int) (base + m * 1024L), 1000);
                    System.arraycopy(up, 0, sImg, (int) (base + 8192 + m * 1024L), 1000);
                    System.arraycopy(down, 0, cImg, (int) (base + 8192 + m * 1024L), 1000);
                    s[i].ep.postRecv(1, sr.iov(base + 8192 + m * 1024L, 1024), m, CompletionFlags.DEFAULT);
                    c[i].ep.postRecv(1, cr.iov(base + 8192 + m * 1024L, 1024), m, CompletionFlags.DEFAULT);
                }
                byte[] w = pattern(seed(ia, 10, i), 16384);
                cr.put(base + 16384, w, 0, 16384);
                System.arraycopy(w, 0, cImg, (int) base + 16384, 16384);
                System.arraycopy(w, 0, sImg, (int) base + 16384, 16384);
                System.arraycopy(w, 0, cImg, (int) base + 32768, 16384);
            }
            for (int i = 0; i < eps; i++) {
                long base = (long) i * stride;
                for (int m = 0; m < msgs; m++) {
                    c[i].ep.postSend(1, cr.iov(base + m * 1024L, 1000), m, CompletionFlags.DEFAULT);
                    s[i].ep.postSend(1, sr.iov(base + m * 1024L, 1000), m, CompletionFlags.DEFAULT);
                }
                c[i].ep.postRdmaWrite(1, cr.iov(base + 16384, 16384), 50, sr.remote(base + 16384, 16384),
                        CompletionFlags.DEFAULT);
                c[i].ep.postRdmaRead(1, cr.iov(base + 32768, 16384), 51, sr.remote(base + 16384, 16384),
                        CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < eps; i++) {
                for (int m = 0; m < msgs; m++) {
                    dtoOk(c[i].reqEvd, m, 1000);
                    dtoOk(s[i].reqEvd, m, 1000);
                    dtoOk(c[i].recvEvd, m, 1000);
                    dtoOk(s[i].recvEvd, m, 1000);
                }
                dtoOk(c[i].reqEvd, 50, 16384);
                dtoOk(c[i].reqEvd, 51, 16384);
            }
            cr.assertImage(cImg, ia + ": client memory");
            sr.assertImage(sImg, ia + ": server memory");
            for (int i = 0; i < eps; i++) {
                assertEmpty(c[i].reqEvd, "client EP " + i);
                assertEmpty(s[i].recvEvd, "server EP " + i);
            }
        }
    }
}
