package io.jdat.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The ready board of one {@code shm} IA: a one-page file {@value #FILE} in its instance directory that its
 * peers map and in which they mark the connections that have something for this IA, so that a poll of the IA
 * reads one line instead of every connection's ring (issue 18: an empty poll cost 1.6 ms with 1024 idle
 * connections).
 *
 * <h2>Layout (native byte order)</h2>
 * <table>
 *   <caption>Ready board</caption>
 *   <tr><th>Offset</th><th>Size</th><th>What</th><th>Written by</th></tr>
 *   <tr><td>{@value #MAGIC_OFFSET}</td><td>4</td><td>magic {@code 0x4A445242} ("JDRB"), release store, last of
 *       the header</td><td>the owner, at creation</td></tr>
 *   <tr><td>{@value #VERSION_OFFSET}</td><td>4</td><td>version {@value #VERSION}</td><td>the owner</td></tr>
 *   <tr><td>{@value #SLOTS_OFFSET}</td><td>4</td><td>slots, {@value #SLOTS}</td><td>the owner</td></tr>
 *   <tr><td>{@value #SLEEPING}</td><td>4</td><td>the owner's progress thread may block: a peer that marked a
 *       slot also rings the connection's socket</td><td>the owner (volatile)</td></tr>
 *   <tr><td>{@value #HEARTBEAT}</td><td>8</td><td>the IA's heartbeat: a count its progress thread advances every
 *       {@value ShmProgress#HEARTBEAT_MILLIS} ms, which peers with a liveness bound ({@code peer_timeout})
 *       watch for all their connections to this IA (one store per period, not one per connection)</td>
 *       <td>the owner (opaque)</td></tr>
 *   <tr><td>{@value #SUMMARY}</td><td>{@value #SUMMARY_WORDS} × 8</td><td>summary: bit {@code w} set when
 *       word {@code w} of the slots may have a bit set</td><td>peers (atomic or) and the owner (atomic
 *       swap)</td></tr>
 *   <tr><td>{@value #BITS}</td><td>{@value #WORDS} × 8</td><td>one bit per slot: the connection in that slot
 *       has something (a record, a consumed record, a staged chunk, an ending)</td><td>peers (atomic or) and
 *       the owner (atomic swap)</td></tr>
 * </table>
 * Each group has a line to itself. A connection's slot is chosen by the owner and published in its status block
 * ({@link ConnectionLayout#READY_SLOT}).
 *
 * <h2>Ordering: no mark is lost</h2>
 * A peer marks a slot only after it published what it did and then saw, behind a full fence, that the owner
 * does not watch the connection (the consumer-sleeping flag of the ring the owner consumes: {@link
 * ShmRing.Producer#consumerSleeping()}). {@link #mark} sets the slot's bit and then its summary bit, each with an
 * atomic or (skipped when the bit is already set: a load is cheaper than a locked instruction on a shared
 * line); the owner takes a summary word with an atomic swap and then each word it names with an atomic swap, and
 * only then looks at those connections. All of these are volatile (sequentially consistent) accesses, so a mark
 * a peer made after its publication is taken by an owner pass that looks at the connection after it, or the
 * bit was still set by an earlier mark that such a pass takes. The owner's sleep is Dekker's pattern again: it
 * sets {@link #SLEEPING} and then reads the summary; a peer marks and then reads {@link #SLEEPING}; one of them
 * sees the other's store, so the owner does not sleep over a mark without a socket doorbell.
 *
 * <h2>A hostile peer</h2>
 * A peer of the same user maps this page read-write and may write anything into it. A bit set for nothing costs
 * the owner one look at that connection (a slot without a connection: nothing); a bit cleared, or never set,
 * delays the connection until the owner's periodic full look ({@link ShmProgress#FULL_LOOK_MILLIS}); a cleared
 * {@link #SLEEPING} delays it until the select's timeout. The owner never reads the header after creation and
 * derives no address from the page: bits only index its own table of connections. A peer that truncates the
 * file makes the owner's reads fault; the owner then stops using the board and looks at every connection on
 * each poll, as before it existed ({@link ShmProgress#mappingFault}).
 */
final class ReadyBoard {
    /** The file's name in an instance directory. */
    static final String FILE = "ready";
    static final int MAGIC = 0x4A44_5242;
    static final int VERSION = 1;
    /** Connections an IA can give a slot; more are looked at on every poll. */
    static final int SLOTS = 16384;
    static final int WORDS = SLOTS / 64;
    static final int SUMMARY_WORDS = WORDS / 64;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int SLOTS_OFFSET = 8;
    static final int SLEEPING = RingDescriptor.LINE;
    static final int SUMMARY = 2 * RingDescriptor.LINE;
    static final int HEARTBEAT = 3 * RingDescriptor.LINE;
    static final int BITS = 4 * RingDescriptor.LINE;
    static final long LENGTH = 4096;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    static {
        if (SUMMARY + SUMMARY_WORDS * 8 > HEARTBEAT || HEARTBEAT + 8 > BITS || BITS + WORDS * 8 > LENGTH) {
            throw new AssertionError("ready board layout");
        }
    }

    private final MemorySegment page;
    /** The owner's mapping, watched for truncation; null for a peer's. */
    private final MappedFile watched;

    private ReadyBoard(MemorySegment page, MappedFile watched) {
        this.page = page;
        this.watched = watched;
    }

    /**
     * Formats this IA's board in {@code ch}, a new owner-only file of {@value #LENGTH} zero bytes
     * ({@link ShmFiles.Instance#createFile}), mapped in {@code arena} (a {@link ChannelArena}, which closes the
     * channel with it).
     */
    static ReadyBoard create(FileChannel ch, Arena arena) throws IOException {
        MappedFile m = MappedFile.map(ch, arena);
        MemorySegment p = m.segment().asSlice(0, LENGTH);
        p.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
        p.set(ValueLayout.JAVA_INT, SLOTS_OFFSET, SLOTS);
        // release: the header fields are visible before a peer that reads the magic (acquire) uses the page
        INT.setRelease(p, (long) MAGIC_OFFSET, MAGIC);
        return new ReadyBoard(p, m);
    }

    /**
     * Maps the board of the IA whose instance directory is {@code dir}, for marking (the channel is closed at
     * once; the mapping lives with {@code arena}).
     *
     * @throws IOException if there is none, or it is not owner-only, not one page, or not formatted
     */
    static ReadyBoard attach(Path dir, Arena arena) throws IOException {
        MemorySegment m = RingFile.open(dir.resolve(FILE), arena);
        if (m.byteSize() != LENGTH || (int) INT.getAcquire(m, (long) MAGIC_OFFSET) != MAGIC
                || m.get(ValueLayout.JAVA_INT, VERSION_OFFSET) != VERSION
                || m.get(ValueLayout.JAVA_INT, SLOTS_OFFSET) != SLOTS) {
            throw new IOException("not a ready board: " + dir.resolve(FILE));
        }
        return new ReadyBoard(m, null);
    }

    // ------------------------------------------------------------------ a peer (or the owner itself)

    /**
     * Marks {@code slot} (0 .. {@value #SLOTS} - 1): its bit, then its summary bit. The caller published what
     * it did and issued a full fence before (see the class comment).
     */
    void mark(int slot) {
        long word = BITS + (long) (slot >>> 6) * 8;
        long bit = 1L << (slot & 63);
        // volatile load first: most marks find the bit set by an earlier one the owner has not taken yet
        if (((long) LONG.getVolatile(page, word) & bit) == 0) {
            LONG.getAndBitwiseOr(page, word, bit);
        }
        long summary = SUMMARY + (long) (slot >>> 12) * 8;
        long sbit = 1L << ((slot >>> 6) & 63);
        if (((long) LONG.getVolatile(page, summary) & sbit) == 0) {
            LONG.getAndBitwiseOr(page, summary, sbit);
        }
    }

    /** Whether the owner's progress thread may block (after {@link #mark}: then ring the socket). Volatile. */
    boolean sleeping() {
        return (int) INT.getVolatile(page, (long) SLEEPING) != 0;
    }

    /** The owner's heartbeat (opaque load). */
    long heartbeat() {
        return (long) LONG.getOpaque(page, (long) HEARTBEAT);
    }

    // ------------------------------------------------------------------ the owner

    /** Advances the heartbeat to {@code beat} (opaque store: atomic, no fence; a peer only sees it move). */
    void beat(long beat) {
        LONG.setOpaque(page, (long) HEARTBEAT, beat);
    }

    /** Whether a slot may be marked: volatile loads of the summary words (one line). */
    boolean anyMarked() {
        for (int i = 0; i < SUMMARY_WORDS; i++) {
            if ((long) LONG.getVolatile(page, (long) SUMMARY + i * 8L) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Takes summary word {@code i}: its value, and zero left in its place (a load first: no write when 0). */
    long takeSummary(int i) {
        long at = (long) SUMMARY + i * 8L;
        if ((long) LONG.getVolatile(page, at) == 0) {
            return 0;
        }
        return (long) LONG.getAndSet(page, at, 0L);
    }

    /** Takes bit word {@code w} (0 .. {@value #WORDS} - 1), after its summary bit: its value, zero left. */
    long takeWord(int w) {
        return (long) LONG.getAndSet(page, (long) BITS + w * 8L, 0L);
    }

    /** Announces that the progress thread may block (volatile store; read the summary after it). */
    void setSleeping(boolean on) {
        INT.setVolatile(page, (long) SLEEPING, on ? 1 : 0);
    }

    /** True when a peer truncated the owner's file (touching it would fault). */
    boolean truncated() {
        return watched != null && watched.truncated();
    }
}
