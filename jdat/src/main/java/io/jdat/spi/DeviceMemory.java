package io.jdat.spi;

import java.lang.foreign.MemorySegment;

/**
 * The memory side of a transport that is a device (an RDMA NIC driven through {@code libibverbs}): the device
 * keeps its own protection domains and registrations, checks every incoming RDMA against them itself
 * (remote context, bounds, privilege, domain), and needs a local key in every scatter/gather entry.
 *
 * <p>A transport returns one from {@link Transport#deviceMemory()}; software transports return
 * {@code null} and the core alone checks remote access ({@link ChannelSink#resolveRemote}). With a device,
 * the core still checks every local I/O vector before a post, as for any transport, and additionally:
 * <ul>
 * <li>opens a {@link Domain} per Protection Zone ({@code dat_pz_create} = {@code ibv_alloc_pd});</li>
 * <li>registers each LMR in its PZ's domain ({@code dat_lmr_create} = {@code ibv_reg_mr}); the LMR's
 * {@code rmr_context} is the registration's {@link Registration#remoteKey()} (the rkey a peer's device
 * checks), and every I/O vector entry carries the LMR's {@link Registration#localKey()}
 * ({@link IoVector#key(int)});</li>
 * <li>registers each RMR binding as a registration of the bound range with the bound privileges
 * ({@code dat_rmr_bind}), whose remote key is the RMR context; unbinding deregisters it, so a stale
 * context matches nothing at the device.</li>
 * </ul>
 */
public interface DeviceMemory {
    /**
     * Opens a protection domain ({@code dat_pz_create}).
     *
     * @return the domain
     * @throws io.jdat.DatException {@code DAT_INSUFFICIENT_RESOURCES}
     */
    Domain openDomain();

    /** A protection domain: memory registered in it is usable only by connections of the same domain. */
    interface Domain {
        /**
         * Registers memory ({@code dat_lmr_create}, or an RMR binding).
         *
         * @param memory     the memory, already checked by the core
         * @param privileges {@link io.jdat.MemPriv} bits
         * @return the registration
         * @throws io.jdat.DatException {@code DAT_INSUFFICIENT_RESOURCES}/{@code DAT_RESOURCE_MEMORY_REGION}
         *                              when the device refuses it (e.g. the memlock limit)
         */
        Registration register(MemorySegment memory, int privileges);

        /**
         * Creates a device shared receive queue in this domain ({@code dat_srq_create}).
         *
         * @param maxRecvs   {@code max_recv_dtos}
         * @param maxRecvIov {@code max_recv_iov}
         * @param sink       the core's side of the queue
         * @return the queue
         * @throws io.jdat.DatException {@code DAT_MODEL_NOT_SUPPORTED} when the device has none (the default),
         *                              {@code DAT_INSUFFICIENT_RESOURCES}/{@code DAT_RESOURCE_SRQ} when it refuses
         */
        default DeviceSrq createSrq(int maxRecvs, int maxRecvIov, DeviceSrq.Sink sink) {
            throw new io.jdat.DatException(io.jdat.DatReturnType.MODEL_NOT_SUPPORTED,
                    "the device has no shared receive queues");
        }

        /** Releases the domain ({@code dat_pz_free}); the core frees it only when nothing uses it. */
        void close();
    }

    /** One registration of a range with the device. */
    interface Registration {
        /** {@return the key local work requests name it with (an lkey)} */
        int localKey();

        /** {@return the key a peer names it with (an rkey): the DAT {@code rmr_context}} */
        int remoteKey();

        /** Deregisters ({@code dat_lmr_free}, an RMR unbind). Idempotent. */
        void close();
    }
}
