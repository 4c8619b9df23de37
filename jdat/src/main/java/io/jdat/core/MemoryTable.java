package io.jdat.core;

import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.spi.IoVector;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * An IA's table of memory contexts: LMR contexts (usable locally and, with a remote privilege, as the
 * LMR's {@code rmr_context}) and RMR bindings. A context is 32 bits laid out like an iWARP STag:
 * {@code tag << 8 | key}.
 *
 * <ul>
 * <li>The <b>key</b> (8 bits) changes on every registration and every RMR bind: each slot starts at a
 * random key and steps by its own random odd stride, so a slot returns to an earlier key only after 256
 * contexts (a stale context of a freed or re-bound region does not validate for the next 255
 * re-registrations of its slot), and the next key cannot be told from the previous one.</li>
 * <li>The <b>tag</b> (24 bits) is the slot's index through a per-IA secret permutation of the 24-bit space
 * (a four-round Feistel network with random round keys), and a free slot is picked at random: contexts of
 * an IA are spread over all 2<sup>24</sup> tags, not handed out in order, and differ from run to run.</li>
 * </ul>
 *
 * <p>So a context that was not advertised is found by guessing only with probability about
 * {@code live / 2^32} per guess (docs/protection.md); each wrong guess by a peer breaks its connection.
 * The randomness is a per-IA {@link SplittableRandom} seeded from {@link SecureRandom}: unpredictable to a
 * peer, not a cryptographic guarantee.
 *
 * <p>Lookups are lock-free, O(1) and allocation-free (the inverse permutation, then a volatile read of an
 * immutable {@link Region}); changes take the table lock and publish with volatile writes, which order them
 * against the EPs' placement marks ({@link Withdrawal}). Registration
 * allocates nothing in the table except when it grows.
 */
