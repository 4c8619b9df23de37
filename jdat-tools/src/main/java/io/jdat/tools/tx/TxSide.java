package io.jdat.tools.tx;

import io.jdat.CloseFlags;
import io.jdat.DatException;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import java.lang.foreign.Arena;
import io.jdat.tools.cli.ToolFailure;

/**
 * One side of a {@code jdat tx} run: the open IA, its attributes, one Protection Zone and the arena of
 * every endpoint's memory. {@link #close()} closes the IA abruptly (freeing everything in it), then the
 * memory.
 */
final class TxSide implements AutoCloseable {
    final String role;
    final String iaName;
    final InterfaceAdapter ia;
    final IaAttr iaAttr;
    final ProviderAttr providerAttr;
    final ProtectionZone pz;
    final Arena arena = Arena.ofShared();
    private boolean closed;

    /**
     * Opens the IA and creates the PZ.
     *
     * @param role   "client" or "server"
     * @param iaName the IA to open
     */
    TxSide(String role, String iaName) {
        this.role = role;
        this.iaName = iaName;
        ia = InterfaceAdapter.open(iaName, 16, null);
        try {
            InterfaceAdapter.QueryResult q = ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL);
            iaAttr = q.iaAttr();
            providerAttr = q.providerAttr();
            if (!providerAttr.supportsMemType(MemType.VIRTUAL)) {
                throw new ToolFailure("IA \"" + iaName + "\" cannot register virtual memory (DAT_MEM_TYPE_VIRTUAL)");
            }
            if (providerAttr.maxPrivateDataSize() < TxWire.CONNECT_PD) {
                throw new ToolFailure("IA \"" + iaName + "\" carries only " + providerAttr.maxPrivateDataSize()
                        + " bytes of private data, jdat tx needs " + TxWire.CONNECT_PD);
            }
            pz = ProtectionZone.create(ia);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Checks that this IA can run the op list.
     *
     * @param c the run
     * @throws ToolFailure naming the limit that is exceeded
     */
    void checkLimits(TxConfig c) {
        String name = "IA \"" + iaName + "\"";
        int reads = 0;
        for (TxOp op : c.ops()) {
            long bytes = op.bytes();
            if (op.kind() == TxOp.Kind.SEND && iaAttr.maxMessageSize() > 0 && bytes > iaAttr.maxMessageSize()) {
                throw new ToolFailure("--op " + op + ": " + bytes + " bytes exceed max_message_size "
                        + iaAttr.maxMessageSize() + " of " + name);
            }
            if (op.kind() != TxOp.Kind.SEND && iaAttr.maxRdmaSize() > 0 && bytes > iaAttr.maxRdmaSize()) {
                throw new ToolFailure("--op " + op + ": " + bytes + " bytes exceed max_rdma_size "
                        + iaAttr.maxRdmaSize() + " of " + name);
            }
            int maxIov = switch (op.kind()) {
                case SEND -> iaAttr.maxIovSegmentsPerDto();
                case RDMA_WRITE -> Math.min(iaAttr.maxIovSegmentsPerDto(), iaAttr.maxIovSegmentsPerRdmaWrite());
                case RDMA_READ -> Math.min(iaAttr.maxIovSegmentsPerDto(), iaAttr.maxIovSegmentsPerRdmaRead());
            };
            if (maxIov > 0 && op.segments() > maxIov) {
                throw new ToolFailure("--op " + op + ": " + op.segments() + " segments exceed the " + maxIov
                        + " of " + name);
            }
            if (op.kind() == TxOp.Kind.RDMA_READ) {
                reads++;
            }
        }
        int maxReads = Math.min(iaAttr.maxRdmaReadPerEpIn(), iaAttr.maxRdmaReadPerEpOut());
        if (reads > maxReads) {
            throw new ToolFailure(reads + " RDMA Reads per iteration exceed the " + maxReads
                    + " outstanding reads per endpoint of " + name);
        }
        if (iaAttr.maxEps() > 0 && c.totalEps() > iaAttr.maxEps()) {
            throw new ToolFailure(c.totalEps() + " endpoints exceed max_eps " + iaAttr.maxEps() + " of " + name);
        }
        int dtos = c.ops().size() + 4;
        if (dtos > iaAttr.maxDtoPerEp() || dtos > iaAttr.maxEvdQlen()) {
            throw new ToolFailure(c.ops().size() + " operations are too many for " + name + " (max_dto_per_ep "
                    + iaAttr.maxDtoPerEp() + ", max_evd_qlen " + iaAttr.maxEvdQlen() + ")");
        }
    }

    /** Closes the IA abruptly and frees the memory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (ia != null) {
                ia.close(CloseFlags.ABRUPT);
            }
        } catch (DatException e) {
            // already closed
        } finally {
            arena.close();
        }
    }
}
