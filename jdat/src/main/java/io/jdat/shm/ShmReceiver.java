package io.jdat.shm;

import io.jdat.DtoCompletionStatus;
import io.jdat.MemPriv;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The receive path of one {@code shm} connection: handles the peer's records from the incoming ring, serves
 * the peer's RDMA Reads, takes staged RDMA Read data for this side's reads, and watches how the peer ends.
 * All state is guarded by the connection's {@code rxLock}.
 *
 * <p>The memory's owner moves the bytes, after its core's checks ({@link ChannelSink#resolveRemote}): a Send
 * is placed by the receiver, an RDMA Write by the target (from the ring, or by reading the requester's memory
 * with cross-memory attach), an RDMA Read by the target (writing the requester's memory, or through the
 * staging area). A record whose handling must wait (no receive buffer posted, staging area busy) stays at the
 * head of the ring, with everything behind it; a Send that waits longer than {@link #RNR_TIMEOUT_MILLIS} fails
 * with {@code DAT_DTO_ERR_RECEIVER_NOT_READY} at the sender and the connection breaks.
 *
 * <p>Everything the peer wrote is hostile: each field is read once and checked (types, lengths, fragment
 * order, list sizes) before use. A violation breaks the connection; nothing is written outside registered
 * memory that passed the checks, this process's ring and staging slots, or the peer's own process.
 */
final class ShmReceiver implements RecordHandler {
    /** Receiver-not-ready limit (system property {@code jdat.shm.rnrTimeoutMillis}). */
    static final long RNR_TIMEOUT_MILLIS = Long.getLong("jdat.shm.rnrTimeoutMillis", 2000L);
    private static final long RNR_TIMEOUT_NANOS = RNR_TIMEOUT_MILLIS * 1_000_000L;
    /** Most entries a cross-memory record may list. */
    static final int MAX_IOV = 1024;
    private static final int BATCH = 64;

    private final ShmConnection conn;
    private final ShmRing.Consumer in;
    private final ShmRing.Producer out;
    private final MemorySegment myBlock;
    private final MemorySegment peerBlock;
    private final MemorySegment myStaging;
    private final MemorySegment peerStaging;
    private final int stagingSize;
    private CrossMemory cm;
    private final RemoteRegion region = new RemoteRegion();
    /** Records served by mapping the peer's {@link ShmMemory} (tests read it to see the path taken). */
    static final java.util.concurrent.atomic.AtomicLong SHARED_RECORDS = new java.util.concurrent.atomic.AtomicLong();
    // The list of the record being handled (parseList): this side's mapping of each piece (shared) or null,
    // the offset in it (shared) or the address in the requester's process (cross-memory), the length.
    private final MemorySegment[] listSeg = new MemorySegment[MAX_IOV];
    private final long[] listAt = new long[MAX_IOV];
    private final long[] listLen = new long[MAX_IOV];

    // The peer's ShmMemory files this side mapped: a small cache of (id, mapping), replaced round-robin.
    private static final int MAPPINGS = 16;
    private java.nio.file.Path peerMemoryDir;
    private java.lang.foreign.Arena mapArena;
    private final long[] mappedIds = new long[MAPPINGS];
    private final MemorySegment[] mapped = new MemorySegment[MAPPINGS];
    /** Every peer file this side mapped (evicted ones too: their mappings live until the arena closes). */
    private final java.util.List<MappedFile> mappedFiles = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int mappedNext;

    private volatile boolean stopped;
    /** A record waits for a receive buffer since this time (0: none waits). Read by recvPosted. */
    private volatile long rnrSince;
    private boolean notAccepting;

    // A Send arriving in fragments.
    private RecvBuffer fragBuffer;
    private long fragTotal;
    private long fragNext;
    private boolean fragTooLong;

    // An RDMA Write arriving in fragments.
    private boolean writeActive;
    private int writeContext;
    private long writeAddress;
    private long writeTotal;
    private long writeNext;

    // An RDMA Read served through the staging area.
    private int readState;
    private static final int READ_NONE = 0;
    private static final int READ_SERVING = 1;
    private static final int READ_DONE = 2;
    private int readContext;
    private long readAddress;
    private long readTotal;
    private long readDone;
    /** The last chunk this side staged, and the last chunk of the peer's that it took. */
    private long stagedSeq;
    private long takenSeq;
    /** The peer took or staged a chunk, or this side did: worth a doorbell check. */
    private boolean staged;

    ShmReceiver(ShmConnection conn, ShmRing.Consumer in, ShmRing.Producer out, MemorySegment myStaging,
            MemorySegment peerStaging, boolean crossMemory) {
        this.conn = conn;
        this.in = in;
        this.out = out;
        this.myBlock = conn.myBlock;
        this.peerBlock = conn.peerBlock;
        this.myStaging = myStaging;
        this.peerStaging = peerStaging;
        this.stagingSize = (int) myStaging.byteSize();
        this.cm = crossMemory ? CrossMemory.available().orElse(null) : null;
    }

    boolean stalled() {
        return rnrSince != 0;
    }

    /** Where the peer's {@link ShmMemory} files are (null: not mappable), and the arena to map them in. */
    void setPeerMemory(java.nio.file.Path dir, java.lang.foreign.Arena arena) {
        peerMemoryDir = dir;
        mapArena = arena;
    }

    /** One receive pass ({@code rxLock} held). */
    boolean poll() {
        if (stopped) {
            return false;
        }
        ChannelSink sink = conn.sink;
        if (sink == null) {
            return false;
        }
        // acquire: the peer's close state is stored after its last record, so reading it first and the ring
        // afterwards means that a ring found empty below holds nothing the peer sent before it ended
        int peerState = (int) ConnectionLayout.INT.getAcquire(peerBlock, (long) ConnectionLayout.CLOSE_STATE);
        boolean progress = false;
        try {
            // The records the last pass consumed: their position rode on a record of ours to the peer (an
            // answer), or it is stored now, one pass late, so that a ping-pong stores no head (issue 18).
            boolean published = in.publish();
            staged = false;
            progress = takeStagedChunk();
            notAccepting = false;
            int n = in.read(this, BATCH);
            progress |= n > 0;
            if (stopped) {
                in.publish(); // what was handled before the failure completes at the peer (it reads it after)
                return true;
            }
            if (published || staged) {
                conn.notifyPeer(); // the peer waits for completions, staging room or data
            }
            long since = rnrSince;
            if (since != 0 && System.nanoTime() - since > RNR_TIMEOUT_NANOS) {
                fail(ConnectionLayout.ERROR_RECEIVER_NOT_READY, "no receive buffer for "
                        + RNR_TIMEOUT_MILLIS + " ms");
                return true;
            }
            if (peerState != ConnectionLayout.OPEN && (in.available() == 0 || since != 0
                    || readState != READ_NONE || notAccepting)) {
                peerEnded(peerState);
                return true;
            }
        } catch (RingCorruptException e) {
            peerCorrupt(e.getMessage());
            return true;
        } catch (IllegalStateException | IndexOutOfBoundsException | InternalError e) {
            // the mapping or registered memory went away under us, or a truncated file (SIGBUS)
            fail(ConnectionLayout.ERROR_TRANSPORT, "receive failed: " + e);
            return true;
        }
        return progress;
    }

    // ------------------------------------------------------------------ records

    @Override
    public boolean onRecord(int type, MemorySegment seg, long off, int length) {
        if (type < 1 || type > Records.MAX_TYPE) {
            return protocol("record type " + type);
        }
        if (length < Records.headerLength(type)) {
            return protocol("record of type " + type + " and " + length + " bytes: shorter than its header");
        }
        ChannelSink sink = conn.sink;
        return switch (type) {
            case Records.SEND_INLINE -> sendInline(sink, seg, off, length);
            case Records.SEND_FRAG -> sendFragment(sink, seg, off, length);
            case Records.SEND_XMEM -> sendList(sink, seg, off, length, false);
            case Records.WRITE_INLINE -> writeInline(sink, seg, off, length);
            case Records.WRITE_FRAG -> writeFragment(sink, seg, off, length);
            case Records.WRITE_XMEM -> writeList(sink, seg, off, length, false);
            case Records.READ -> read(sink, seg, off, length, false);
            case Records.SEND_SHARED -> counted(sendList(sink, seg, off, length, true));
            case Records.WRITE_SHARED -> counted(writeList(sink, seg, off, length, true));
            case Records.READ_SHARED -> counted(read(sink, seg, off, length, true));
            default -> protocol("record type " + type);
        };
    }

    private static boolean counted(boolean handled) {
        if (handled) {
            SHARED_RECORDS.incrementAndGet();
        }
        return handled;
    }

    /**
     * Completes a receive, after this side's requests that the peer handled before it sent this message: the
     * peer published its consumer position past them (release) before it wrote this record, whose length this
     * side read with an acquire load, so {@link ShmTransmitter#completeHandled} sees them as handled. Without
     * it their completions could come after this receive's when another thread (the progress thread, or a pass
     * of another consumer) reads the record and the consumer reposts on the receive: a request queue of depth 2
     * was found full (the scale benchmark's {@code max_request_dtos 2 outstanding}).
     */
    private void completeRecv(ChannelSink sink, RecvBuffer b, long len, boolean solicited) {
        conn.tx.completeHandled();
        sink.completeRecv(b, len, solicited);
    }

    /** Takes a receive buffer for a new message; null (and the record waits) if none is posted. */
    private RecvBuffer take(ChannelSink sink) {
        RecvBuffer b = sink.takeRecv();
        if (b == null) {
            if (!sink.isAccepting()) {
                notAccepting = true;
            } else if (rnrSince == 0) {
                rnrSince = System.nanoTime() | 1;
            }
            return null;
        }
        rnrSince = 0;
        return b;
    }

    /**
     * A Send of {@code len} bytes arrived for the smaller buffer {@code b}: the receive completes with
     * {@code DAT_DTO_ERR_LOCAL_LENGTH} (RCV-05) and the connection breaks with a remote length error.
     */
    private boolean sendTooLong(ChannelSink sink, RecvBuffer b, long len, boolean solicited) {
        completeRecv(sink, b, len, solicited);
        return fail(ConnectionLayout.ERROR_REMOTE_LENGTH, "Send of " + len + " bytes, buffer of " + b.totalLength());
    }

    private boolean sendInline(ChannelSink sink, MemorySegment seg, long off, int length) {
        int flags = seg.get(ValueLayout.JAVA_INT, off + Records.FLAGS_OFFSET);
        if (fragBuffer != null) {
            return protocol("Send inside a fragmented Send");
        }
        RecvBuffer b = take(sink);
        if (b == null) {
            return false;
        }
        int len = length - Records.SEND_INLINE_HEADER;
        boolean solicited = (flags & Records.SOLICITED) != 0;
        if (len > b.totalLength()) {
            return sendTooLong(sink, b, len, solicited);
        }
        b.scatter(0, seg, off + Records.SEND_INLINE_HEADER, len);
        completeRecv(sink, b, len, solicited);
        return true;
    }

    private boolean sendFragment(ChannelSink sink, MemorySegment seg, long off, int length) {
        int flags = seg.get(ValueLayout.JAVA_INT, off + Records.FLAGS_OFFSET);
        long total = seg.get(ValueLayout.JAVA_LONG, off + Records.SEND_TOTAL_OFFSET);
        long offset = seg.get(ValueLayout.JAVA_LONG, off + Records.SEND_FRAG_START_OFFSET);
        int n = length - Records.SEND_FRAG_HEADER;
        boolean last = (flags & Records.LAST) != 0;
        if (total < 0 || total > ShmTransport.MAX_TRANSFER || offset < 0 || offset + n > total
                || last != (offset + n == total) || n == 0) {
            return protocol("Send fragment [" + offset + ", +" + n + ") of " + total);
        }
        if (offset == 0) {
            if (fragBuffer != null) {
                return protocol("new Send inside a fragmented Send");
            }
            RecvBuffer b = take(sink);
            if (b == null) {
                return false;
            }
            fragBuffer = b;
            fragTotal = total;
            fragNext = 0;
            fragTooLong = total > b.totalLength();
        } else if (fragBuffer == null || offset != fragNext || total != fragTotal) {
            return protocol("Send fragment at " + offset + ", expected " + fragNext);
        }
        if (!fragTooLong) {
            fragBuffer.scatter(offset, seg, off + Records.SEND_FRAG_HEADER, n);
        }
        fragNext = offset + n;
        if (last) {
            RecvBuffer b = fragBuffer;
            fragBuffer = null;
            boolean solicited = (flags & Records.SOLICITED) != 0;
            if (fragTooLong) {
                return sendTooLong(sink, b, total, solicited);
            }
            completeRecv(sink, b, total, solicited);
        }
        return true;
    }

    private boolean writeInline(ChannelSink sink, MemorySegment seg, long off, int length) {
        int ctx = seg.get(ValueLayout.JAVA_INT, off + Records.CONTEXT_OFFSET);
        long addr = seg.get(ValueLayout.JAVA_LONG, off + Records.ADDRESS_OFFSET);
        int len = length - Records.WRITE_INLINE_HEADER;
        if (!resolve(sink, ctx, addr, len, MemPriv.REMOTE_WRITE)) {
            return false;
        }
        try {
            if (len > 0) {
                MemorySegment.copy(seg, off + Records.WRITE_INLINE_HEADER, region.segment(), region.offset(), len);
            }
        } finally {
            sink.placed(); // the region's hold (ChannelSink.resolveRemote)
        }
        return true;
    }

    private boolean writeFragment(ChannelSink sink, MemorySegment seg, long off, int length) {
        int ctx = seg.get(ValueLayout.JAVA_INT, off + Records.CONTEXT_OFFSET);
        long addr = seg.get(ValueLayout.JAVA_LONG, off + Records.ADDRESS_OFFSET);
        long total = seg.get(ValueLayout.JAVA_LONG, off + Records.TOTAL_OFFSET);
        long offset = seg.get(ValueLayout.JAVA_LONG, off + Records.WRITE_FRAG_START_OFFSET);
        int n = length - Records.WRITE_FRAG_HEADER;
        if (total <= 0 || total > ShmTransport.MAX_TRANSFER || offset < 0 || n == 0 || offset + n > total) {
            return protocol("RDMA Write fragment [" + offset + ", +" + n + ") of " + total);
        }
        if (offset == 0) {
            if (writeActive) {
                return protocol("new RDMA Write inside a fragmented one");
            }
            // the whole target range is checked before the first byte moves
            if (!resolve(sink, ctx, addr, total, MemPriv.REMOTE_WRITE)) {
                return false;
            }
            writeActive = true;
            writeContext = ctx;
            writeAddress = addr;
            writeTotal = total;
            writeNext = 0;
        } else if (!writeActive || offset != writeNext || total != writeTotal || ctx != writeContext
                || addr != writeAddress) {
            return protocol("RDMA Write fragment at " + offset + ", expected " + writeNext);
        } else if (!resolve(sink, ctx, addr + offset, n, MemPriv.REMOTE_WRITE)) {
            // checked again for each later fragment: a hold never spans the wait for the peer's next record, and
            // a region withdrawn in between refuses the rest of the Write (LMF-04: in flight, it may fail)
            return false;
        }
        try {
            MemorySegment.copy(seg, off + Records.WRITE_FRAG_HEADER, region.segment(), region.offset(), n);
        } finally {
            sink.placed(); // the region's hold (ChannelSink.resolveRemote)
        }
        writeNext = offset + n;
        if (writeNext == writeTotal) {
            writeActive = false;
        }
        return true;
    }

    // ------------------------------------------------------------------ lists: cross-memory attach, mappings

    /**
     * A Send whose bytes the receiver copies from the sender's memory: with cross-memory attach
     * ({@code SEND_XMEM}), or through its mapping of the sender's {@link ShmMemory} ({@code SEND_SHARED}).
     */
    private boolean sendList(ChannelSink sink, MemorySegment seg, long off, int length, boolean shared) {
        int flags = seg.get(ValueLayout.JAVA_INT, off + Records.FLAGS_OFFSET);
        int n = seg.get(ValueLayout.JAVA_INT, off + Records.COUNT_OFFSET);
        long total = seg.get(ValueLayout.JAVA_LONG, off + Records.SEND_TOTAL_OFFSET);
        String bad = parseList(seg, off + Records.SEND_XMEM_HEADER, length - Records.SEND_XMEM_HEADER, n, total,
                shared);
        if (bad != null || fragBuffer != null) {
            return protocol("Send record: " + (bad != null ? bad : "inside a fragmented Send"));
        }
        RecvBuffer b = take(sink);
        if (b == null) {
            return false;
        }
        boolean solicited = (flags & Records.SOLICITED) != 0;
        if (total > b.totalLength()) {
            return sendTooLong(sink, b, total, solicited);
        }
        try {
            if (shared) {
                long at = 0;
                for (int i = 0; i < n; i++) {
                    b.scatter(at, listSeg[i], listAt[i], listLen[i]);
                    at += listLen[i];
                }
            } else {
                readIntoBuffer(n, b);
            }
        } catch (RuntimeException e) {
            // the peer's memory could not be read (the peer died, or named memory it does not have): the buffer
            // stays taken and the core flushes it when the connection closes, as a message cut short
            return fail(ConnectionLayout.ERROR_TRANSPORT, "copying a Send failed: " + e.getMessage());
        }
        completeRecv(sink, b, total, solicited);
        return true;
    }

    /** Cross-memory reads of the list's {@code n} remote pieces into a receive buffer's segments, in order. */
    private void readIntoBuffer(int n, RecvBuffer b) {
        int r = 0;
        long rDone = 0;
        for (int l = 0; l < b.count() && r < n; l++) {
            long lLen = b.length(l);
            long lDone = 0;
            while (lDone < lLen && r < n) {
                long k = Math.min(lLen - lDone, listLen[r] - rDone);
                if (k > 0) {
                    cm.read(conn.peerPid, listAt[r] + rDone, b.segment(l), b.offset(l) + lDone, k);
                }
                lDone += k;
                rDone += k;
                if (rDone == listLen[r]) {
                    r++;
                    rDone = 0;
                }
            }
        }
    }

    /** An RDMA Write whose bytes the target copies from the requester's memory (cross-memory or mapping). */
    private boolean writeList(ChannelSink sink, MemorySegment seg, long off, int length, boolean shared) {
        int ctx = seg.get(ValueLayout.JAVA_INT, off + Records.CONTEXT_OFFSET);
        int n = seg.get(ValueLayout.JAVA_INT, off + Records.COUNT_OFFSET);
        long addr = seg.get(ValueLayout.JAVA_LONG, off + Records.ADDRESS_OFFSET);
        long total = seg.get(ValueLayout.JAVA_LONG, off + Records.TOTAL_OFFSET);
        String bad = parseList(seg, off + Records.WRITE_XMEM_HEADER, length - Records.WRITE_XMEM_HEADER, n, total,
                shared);
        if (bad != null || writeActive) {
            return protocol("RDMA Write record: " + (bad != null ? bad : "inside a fragmented one"));
        }
        if (!resolve(sink, ctx, addr, total, MemPriv.REMOTE_WRITE)) {
            return false;
        }
        try {
            long at = region.offset();
            for (int i = 0; i < n; i++) {
                if (shared) {
                    MemorySegment.copy(listSeg[i], listAt[i], region.segment(), at, listLen[i]);
                } else if (listLen[i] > 0) {
                    cm.read(conn.peerPid, listAt[i], region.segment(), at, listLen[i]);
                }
                at += listLen[i];
            }
        } catch (RuntimeException e) {
            return fail(ConnectionLayout.ERROR_TRANSPORT, "copying an RDMA Write failed: " + e.getMessage());
        } finally {
            sink.placed(); // the region's hold (ChannelSink.resolveRemote)
        }
        return true;
    }

    /**
     * An RDMA Read: the target writes the requester's destination list (cross-memory or mapping), or, for a
     * {@code READ} record with an empty list, passes the bytes through its staging area.
     */
    private boolean read(ChannelSink sink, MemorySegment seg, long off, int length, boolean shared) {
        if (readState != READ_NONE) {
            // the record being served through the staging area, offered again
            serveStaged();
            if (readState == READ_DONE) {
                readState = READ_NONE;
                return true;
            }
            return false;
        }
        int ctx = seg.get(ValueLayout.JAVA_INT, off + Records.CONTEXT_OFFSET);
        int n = seg.get(ValueLayout.JAVA_INT, off + Records.COUNT_OFFSET);
        long addr = seg.get(ValueLayout.JAVA_LONG, off + Records.ADDRESS_OFFSET);
        long total = seg.get(ValueLayout.JAVA_LONG, off + Records.TOTAL_OFFSET);
        if (total < 0 || total > ShmTransport.MAX_TRANSFER) {
            return protocol("RDMA Read of " + total + " bytes");
        }
        boolean staging = n == 0 && !shared;
        if (staging) {
            if (length != Records.READ_HEADER) {
                return protocol("RDMA Read record of " + length + " bytes");
            }
        } else {
            // the destination list may be longer than the read: only its first total bytes are written
            String bad = parseList(seg, off + Records.READ_HEADER, length - Records.READ_HEADER, n, -1, shared);
            if (bad != null) {
                return protocol("RDMA Read record: " + bad);
            }
            long room = 0;
            for (int i = 0; i < n; i++) {
                room += listLen[i];
            }
            if (room < total) {
                return protocol("RDMA Read of " + total + " bytes into " + room);
            }
        }
        if (!resolve(sink, ctx, addr, total, MemPriv.REMOTE_READ)) {
            return false;
        }
        if (staging) {
            if (total == 0) {
                return true;
            }
            readState = READ_SERVING;
            readContext = ctx;
            readAddress = addr;
            readTotal = total;
            readDone = 0;
            serveStaged();
            // the record is consumed only once the requester has taken the last chunk
            return false;
        }
        if (!holdSource(sink, ctx, addr, total)) {
            return false;
        }
        try {
            long at = region.offset();
            long left = total;
            for (int i = 0; i < n && left > 0; i++) {
                long k = Math.min(listLen[i], left);
                if (shared) {
                    MemorySegment.copy(region.segment(), at, listSeg[i], listAt[i], k);
                } else if (k > 0) {
                    cm.write(conn.peerPid, listAt[i], region.segment(), at, k);
                }
                at += k;
                left -= k;
            }
        } catch (RuntimeException e) {
            return fail(ConnectionLayout.ERROR_TRANSPORT, "copying an RDMA Read failed: " + e.getMessage());
        } finally {
            sink.sourced(); // the source's hold
        }
        return true;
    }

    /**
     * Reads a record's list of {@code n} entries into {@link #listSeg}, {@link #listAt} and {@link #listLen},
     * checking each: for cross-memory attach, (address, length) in the requester's process; for a mapping,
     * (memory id, offset, length), resolved to this side's mapping of the requester's {@link ShmMemory} and
     * checked against its bounds.
     *
     * @param expectTotal the sum the lengths must have, or -1 for any sum up to the largest transfer
     * @return null when valid, else what is wrong
     */
    private String parseList(MemorySegment seg, long at, int bytes, int n, long expectTotal, boolean shared) {
        int entry = shared ? Records.SHARED_ENTRY : Records.IOV_ENTRY;
        if (n < 1 || n > MAX_IOV || bytes != entry * n) {
            return n + " entries in " + bytes + " bytes";
        }
        if (shared ? peerMemoryDir == null : cm == null) {
            return shared ? "shared memory named, which this side cannot map"
                    : "cross-memory attach asked for, not available here";
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            long e = at + (long) entry * i;
            long l = seg.get(ValueLayout.JAVA_LONG, e + (shared ? Records.SHARED_LENGTH_OFFSET : Records.IOV_LENGTH_OFFSET));
            if (l < 0 || l > ShmTransport.MAX_TRANSFER) {
                return "entry of " + l + " bytes";
            }
            if (shared) {
                long id = seg.get(ValueLayout.JAVA_LONG, e + Records.SHARED_ID_OFFSET);
                long o = seg.get(ValueLayout.JAVA_LONG, e + Records.SHARED_AT_OFFSET);
                MemorySegment m = peerMapping(id);
                if (m == null) {
                    return "no shared memory " + id + " of the peer";
                }
                if (o < 0 || o > m.byteSize() - l) {
                    return "[" + o + ", +" + l + ") outside shared memory " + id + " of " + m.byteSize() + " bytes";
                }
                listSeg[i] = m;
                listAt[i] = o;
            } else {
                listSeg[i] = null;
                listAt[i] = seg.get(ValueLayout.JAVA_LONG, e + Records.IOV_ADDRESS_OFFSET);
            }
            listLen[i] = l;
            sum += l;
        }
        if (expectTotal < 0 ? sum > ShmTransport.MAX_TRANSFER : sum != expectTotal) {
            return "entries of " + sum + " bytes, total " + expectTotal;
        }
        return null;
    }

    /** This side's mapping of the peer's shared memory {@code id}, mapped on first use; null if it has none. */
    private MemorySegment peerMapping(long id) {
        for (int i = 0; i < MAPPINGS; i++) {
            if (mappedIds[i] == id && mapped[i] != null) {
                return mapped[i];
            }
        }
        if (id < 1) {
            return null;
        }
        MemorySegment m;
        try {
            MappedFile f = RingFile.openWatched(peerMemoryDir.resolve(ShmMemory.fileName(id)), mapArena);
            mappedFiles.add(f);
            m = f.segment();
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
        int slot = mappedNext;
        mappedNext = (slot + 1) % MAPPINGS;
        mappedIds[slot] = id;
        mapped[slot] = m; // an evicted mapping stays valid until the connection's arena closes
        return m;
    }

    /**
     * Checks an RDMA access with the core; on failure breaks the connection (access error) or leaves the record
     * (the EP no longer accepts: the connection is ending).
     */
    private boolean resolve(ChannelSink sink, int ctx, long addr, long len, int priv) {
        int st = sink.resolveRemote(ctx, addr, len, priv, region);
        if (st == RemoteRegion.OK) {
            return true;
        }
        if (st == RemoteRegion.CLOSED) {
            notAccepting = true;
            return false;
        }
        // RWR-09, RDR-08, LMF-04: checked here, at the owner, before any byte moved; the connection breaks
        fail(ConnectionLayout.ERROR_REMOTE_ACCESS, "RDMA access to context 0x" + Integer.toHexString(ctx)
                + " at 0x" + Long.toHexString(addr) + " +" + len + " refused");
        return false;
    }

    /**
     * Holds the source of an admitted RDMA Read for one bounded read of it into {@link #region}
     * ({@link ChannelSink#holdSource}); a region withdrawn since breaks the connection (LMF-04: in flight, the Read
     * may fail), as a refused Read does.
     */
    private boolean holdSource(ChannelSink sink, int ctx, long addr, long len) {
        if (sink.holdSource(ctx, addr, len, region) == RemoteRegion.OK) {
            return true;
        }
        fail(ConnectionLayout.ERROR_REMOTE_ACCESS, "RDMA Read of context 0x" + Integer.toHexString(ctx)
                + " at 0x" + Long.toHexString(addr) + " +" + len + ": the region was withdrawn");
        return false;
    }

    // ------------------------------------------------------------------ staging

    /** Serves the active staged read: stages the next chunk once the peer took the last one. */
    private boolean serveStaged() {
        long taken = (long) ConnectionLayout.LONG.getAcquire(peerBlock, (long) ConnectionLayout.TAKEN_SEQ);
        if (taken != stagedSeq) {
            if (taken > stagedSeq || taken < stagedSeq - 1) {
                peerCorrupt("staging taken sequence " + taken + ", staged " + stagedSeq);
            }
            return false;
        }
        if (readDone == readTotal) {
            // the requester has every byte: the record can go
            readState = READ_DONE;
            staged = true;
            return true;
        }
        int k = (int) Math.min(stagingSize, readTotal - readDone);
        // held for this chunk only, not across the wait for the requester to take it: each chunk is checked again
        ChannelSink sink = conn.sink;
        if (!holdSource(sink, readContext, readAddress + readDone, k)) {
            return false;
        }
        try {
            MemorySegment.copy(region.segment(), region.offset(), myStaging, 0, k);
        } finally {
            sink.sourced();
        }
        readDone += k;
        myBlock.set(ValueLayout.JAVA_INT, ConnectionLayout.STAGED_LENGTH, k);
        // release: the chunk and its length are visible before the sequence that announces them
        ConnectionLayout.LONG.setRelease(myBlock, (long) ConnectionLayout.STAGED_SEQ, ++stagedSeq);
        staged = true;
        return true;
    }

    /** Takes a chunk the peer staged for this side's oldest staged read. */
    private boolean takeStagedChunk() {
        long seq = (long) ConnectionLayout.LONG.getAcquire(peerBlock, (long) ConnectionLayout.STAGED_SEQ);
        if (seq == takenSeq) {
            return false;
        }
        if (seq != takenSeq + 1) {
            peerCorrupt("staged sequence " + seq + " after " + takenSeq);
            return false;
        }
        int len = peerBlock.get(ValueLayout.JAVA_INT, ConnectionLayout.STAGED_LENGTH);
        if (len <= 0 || len > stagingSize) {
            peerCorrupt("staged chunk of " + len + " bytes");
            return false;
        }
        boolean ok;
        ShmConnection.lockSpinning(conn.txLock);
        try {
            ok = conn.tx.takeStaged(peerStaging, len);
        } finally {
            conn.txLock.unlock();
        }
        if (!ok) {
            peerCorrupt("staged chunk of " + len + " bytes that no RDMA Read expects");
            return false;
        }
        takenSeq = seq;
        // release: our copy out of the chunk is done before the peer may overwrite it
        ConnectionLayout.LONG.setRelease(myBlock, (long) ConnectionLayout.TAKEN_SEQ, seq);
        staged = true;
        return true;
    }

    // ------------------------------------------------------------------ endings

    private boolean protocol(String what) {
        return fail(ConnectionLayout.ERROR_NONE, "protocol violation by the peer: " + what);
    }

    /** The peer's heartbeat stopped for longer than the liveness bound: the connection breaks (rxLock held). */
    void peerSilent(String why) {
        fail(ConnectionLayout.ERROR_NONE, why);
    }

    void peerCorrupt(String what) {
        fail(ConnectionLayout.ERROR_NONE, "the peer corrupted the connection: " + what);
    }

    /**
     * Breaks the connection from this side: tells the peer why (its oldest unfinished request failed with
     * {@code error}, or {@code ERROR_NONE}), wakes it, and has the core told. Returns false (the record stays).
     */
    private boolean fail(int error, String reason) {
        if (stopped) {
            return false;
        }
        stopped = true;
        try {
            if (conn.rxLock.isHeldByCurrentThread()) {
                // the requests handled in earlier passes complete at the peer; the oldest unfinished one fails.
                // Only under the receive lock (the consumer's own state): the transmit path breaks the connection
                // with only its lock held, and a head stored from there could go back behind the receive path's
                in.publish();
            }
            myBlock.set(ValueLayout.JAVA_INT, ConnectionLayout.ERROR_STATUS, error);
            // release: the error status is visible with the close state
            ConnectionLayout.INT.setRelease(myBlock, (long) ConnectionLayout.CLOSE_STATE, ConnectionLayout.BROKEN);
        } catch (IllegalStateException | InternalError e) {
            // unmapped or truncated: the peer sees the socket close
        }
        conn.doorbell();
        conn.notifyCore(true, reason);
        return false;
    }

    /** The peer set its close state and every record before it has been handled. */
    private void peerEnded(int state) {
        stopped = true;
        if (state == ConnectionLayout.DISCONNECTED) {
            conn.tx.peerEnded(null);
            conn.notifyCore(false, "the peer disconnected");
            return;
        }
        int error = state == ConnectionLayout.BROKEN
                ? peerBlock.get(ValueLayout.JAVA_INT, ConnectionLayout.ERROR_STATUS) : ConnectionLayout.ERROR_NONE;
        DtoCompletionStatus status = switch (error) {
            case ConnectionLayout.ERROR_NONE -> null;
            case ConnectionLayout.ERROR_RECEIVER_NOT_READY -> DtoCompletionStatus.ERR_RECEIVER_NOT_READY;
            case ConnectionLayout.ERROR_REMOTE_LENGTH -> DtoCompletionStatus.ERR_REMOTE_RESPONDER;
            case ConnectionLayout.ERROR_REMOTE_ACCESS -> DtoCompletionStatus.ERR_REMOTE_ACCESS;
            default -> DtoCompletionStatus.ERR_TRANSPORT;
        };
        conn.tx.peerEnded(status);
        conn.notifyCore(true, "the peer broke the connection" + (status == null ? "" : " (" + status + ")"));
    }

    /** The socket ended ({@code rxLock} held): a close state tells how; none means the peer died. */
    void socketEnded() {
        if (stopped) {
            return;
        }
        int state = (int) ConnectionLayout.INT.getAcquire(peerBlock, (long) ConnectionLayout.CLOSE_STATE);
        if (state == ConnectionLayout.OPEN) {
            stopped = true;
            conn.tx.peerEnded(null);
            conn.notifyCore(true, "the peer process is gone");
            return;
        }
        poll(); // handles what the peer sent before it ended, then reports the ending
        if (!stopped) {
            peerEnded(state); // records still wait (no buffer): the peer is gone, so is the connection
        }
    }

    /** The connection closes ({@code rxLock} and {@code txLock} held): publishes this side's close state. */
    void stop(int state) {
        stopped = true;
        fragBuffer = null;
        writeActive = false;
        rnrSince = 0;
        try {
            int mine = (int) ConnectionLayout.INT.getAcquire(myBlock, (long) ConnectionLayout.CLOSE_STATE);
            if (mine == ConnectionLayout.OPEN) {
                in.publish(); // before the close state: the peer completes what this side handled
                ConnectionLayout.INT.setRelease(myBlock, (long) ConnectionLayout.CLOSE_STATE, state);
            }
        } catch (IllegalStateException | InternalError e) {
            // already unmapped, or truncated by the peer
        }
    }

    /** Frees the cross-memory scratch ({@code rxLock} held, after {@link #stop}). */
    /** True if a shared-memory file of the peer that this side mapped is now shorter than its mapping. */
    boolean peerMappingTruncated() {
        for (MappedFile f : mappedFiles) {
            if (f.truncated()) {
                return true;
            }
        }
        return false;
    }

    void release() {
        if (cm != null) {
            cm.close();
            cm = null;
        }
    }

    // ------------------------------------------------------------------ sleeping

    /**
     * Announces sleep and checks for work once more ({@code rxLock} held; {@code txLock} only tried).
     *
     * @return {@link ShmConnection#SLEEP} (the flag stays set), {@link ShmConnection#WORK} or
     *         {@link ShmConnection#BUSY} (the flag is clear again)
     */
    int prepareToSleep() {
        if (stopped) {
            return ShmConnection.SLEEP;
        }
        try {
            if (in.publish()) {
                conn.notifyPeer(); // the position of what the last passes consumed: the peer may wait for it
            }
            if (!in.prepareToSleep()) {
                return ShmConnection.WORK;
            }
            int state = (long) ConnectionLayout.LONG.getVolatile(peerBlock, (long) ConnectionLayout.STAGED_SEQ)
                    != takenSeq
                    || (readState == READ_SERVING && (long) ConnectionLayout.LONG.getVolatile(peerBlock,
                            (long) ConnectionLayout.TAKEN_SEQ) == stagedSeq)
                    || (int) ConnectionLayout.INT.getVolatile(peerBlock, (long) ConnectionLayout.CLOSE_STATE)
                            != ConnectionLayout.OPEN
                    ? ShmConnection.WORK : conn.tx.sleepCheck();
            if (state != ShmConnection.SLEEP) {
                in.awake();
            }
            return state;
        } catch (RingCorruptException e) {
            peerCorrupt(e.getMessage());
            return ShmConnection.WORK;
        } catch (InternalError | IllegalStateException e) {
            peerCorrupt("the connection's mapping failed: " + e);
            return ShmConnection.WORK;
        }
    }

    /**
     * Clears the sleeping flag; any thread (no lock needed: one store of a word that only the progress thread
     * sets). A failing mapping is left to the next poll, which holds the lock to break the connection.
     */
    void awake() {
        try {
            in.awake();
        } catch (InternalError | IllegalStateException e) {
            // truncated or unmapped: the next poll (under the lock) or the socket's end reports it
        }
    }
}
