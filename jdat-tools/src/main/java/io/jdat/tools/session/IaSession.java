package io.jdat.tools.session;

import io.jdat.CloseFlags;
import io.jdat.DatException;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The DAT objects every tool opens on one side: an open IA ({@code dat_ia_open}), one Protection Zone
 * ({@code dat_pz_create}) and a shared arena for the native memory it registers. EVDs, Endpoints and LMRs are
 * created through it in that IA and PZ. {@link #close()} closes the IA abruptly ({@code dat_ia_close} with
 * {@code DAT_CLOSE_ABRUPT_FLAG}), which destroys everything created in it, then frees the memory; it is
 * idempotent and safe from any thread, so a failed setup and a normal end share it.
 */
public final class IaSession implements AutoCloseable {
    private final String iaName;
    private final InterfaceAdapter ia;
    private final ProtectionZone pz;
    private final Arena arena = Arena.ofShared();
    private boolean closed;

    private IaSession(String iaName, int asyncQlen) {
        this.iaName = iaName;
        InterfaceAdapter opened;
        try {
            opened = InterfaceAdapter.open(iaName, asyncQlen, null);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
        ia = opened;
        try {
            pz = ProtectionZone.create(ia);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Opens the IA ({@code dat_ia_open}, with a default async EVD of {@code asyncQlen}) and creates its PZ
     * ({@code dat_pz_create}); on failure releases what was opened and rethrows.
     *
     * @param iaName    the IA to open
     * @param asyncQlen the queue length of the async EVD the IA creates
     * @return the session
     * @throws DatException from {@code dat_ia_open} or {@code dat_pz_create}
     */
    public static IaSession open(String iaName, int asyncQlen) {
        return new IaSession(iaName, asyncQlen);
    }

    /** @return the IA name this session opened */
    public String iaName() {
        return iaName;
    }

    /** @return the open IA */
    public InterfaceAdapter ia() {
        return ia;
    }

    /** @return the session's Protection Zone */
    public ProtectionZone pz() {
        return pz;
    }

    /**
     * Creates an EVD in this IA ({@code dat_evd_create}, no CNO).
     *
     * @param qlen  its queue length
     * @param flags its {@link io.jdat.EvdFlags}
     * @return the EVD
     */
    public EventDispatcher evd(int qlen, int flags) {
        return EventDispatcher.create(ia, qlen, null, flags);
    }

    /**
     * Creates an Endpoint in this IA and PZ ({@code dat_ep_create}).
     *
     * @param recvEvd    the EVD of its receive completions
     * @param requestEvd the EVD of its request completions
     * @param connEvd    the EVD of its connection events
     * @param attr       its attributes, or {@code null} for the provider's defaults
     * @return the Endpoint
     */
    public Endpoint endpoint(EventDispatcher recvEvd, EventDispatcher requestEvd, EventDispatcher connEvd,
            EpAttr attr) {
        return Endpoint.create(ia, pz, recvEvd, requestEvd, connEvd, attr);
    }

    /**
     * Native memory that lives until {@link #close()}.
     *
     * @param bytes its size
     * @param align its alignment
     * @return the memory
     */
    public MemorySegment allocate(long bytes, long align) {
        return arena.allocate(bytes, align);
    }

    /**
     * Registers virtual memory in this IA and PZ ({@code dat_lmr_create} with {@code DAT_MEM_TYPE_VIRTUAL}).
     *
     * @param memory     the memory, whole
     * @param privileges its {@link io.jdat.MemPriv} privileges
     * @return the LMR
     */
    public Lmr register(MemorySegment memory, int privileges) {
        return Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(memory), memory.byteSize(), pz, privileges);
    }

    /** Closes the IA abruptly (freeing every object in it), then frees the memory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ia.close(CloseFlags.ABRUPT);
        } catch (DatException e) {
            // already closed
        } finally {
            arena.close();
        }
    }
}
