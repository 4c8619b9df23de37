package io.jdat.shm;

/**
 * The record types of an {@code shm} connection's rings and their payload layouts (offsets within the payload,
 * native byte order). A request of the side that produces into the ring becomes one record (or, for fragments,
 * several); the peer handles it and consumes it, and the requester completes the request once the ring's
 * consumer position has passed its last record ({@link ShmRing.Producer#consumerPosition()}).
 *
 * <table>
 *   <caption>Records</caption>
 *   <tr><th>Type</th><th>Header</th><th>Then</th></tr>
 *   <tr><td>{@value #SEND_INLINE} Send, inline</td><td>0 int flags, 4 int 0</td><td>the message</td></tr>
 *   <tr><td>{@value #SEND_FRAG} Send fragment</td><td>0 int flags, 4 int 0, 8 long total, 16 long offset</td>
 *       <td>{@code [offset, offset + n)} of the message; {@link #LAST} on the last</td></tr>
 *   <tr><td>{@value #SEND_XMEM} Send by cross-memory attach</td><td>0 int flags, 4 int n, 8 long total</td>
 *       <td>n × (long address, long length) in the sender's process: the receiver reads them</td></tr>
 *   <tr><td>{@value #WRITE_INLINE} RDMA Write, inline</td><td>0 int context, 4 int 0, 8 long address</td>
 *       <td>the bytes</td></tr>
 *   <tr><td>{@value #WRITE_FRAG} RDMA Write fragment</td><td>0 int context, 4 int 0, 8 long address,
 *       16 long total, 24 long offset</td><td>{@code [offset, offset + n)}; {@link #LAST} is implied by the
 *       total</td></tr>
 *   <tr><td>{@value #WRITE_XMEM} RDMA Write by cross-memory attach</td><td>0 int context, 4 int n,
 *       8 long address, 16 long total</td><td>n × (address, length) of the source: the target reads them</td></tr>
 *   <tr><td>{@value #READ} RDMA Read</td><td>0 int context, 4 int n, 8 long address, 16 long total</td>
 *       <td>n × (address, length) of the requester's destination, which the target writes by cross-memory
 *       attach; with n = 0 the target passes the bytes through its staging area instead</td></tr>
 * </table>
 * The {@code *_SHARED} records ({@value #SEND_SHARED} Send, {@value #WRITE_SHARED} RDMA Write,
 * {@value #READ_SHARED} RDMA Read) have the headers of their {@code *_XMEM} counterparts, then n × (long memory
 * id, long offset, long length) naming the requester's {@link ShmMemory}: the owner maps those files and
 * copies with {@code MemorySegment.copy}.
 * Flags: {@link #SOLICITED}, {@link #LAST}. Every field is checked by the receiving side before use.
 */
final class Records {
    static final int SEND_INLINE = 1;
    static final int SEND_FRAG = 2;
    static final int SEND_XMEM = 3;
    static final int WRITE_INLINE = 4;
    static final int WRITE_FRAG = 5;
    static final int WRITE_XMEM = 6;
    static final int READ = 7;
    static final int SEND_SHARED = 8;
    static final int WRITE_SHARED = 9;
    static final int READ_SHARED = 10;
    static final int MAX_TYPE = 10;

    static final int SEND_INLINE_HEADER = 8;
    static final int SEND_FRAG_HEADER = 24;
    static final int SEND_XMEM_HEADER = 16;
    static final int WRITE_INLINE_HEADER = 16;
    static final int WRITE_FRAG_HEADER = 32;
    static final int WRITE_XMEM_HEADER = 24;
    static final int READ_HEADER = 24;
    /** The largest header. */
    static final int MAX_HEADER = 32;
    /** The header length of each record type, by type (the receiver checks it before a handler reads a field). */
    private static final int[] HEADER_LENGTH = {0, SEND_INLINE_HEADER, SEND_FRAG_HEADER, SEND_XMEM_HEADER,
        WRITE_INLINE_HEADER, WRITE_FRAG_HEADER, WRITE_XMEM_HEADER, READ_HEADER, SEND_XMEM_HEADER, WRITE_XMEM_HEADER,
        READ_HEADER};
    /** Bytes per (address, length) entry. */
    static final int IOV_ENTRY = 16;
    /** Bytes per (memory id, offset, length) entry of the {@code *_SHARED} records. */
    static final int SHARED_ENTRY = 24;

    // Header fields: offsets from the start of the record's payload (the table above).
    /** Send records: the int flags word ({@link #SOLICITED}, {@link #LAST}). */
    static final int FLAGS_OFFSET = 0;
    /** RDMA Write and Read records: the int context of the target's memory (RMR or LMR context). */
    static final int CONTEXT_OFFSET = 0;
    /** List records ({@code *_XMEM}, {@code *_SHARED}, {@code READ}): the int number of entries; 0 in the others. */
    static final int COUNT_OFFSET = 4;
    /** Send fragment and Send list records: the long length of the whole message. */
    static final int SEND_TOTAL_OFFSET = 8;
    /** Send fragment: the long offset of this fragment in the message. */
    static final int SEND_FRAG_START_OFFSET = 16;
    /** RDMA Write and Read records: the long target address. */
    static final int ADDRESS_OFFSET = 8;
    /** RDMA Write fragment, RDMA Write list and RDMA Read records: the long length of the whole transfer. */
    static final int TOTAL_OFFSET = 16;
    /** RDMA Write fragment: the long offset of this fragment in the transfer. */
    static final int WRITE_FRAG_START_OFFSET = 24;

    // List entries: offsets from the start of an entry.
    /** Cross-memory entry: the long address in the requester's process. */
    static final int IOV_ADDRESS_OFFSET = 0;
    /** Cross-memory entry: the long length. */
    static final int IOV_LENGTH_OFFSET = 8;
    /** Shared entry: the long id of the requester's {@link ShmMemory}. */
    static final int SHARED_ID_OFFSET = 0;
    /** Shared entry: the long offset in that memory. */
    static final int SHARED_AT_OFFSET = 8;
    /** Shared entry: the long length. */
    static final int SHARED_LENGTH_OFFSET = 16;

    /** The sender asked for a solicited event. */
    static final int SOLICITED = 1;
    /** The last fragment of a Send. */
    static final int LAST = 2;

    private Records() {
    }

    /** {@return the header length of a record of {@code type}} (1 to {@link #MAX_TYPE}) */
    static int headerLength(int type) {
        return HEADER_LENGTH[type];
    }
}