final class MemoryTable {
    /** Contexts have 24 tag bits; slot 0 is never used. */
    static final int MAX_INDEX = (1 << 24) - 1;
    /** The number of random key bits in a context. */
    static final int KEY_BITS = 8;
    private static final int HALF_BITS = 12;
    private static final int HALF_MASK = (1 << HALF_BITS) - 1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Region[].class);
    private static final SecureRandom SEEDS = new SecureRandom();

    private final Object lock = new Object();
    private volatile Region[] slots = new Region[64];
    /** Round keys of the tag permutation; fixed for the life of the table. */
    private final int k0;
    private final int k1;
    private final int k2;
    private final int k3;
    /** Guarded by {@link #lock}. */
    private final SplittableRandom random;
    private byte[] keys = new byte[64];
    private byte[] strides = new byte[64];
    private boolean[] reserved = new boolean[64];
    private int[] freeList = new int[16];
    private int freeCount;
    private int nextIndex = 1;
    private int live;

    MemoryTable() {
        this(SEEDS.nextLong());
    }

    /** A table whose tags and keys follow from {@code seed} (tests). */
    MemoryTable(long seed) {
        random = new SplittableRandom(seed);
        k0 = random.nextInt();
        k1 = random.nextInt();
        k2 = random.nextInt();
        k3 = random.nextInt();
    }

    /**
     * Reserves a slot (for an LMR or an RMR): a random one of the free slots, else a new one.
     *
     * @return the slot, or -1 when the table is full
     */
    int reserve() {
        synchronized (lock) {
            int idx;
            if (freeCount > 0) {
                int i = random.nextInt(freeCount);
                idx = freeList[i];
                freeList[i] = freeList[--freeCount];
            } else {
                if (nextIndex > MAX_INDEX) {
                    return -1;
                }
                idx = nextIndex++;
                if (idx >= slots.length) {
                    int n = Math.min(slots.length * 2, MAX_INDEX + 1);
                    keys = Arrays.copyOf(keys, n);
                    strides = Arrays.copyOf(strides, n);
                    reserved = Arrays.copyOf(reserved, n);
                    slots = Arrays.copyOf(slots, n);
                }
                keys[idx] = (byte) random.nextInt();
                strides[idx] = (byte) (random.nextInt() | 1);
            }
            reserved[idx] = true;
            live++;
            return idx;
        }
    }

    /** The next context for slot {@code index}: a fresh key, so earlier contexts of the slot stop matching. */
    int nextContext(int index) {
        synchronized (lock) {
            int tag = permute(index);
            int context;
            do {
                int key = (keys[index] + strides[index]) & 0xFF;
                keys[index] = (byte) key;
                context = tag << KEY_BITS | key;
            } while (context == 0); // 0 is never a context
            return context;
        }
    }

    /**
     * Publishes {@code region} at its slot (replacing any earlier binding), or clears it. Volatile: a withdrawal
     * ({@link Withdrawal}) reads the EPs' placement marks after it; the region's fields are written before.
     */
    void publish(int index, Region region) {
        synchronized (lock) {
            SLOT.setVolatile(slots, index, region);
        }
    }

    /** Clears and frees a slot: its contexts find nothing until it is registered again, under a new key. */
    void release(int index) {
        synchronized (lock) {
            if (!reserved[index]) {
                return;
            }
            SLOT.setVolatile(slots, index, (Region) null); // before the withdrawal reads the marks (Withdrawal)
            reserved[index] = false;
            live--;
            if (freeCount == freeList.length) {
                freeList = Arrays.copyOf(freeList, freeList.length * 2);
            }
            freeList[freeCount++] = index;
        }
    }

    /**
     * The region a context names, or {@code null} for a stale, foreign, guessed or never-issued context.
     * Lock-free, O(1), allocation-free; hostile values are safe.
     */
    Region lookup(int context) {
        int index = unpermute(context >>> KEY_BITS);
        Region[] s = slots;
        if (index <= 0 || index >= s.length) {
            return null;
        }
        // volatile (a plain load on x86): after an EP's placement mark, the other half of Withdrawal's pair
        Region r = (Region) SLOT.getVolatile(s, index);
        return r != null && r.context() == context ? r : null;
    }

    /** Number of reserved slots. */
    int size() {
        synchronized (lock) {
            return live;
        }
    }

    /** The tag of slot {@code index}: a bijection of the 24-bit space keyed by the table's round keys. */
    int permute(int index) {
        return feistel(index >>> HALF_BITS & HALF_MASK, index & HALF_MASK, k0, k1, k2, k3);
    }

    /**
     * The slot of tag {@code tag} (24 bits): the inverse of {@link #permute}, which is the same network
     * with the keys in reverse order and the halves swapped on the way in and out.
     */
    int unpermute(int tag) {
        int swapped = feistel(tag & HALF_MASK, tag >>> HALF_BITS & HALF_MASK, k3, k2, k1, k0);
        return (swapped & HALF_MASK) << HALF_BITS | swapped >>> HALF_BITS;
    }

    /** Four Feistel rounds {@code (l, r) -> (r, l ^ round(r, k))} with keys a, b, c, d; {@return l << 12 | r} */
    private static int feistel(int l, int r, int a, int b, int c, int d) {
        int t = l ^ round(r, a);
        l = r;
        r = t;
        t = l ^ round(r, b);
        l = r;
        r = t;
        t = l ^ round(r, c);
        l = r;
        r = t;
        t = l ^ round(r, d);
        return r << HALF_BITS | t;
    }

    /**
     * Validates {@code n} triplets against this memory table and fills {@code v} (SND-07/08, RCV-09,
     * RDR-11/13/14, RWR-07, AMB-11) for a post on an EP or SRQ in PZ {@code epPz}. Check order: bad LMR →
     * PRIVILEGES; PZ mismatch → PROTECTION; missing local right → PRIVILEGES; outside the LMR →
     * INVALID_PARAMETER. Allocates nothing unless it throws.
     */
    void resolveLocal(IoVector v, int n, LmrTriplet[] iov, int privilege, int maxIov, int arg, CorePz epPz) {
        if (n < 0 || n > maxIov) {
            throw Fail.param(arg - 1, "num_segments " + n + " outside 0.." + maxIov);
        }
        if (n > 0 && (iov == null || iov.length < n)) {
            throw Fail.param(arg, "local_iov has fewer than num_segments entries");
        }
        v.reset();
        for (int i = 0; i < n; i++) {
            LmrTriplet t = iov[i];
            if (t == null) {
                throw Fail.param(arg, "local_iov[" + i + "] is null");
            }
            long len = t.segmentLength();
            if (len == 0) {
                continue;
            }
            Region r = lookup(t.lmrContext());
            if (r == null || !r.local()) {
                throw Fail.of(DatReturnType.PRIVILEGES_VIOLATION, privilege == MemPriv.LOCAL_READ
                        ? DatReturnSubtype.PRIVILEGES_READ : DatReturnSubtype.PRIVILEGES_WRITE,
                        "local_iov[" + i + "]: invalid LMR context 0x" + Integer.toHexString(t.lmrContext()));
            }
            if (r.pz() != epPz) {
                throw Fail.of(DatReturnType.PROTECTION_VIOLATION, privilege == MemPriv.LOCAL_READ
                        ? DatReturnSubtype.PROTECTION_READ : DatReturnSubtype.PROTECTION_WRITE,
                        "local_iov[" + i + "]: LMR in another PZ");
            }
            if ((r.privileges() & privilege) == 0) {
                throw Fail.of(DatReturnType.PRIVILEGES_VIOLATION, privilege == MemPriv.LOCAL_READ
                        ? DatReturnSubtype.PRIVILEGES_READ : DatReturnSubtype.PRIVILEGES_WRITE,
                        "local_iov[" + i + "]: LMR lacks " + (privilege == MemPriv.LOCAL_READ ? "local read" : "local write"));
            }
            long off = r.offsetOf(t.virtualAddress(), len);
            if (off < 0) {
                throw Fail.param(arg, "local_iov[" + i + "] lies outside its LMR");
            }
            v.add(r.segment(), off, len, r.lmr().deviceKey);
        }
    }

    /** The Feistel round function: 12 well-mixed bits of {@code half} and {@code key}. */
    private static int round(int half, int key) {
        int h = (half ^ key) * 0x9E3779B1;
        h ^= h >>> 15;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        return h >>> 20;
    }
}
