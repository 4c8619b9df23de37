package io.jdat.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Layout of the file one {@code shm} connection shares between its two processes: a header, one status block
 * per side, a {@link ShmRing} per direction and a read-staging area per side. The active side creates and
 * formats the file in its own instance directory; the passive side maps it on accept. Every multi-byte field
 * is in native byte order.
 *
 * <h2>File</h2>
 * <table>
 *   <caption>Connection file</caption>
 *   <tr><th>Offset</th><th>Size</th><th>What</th></tr>
 *   <tr><td>0</td><td>{@value #HEADER_LENGTH}</td><td>header: magic {@code 0x4A445343} ("JDSC") at
 *       {@value #MAGIC_OFFSET} (release store, last), version at {@value #VERSION_OFFSET}, ring capacity at
 *       {@value #RING_CAPACITY_OFFSET}, staging size at {@value #STAGING_SIZE_OFFSET}</td></tr>
 *   <tr><td>{@value #ACTIVE_BLOCK}</td><td>{@value #BLOCK_LENGTH}</td><td>status block of the active side</td></tr>
 *   <tr><td>{@value #PASSIVE_BLOCK}</td><td>{@value #BLOCK_LENGTH}</td><td>status block of the passive side</td></tr>
 *   <tr><td>{@value #RINGS}</td><td>ring length</td><td>ring active → passive (the active side produces)</td></tr>
 *   <tr><td>{@code RINGS + ring length}</td><td>ring length</td><td>ring passive → active</td></tr>
 *   <tr><td>then</td><td>staging size</td><td>staging area of the active side (data of the passive side's
 *       RDMA Reads that the active side serves without cross-memory attach)</td></tr>
 *   <tr><td>then</td><td>staging size</td><td>staging area of the passive side</td></tr>
 * </table>
 * Ring length is {@link RingDescriptor#totalLength(int)}; the rings start 4096-byte aligned.
 *
 * <h2>Status block of a side ({@value #BLOCK_LENGTH} bytes, offsets within the block)</h2>
 * Each field group has a {@value RingDescriptor#LINE}-byte line to itself.
 * <table>
 *   <caption>Status block</caption>
 *   <tr><th>Offset</th><th>Size</th><th>Field</th><th>Written by</th><th>Access</th></tr>
 *   <tr><td>{@value #CLOSE_STATE}</td><td>4</td><td>how this side ended: {@link #OPEN}, {@link #DISCONNECTED}
 *       (graceful), {@link #BROKEN}</td><td>the side</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #ERROR_STATUS}</td><td>4</td><td>why the peer's oldest unfinished request failed, when this
 *       side broke the connection for it: an {@code ERROR_*} code, written before {@link #CLOSE_STATE}</td>
 *       <td>the side</td><td>plain, published by the close state's release</td></tr>
 *   <tr><td>{@value #STAGED_SEQ}</td><td>8</td><td>sequence number of the last chunk this side put in its
 *       staging area</td><td>the side</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #STAGED_LENGTH}</td><td>4</td><td>bytes in that chunk</td><td>the side</td><td>plain,
 *       published by the sequence's release</td></tr>
 *   <tr><td>{@value #TAKEN_SEQ}</td><td>8</td><td>sequence number of the last chunk this side took from the
 *       <em>peer's</em> staging area</td><td>the side</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #HEARTBEAT}</td><td>8</td><td>heartbeat: a count this side's progress thread advances every
 *       {@value ShmProgress#HEARTBEAT_MILLIS} ms or so while it runs, only if the peer asked for it
 *       ({@link #WANTS_BLOCK_HEARTBEAT}; else the peer reads the heartbeat of this side's IA's
 *       {@link ReadyBoard}, one for all its connections); a peer with a liveness bound ({@code peer_timeout})
 *       breaks the connection when it stops moving</td><td>the side</td><td>opaque
 *       store / opaque load</td></tr>
 *   <tr><td>{@value #READY_SLOT}</td><td>4</td><td>this side's slot on its IA's {@link ReadyBoard} plus one (0:
 *       none yet or none at all), where the peer marks the connection while this side does not watch it</td>
 *       <td>the side</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #WANTS_BLOCK_HEARTBEAT}</td><td>4</td><td>1: this side could not map the peer IA's board, so
 *       the peer must advance {@link #HEARTBEAT} in its status block; written before the handshake ends</td>
 *       <td>the side</td><td>release store / acquire load</td></tr>
 *   <tr><td>{@value #DIRECT_PZ}</td><td>4</td><td>the Protection Zone of this side's EP
 *       ({@code ChannelSink.protectionZone()}, 0: unknown), against which the peer checks a direct store into
 *       this side's memory ({@link ContextTable}); written once when the connection starts</td><td>the side</td>
 *       <td>release store / acquire load</td></tr>
 *   <tr><td>{@value #DIRECT_USE}</td><td>4</td><td>the context through which this side is storing directly
 *       into the peer's memory now, 0 when none ({@link DirectStore}); the peer drains it when it withdraws a
 *       context</td><td>the side</td><td>volatile store / volatile load (Dekker with the table's
 *       invalidation)</td></tr>
 * </table>
 * The staging protocol: the owner of the data writes a chunk only when the peer's taken sequence equals its own
 * staged sequence, then releases {@code staged + 1}; the peer copies the chunk out and releases its taken
 * sequence. Everything the peer wrote is validated before use (lengths against the area and the read,
 * sequences against the expected next one).
 */
final class ConnectionLayout {
    /** "JDSC" as a big-endian int. */
    static final int MAGIC = 0x4A44_5343;
    static final int VERSION = 2;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int RING_CAPACITY_OFFSET = 8;
    static final int STAGING_SIZE_OFFSET = 12;
    static final int HEADER_LENGTH = 256;
    static final int BLOCK_LENGTH = 6 * RingDescriptor.LINE;
    static final int ACTIVE_BLOCK = HEADER_LENGTH;
    static final int PASSIVE_BLOCK = ACTIVE_BLOCK + BLOCK_LENGTH;
    static final int RINGS = 4096;

    static final int CLOSE_STATE = 0;
    static final int ERROR_STATUS = 4;
    static final int STAGED_SEQ = RingDescriptor.LINE;
    static final int STAGED_LENGTH = RingDescriptor.LINE + 8;
    static final int TAKEN_SEQ = 2 * RingDescriptor.LINE;
    static final int HEARTBEAT = 3 * RingDescriptor.LINE;
    static final int READY_SLOT = HEARTBEAT + 8;
    static final int WANTS_BLOCK_HEARTBEAT = HEARTBEAT + 12;
    /** Written once by the side; a line of its own, so the peer's reads on every direct store never miss. */
    static final int DIRECT_PZ = 4 * RingDescriptor.LINE;
    /** Written by the side on every direct store; read by the peer only when it withdraws a context. */
    static final int DIRECT_USE = 5 * RingDescriptor.LINE;

    static final int OPEN = 0;
    static final int DISCONNECTED = 1;
    static final int BROKEN = 2;

    /** No request failed. */
    static final int ERROR_NONE = 0;
    /** A Send found no receive buffer in time. */
    static final int ERROR_RECEIVER_NOT_READY = 1;
    /** A Send was longer than the receive buffer. */
    static final int ERROR_REMOTE_LENGTH = 2;
    /** An RDMA access failed the owner's checks (context, bounds, privilege, PZ). */
    static final int ERROR_REMOTE_ACCESS = 3;
    /** The owner could not move the bytes (the requester's memory was unreachable). */
    static final int ERROR_TRANSPORT = 4;

    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private ConnectionLayout() {
    }

    static long ringLength(int ringCapacity) {
        return align4k(RingDescriptor.totalLength(ringCapacity));
    }

    /** Offset of the ring that {@code activeProduces} names (true: active → passive). */
    static long ringOffset(int ringCapacity, boolean activeProduces) {
        return RINGS + (activeProduces ? 0 : ringLength(ringCapacity));
    }

    /** Offset of the staging area of a side. */
    static long stagingOffset(int ringCapacity, int stagingSize, boolean active) {
        return RINGS + 2 * ringLength(ringCapacity) + (active ? 0 : align4k(stagingSize));
    }

    static long fileLength(int ringCapacity, int stagingSize) {
        return RINGS + 2 * ringLength(ringCapacity) + 2 * align4k(stagingSize);
    }

    static long blockOffset(boolean active) {
        return active ? ACTIVE_BLOCK : PASSIVE_BLOCK;
    }

    private static long align4k(long n) {
        return (n + 4095) & -4096L;
    }

    /**
     * Formats a new file (active side, before the peer sees it). A new file reads as zeros (it is created
     * empty and extended), so only the header page and the rings' header fields are written: the rings' data
     * areas and the staging areas stay unbacked until used (zeroing them made every idle connection 2.3 MB
     * resident, issue 18).
     */
    static void format(MemorySegment file, int ringCapacity, int stagingSize) {
        file.asSlice(0, RINGS).fill((byte) 0);
        ShmRing.formatZeroed(file.asSlice(ringOffset(ringCapacity, true)), ringCapacity);
        ShmRing.formatZeroed(file.asSlice(ringOffset(ringCapacity, false)), ringCapacity);
        file.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
        file.set(ValueLayout.JAVA_INT, RING_CAPACITY_OFFSET, ringCapacity);
        file.set(ValueLayout.JAVA_INT, STAGING_SIZE_OFFSET, stagingSize);
        // release: the sizes and both rings are formatted before an attacher sees the magic
        INT.setRelease(file, (long) MAGIC_OFFSET, MAGIC);
    }

    /**
     * Checks a mapped file against what the connection request announced.
     *
     * @return null if it is valid, else what is wrong
     */
    static String validate(MemorySegment file, int ringCapacity, int stagingSize) {
        if (file.byteSize() < RINGS) {
            return "connection file of " + file.byteSize() + " bytes";
        }
        int magic = (int) INT.getAcquire(file, (long) MAGIC_OFFSET);
        if (magic != MAGIC) {
            return "connection file magic 0x" + Integer.toHexString(magic);
        }
        if (file.get(ValueLayout.JAVA_INT, VERSION_OFFSET) != VERSION
                || file.get(ValueLayout.JAVA_INT, RING_CAPACITY_OFFSET) != ringCapacity
                || file.get(ValueLayout.JAVA_INT, STAGING_SIZE_OFFSET) != stagingSize) {
            return "connection file header does not match the request";
        }
        if (!RingDescriptor.isValidCapacity(ringCapacity) || stagingSize < 4096 || stagingSize > (64 << 20)) {
            return "ring capacity " + ringCapacity + " / staging " + stagingSize + " out of range";
        }
        if (file.byteSize() != fileLength(ringCapacity, stagingSize)) {
            return "connection file of " + file.byteSize() + " bytes, expected "
                    + fileLength(ringCapacity, stagingSize);
        }
        return null;
    }
}
