package io.jdat.tools.perf;

import io.jdat.Lmr;
import io.jdat.tools.cli.ToolFailure;
import java.nio.ByteBuffer;

/**
 * The connection private data of {@code jdat perf}: each side tells the other where its registered region
 * is, so the peer can RDMA into it. 32 bytes, big-endian: the magic {@code "jdatperf"} (8), a protocol
 * version (2), the role (2), the {@code rmr_context} (4), the region's address (8) and its length (8).
 * The client sends it with {@code dat_ep_connect}, the server returns its own with {@code dat_cr_accept};
 * each side verifies what it receives.
 *
 * @param role       {@link #CLIENT} or {@link #SERVER}
 * @param rmrContext the region's remote context
 * @param address    the region's first byte
 * @param length     the region's length
 */
record PeerInfo(int role, int rmrContext, long address, long length) {
    /** The private data size. */
    static final int SIZE = 32;
    /** The role of the connecting side. */
    static final int CLIENT = 1;
    /** The role of the accepting side. */
    static final int SERVER = 2;
    private static final long MAGIC = 0x6A64617470657266L; // "jdatperf"
    private static final int VERSION = 1;

    /**
     * The information of a registered region.
     *
     * @param role the sender's role
     * @param lmr  the region
     * @return its description
     */
    static PeerInfo of(int role, Lmr lmr) {
        return new PeerInfo(role, lmr.rmrContext(), lmr.registeredAddress(), lmr.registeredSize());
    }

    /** The private data bytes. */
    byte[] encode() {
        return ByteBuffer.allocate(SIZE).putLong(MAGIC).putShort((short) VERSION).putShort((short) role)
                .putInt(rmrContext).putLong(address).putLong(length).array();
    }

    /**
     * Reads and verifies the peer's private data.
     *
     * @param data         the received bytes
     * @param expectedRole the role the peer must have
     * @param minLength    the region length this run needs
     * @param from         where the bytes came from, for the message
     * @return the peer's region
     * @throws ToolFailure when the data is not what a {@code jdat perf} peer sends
     */
    static PeerInfo decode(byte[] data, int expectedRole, long minLength, String from) {
        // At least SIZE: InfiniBand and RoCE (rdma_cm over the IB CM) deliver the whole fixed-size private data
        // area of the CM message (56 bytes in a REQ, 196 in a REP), zero-padded.
        if (data.length < SIZE) {
            throw new ToolFailure(from + ": private data of " + data.length + " bytes, expected " + SIZE);
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        long magic = b.getLong();
        int version = b.getShort();
        int role = b.getShort();
        int ctx = b.getInt();
        long address = b.getLong();
        long length = b.getLong();
        if (magic != MAGIC || version != VERSION || role != expectedRole) {
            throw new ToolFailure(from + ": private data is not from a jdat perf "
                    + (expectedRole == CLIENT ? "client" : "server") + " (magic 0x" + Long.toHexString(magic)
                    + ", version " + version + ", role " + role + ")");
        }
        if (length < minLength) {
            throw new ToolFailure(from + ": peer region of " + length + " bytes, this run needs " + minLength);
        }
        return new PeerInfo(role, ctx, address, length);
    }
}
