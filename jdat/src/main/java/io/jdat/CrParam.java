package io.jdat;

import java.net.SocketAddress;

/**
 * {@code DAT_CR_PARAM} ({@code dat_cr_query}).
 *
 * @param remoteIaAddress  remote_ia_address_ptr
 * @param remotePortQual   remote_port_qual: the active EP's local port qualifier (CON-03)
 * @param privateData      private_data: a copy of the requester's private data (its length is
 *                         private_data_size)
 * @param localEpHandle    local_ep_handle: the RSP's or provider-created EP, {@code null} for a
 *                         consumer-model PSP
 */
public record CrParam(SocketAddress remoteIaAddress, long remotePortQual, byte[] privateData,
        Endpoint localEpHandle) {
    /** {@code DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR}. */
    public static final long FIELD_REMOTE_IA_ADDRESS_PTR = 0x01L;
    /** {@code DAT_CR_FIELD_REMOTE_PORT_QUAL}. */
    public static final long FIELD_REMOTE_PORT_QUAL = 0x02L;
    /** {@code DAT_CR_FIELD_PRIVATE_DATA_SIZE}. */
    public static final long FIELD_PRIVATE_DATA_SIZE = 0x04L;
    /** {@code DAT_CR_FIELD_PRIVATE_DATA}. */
    public static final long FIELD_PRIVATE_DATA = 0x08L;
    /** {@code DAT_CR_FIELD_LOCAL_EP_HANDLE}. */
    public static final long FIELD_LOCAL_EP_HANDLE = 0x10L;
    /** {@code DAT_CR_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x1FL;

    /** {@return {@code private_data_size}} */
    public int privateDataSize() {
        return privateData.length;
    }
}
