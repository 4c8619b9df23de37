package io.jdat.tools.tx;

import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.MemType;
import io.jdat.ProviderAttr;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.session.IaSession;

/**
 * One side of a {@code jdat tx} run: its {@link IaSession} (the open IA, one Protection Zone, the memory of
 * every endpoint), the IA's attributes and the checks of a run against them. {@link #close()} closes the
 * session.
 */
final class TxSide implements AutoCloseable {
    final String role;
    final String iaName;
    final InterfaceAdapter ia;
    final IaAttr iaAttr;
    final ProviderAttr providerAttr;
    final IaSession session;

    /**
     * Opens the IA and creates the PZ.
     *
     * @param role   "client" or "server"
     * @param iaName the IA to open
     */
    TxSide(String role, String iaName) {
        this.role = role;
        this.iaName = iaName;
        session = IaSession.open(iaName, 16);
        ia = session.ia();
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
    public void close() {
        session.close();
    }
}
