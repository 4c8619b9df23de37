package io.jdat.tools.perf;

import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProviderAttr;
import io.jdat.Registry;
import io.jdat.shm.ShmMemory;
import io.jdat.tools.cli.Sizes;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.session.IaSession;
import java.lang.foreign.MemorySegment;

/**
 * The DAT objects of one side of a perf run: an {@link IaSession} (the open IA, a PZ), EVDs for receives,
 * requests and connection events (and connection requests on the server), one Endpoint, and one registered
 * region laid out by {@link BufferLayout}. {@link #close()} closes the session (destroying everything in the
 * IA and freeing its native memory), then the DAT shared memory, if any.
 */
final class PerfSide implements AutoCloseable {
    private static final int ASYNC_QLEN = 16;
    private static final int CONN_QLEN = 8;

    final String role;
    private final IaSession session;
    InterfaceAdapter ia;
    IaAttr iaAttr;
    ProviderAttr providerAttr;
    EventDispatcher recvEvd;
    EventDispatcher reqEvd;
    EventDispatcher connEvd;
    EventDispatcher crEvd;
    Endpoint ep;
    /** Outstanding RDMA Reads this EP allows (min of the window and the IA limits). */
    int readDepth;
    /** The buffers as DAT shared memory ({@code --memory shared}), or null. */
    private ShmMemory shared;
    MemorySegment mem;
    Lmr lmr;

    /**
     * Opens and creates everything; on failure releases what was created and rethrows.
     *
     * @param role   "client" or "server"
     * @param config the run settings
     * @param layout the region layout
     * @throws io.jdat.DatException from any DAT call
     * @throws ToolFailure when the provider cannot run this configuration
     */
    PerfSide(String role, PerfConfig config, BufferLayout layout) {
        this.role = role;
        session = IaSession.open(config.iaName(), ASYNC_QLEN);
        ia = session.ia();
        try {
            InterfaceAdapter.QueryResult q = ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL);
            iaAttr = q.iaAttr();
            providerAttr = q.providerAttr();
            checkLimits(config, layout);
            int w = config.window();
            int qlen = 2 * w + 16;
            recvEvd = session.evd(qlen, EvdFlags.DTO);
            reqEvd = session.evd(qlen, EvdFlags.DTO);
            connEvd = session.evd(CONN_QLEN, EvdFlags.CONNECTION);
            if ("server".equals(role)) {
                crEvd = session.evd(CONN_QLEN, EvdFlags.CR);
            }
            readDepth = Math.max(1, Math.min(w, Math.min(iaAttr.maxRdmaReadPerEpIn(), iaAttr.maxRdmaReadPerEpOut())));
            EpAttr attr = ia.defaultEpAttr();
            attr.maxRecvDtos(Math.max(attr.maxRecvDtos(), 2 * w + 8))
                    .maxRequestDtos(Math.max(attr.maxRequestDtos(), w + 8))
                    .maxRdmaReadIn(readDepth).maxRdmaReadOut(readDepth);
            ep = session.endpoint(recvEvd, reqEvd, connEvd, attr);
            if (config.sharedMemory()) {
                if (!isShm(config.iaName())) {
                    throw new ToolFailure("--memory shared needs an shm IA; \"" + config.iaName() + "\" is not one");
                }
                // DAT shared memory: page-aligned, so BufferLayout.ALIGN holds; the provider finds it by address
                shared = ShmMemory.allocate(layout.total());
                mem = shared.segment();
            } else {
                mem = session.allocate(layout.total(), BufferLayout.ALIGN);
            }
            lmr = session.register(mem, MemPriv.ALL);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Whether {@code iaName} is registered as an IA of jdat's {@code shm} transport. */
    static boolean isShm(String iaName) {
        return Registry.entries().stream().anyMatch(e -> e.iaName().equals(iaName) && e.library().equals("shm"));
    }

    private void checkLimits(PerfConfig c, BufferLayout layout) {
        String ia = "IA \"" + c.iaName() + "\"";
        long msg = Math.max(c.maxSize(), c.bwSize());
        if (msg > iaAttr.maxMessageSize() && iaAttr.maxMessageSize() > 0) {
            throw new ToolFailure(Sizes.format(msg) + " messages exceed max_message_size "
                    + Sizes.format(iaAttr.maxMessageSize()) + " of " + ia);
        }
        if (msg > iaAttr.maxRdmaSize() && iaAttr.maxRdmaSize() > 0) {
            throw new ToolFailure(Sizes.format(msg) + " RDMA transfers exceed max_rdma_size "
                    + Sizes.format(iaAttr.maxRdmaSize()) + " of " + ia);
        }
        if (providerAttr.maxPrivateDataSize() < PeerInfo.SIZE) {
            throw new ToolFailure(ia + " carries only " + providerAttr.maxPrivateDataSize()
                    + " bytes of private data, perf needs " + PeerInfo.SIZE);
        }
        if (2 * c.window() + 8 > iaAttr.maxDtoPerEp() || 2 * c.window() + 16 > iaAttr.maxEvdQlen()) {
            throw new ToolFailure("--window " + c.window() + " is too large for " + ia + " (max_dto_per_ep "
                    + iaAttr.maxDtoPerEp() + ", max_evd_qlen " + iaAttr.maxEvdQlen() + ")");
        }
        if (!providerAttr.supportsMemType(MemType.VIRTUAL)) {
            throw new ToolFailure(ia + " cannot register virtual memory (DAT_MEM_TYPE_VIRTUAL)");
        }
    }

    /** Closes the IA abruptly (freeing every object in it), then frees the memory. Idempotent. */
    @Override
    public void close() {
        try {
            session.close();
        } finally {
            if (shared != null) {
                shared.close();
                shared = null;
            }
        }
    }
}
