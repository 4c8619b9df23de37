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
 * <li>gives each RMR a device memory window when the domain has them ({@link Domain#openWindow()},
 * {@code dat_rmr_create} = {@code ibv_alloc_mw}): a bind is posted on the EP's queue as a window bind
 * ({@link WorkRequest#window()}) and the window's new key is the RMR context; otherwise (the fallback) each
 * binding is a registration of the bound range with the bound privileges, whose remote key is the RMR
 * context, and unbinding deregisters it. Either way a stale context matches nothing at the device.</li>
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

        /**
         * Allocates a memory window in this domain ({@code dat_rmr_create} = {@code ibv_alloc_mw}).
         *
         * @return the window, or {@code null} when the device has none (the default): the core then registers
         *         each binding instead (the fallback)
         * @throws io.jdat.DatException {@code DAT_INSUFFICIENT_RESOURCES}/{@code DAT_RESOURCE_MEMORY_REGION} when
         *                              the device has windows but refuses one
         */
        default Window openWindow() {
            return null;
        }

        /** Releases the domain ({@code dat_pz_free}); the core frees it only when nothing uses it. */
        void close();
    }

    /**
     * A device memory window ({@code struct ibv_mw}): an RMR on a device that has them. A bind goes to the
     * device as a work request on the EP's send queue ({@link WorkRequest#window()}), in queue order; the key it
     * gives the window is the new RMR context ({@link WorkRequest#windowKey()}).
     */
    interface Window {
        /**
         * A bind of this window failed or was flushed ({@code dat_rmr_bind}, RMB-05): the device may still hold
         * the window's previous binding, which the core has withdrawn, so the window is replaced by a fresh,
         * unbound one (no earlier context of it matches any more).
         */
        void invalidate();

        /** Deallocates the window ({@code dat_rmr_free} = {@code ibv_dealloc_mw}). Idempotent. */
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
