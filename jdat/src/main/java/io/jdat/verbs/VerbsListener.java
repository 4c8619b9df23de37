package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.CM_ID_HEAD;
import static io.jdat.verbs.VerbsLayouts.RDMA_PS_TCP;
import static io.jdat.verbs.VerbsTransport.call;
import static java.lang.foreign.ValueLayout.ADDRESS;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.spi.EndpointResources;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.IncomingRequest;
import io.jdat.spi.PassiveHandler;
import io.jdat.spi.Transport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A listening qualifier ({@code dat_psp_create}, {@code dat_rsp_create}): an rdma_cm id bound to the IA's
 * address and the qualifier as its port ({@code rdma_bind_addr}, {@code rdma_listen}). Each
 * {@code RDMA_CM_EVENT_CONNECT_REQUEST} becomes an {@link IncomingRequest} on a new id.
 */
final class VerbsListener implements Transport.Listener, VerbsTransport.CmHandler {
    /** Backlog of {@code rdma_listen}. */
    static final int BACKLOG = 64;
    /** Private data of a consumer's reject, so a jdat requester reports PEER_REJECTED. */
    static final byte[] REJECT_MARK = {'j', 'd', 'a', 't', '-', 'r', 'e', 'j'};
    /** Private data of a provider's refusal (nobody could take it): NON_PEER_REJECTED. */
    static final byte[] REFUSE_MARK = {'j', 'd', 'a', 't', '-', 'n', 'o', 'p'};

    private final VerbsTransport t;
    private final MemorySegment id;
    private final long connQual;
    private final IncomingHandler handler;
    private boolean closed;

    VerbsListener(VerbsTransport t, long qual, boolean any, IncomingHandler handler) {
        this.t = t;
        this.handler = handler;
        if (!any && (qual <= 0 || qual > 0xFFFF)) {
            throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE,
                    "a verbs qualifier is an rdma_cm port, 1..65535: " + qual);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            int rc = call(() -> (int) t.v.createId.invokeExact(t.channel, out, MemorySegment.NULL, RDMA_PS_TCP));
            if (rc != 0) {
                throw VerbsTransport.device("rdma_create_id failed");
            }
            id = out.get(ADDRESS, 0).reinterpret(CM_ID_HEAD.byteSize());
            MemorySegment sa = VerbsTransport.sockaddr(a, t.config.address(), any ? 0 : (int) qual);
            rc = call(() -> (int) t.v.bindAddr.invokeExact(id, sa));
            if (rc != 0) {
                call(() -> (int) t.v.destroyId.invokeExact(id));
                throw new DatException(DatReturnType.CONN_QUAL_IN_USE, "rdma_bind_addr to port " + qual
                        + " failed (in use)");
            }
            rc = call(() -> (int) t.v.listen.invokeExact(id, BACKLOG));
            if (rc != 0) {
                call(() -> (int) t.v.destroyId.invokeExact(id));
                throw new DatException(DatReturnType.CONN_QUAL_IN_USE, "rdma_listen on port " + qual + " failed");
            }
        }
        connQual = any ? Short.toUnsignedInt(Short.reverseBytes(call(() -> (short) t.v.getSrcPort.invokeExact(id)))) : qual;
        t.handlers.put(id.address(), this);
    }

    @Override
    public long connQual() {
        return connQual;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        t.handlers.remove(id.address());
        call(() -> (int) t.v.destroyId.invokeExact(id));
    }

    @Override
    public void onCmEvent(VerbsTransport.CmEvent e) {
        if (e.type() != VerbsTransport.CmEvents.CONNECT_REQUEST) {
            return;
        }
        MemorySegment nid = MemorySegment.ofAddress(e.id()).reinterpret(CM_ID_HEAD.byteSize());
        MemorySegment dst = nid.asSlice(VerbsLayouts.offset(CM_ID_HEAD, "dst_addr"), 16);
        InetSocketAddress from = VerbsTransport.fromSockaddr(dst);
        Request r = new Request(nid, from == null ? new InetSocketAddress(0) : from, e.privateData(),
                e.responderResources(), e.initiatorDepth());
        boolean queued;
        synchronized (this) {
            queued = !closed && handler.onRequest(r);
        }
        if (!queued) {
            r.refuse();
        }
    }

    /** A connection request on its new rdma_cm id. */
    final class Request implements IncomingRequest {
        private final MemorySegment id;
        private final InetSocketAddress from;
        private final Fields fields;
        private final int peerIrd;
        private final int peerOrd;
        private boolean answered;

        Request(MemorySegment id, InetSocketAddress from, byte[] privateData, int peerIrd, int peerOrd) {
            this.id = id;
            this.from = from;
            this.fields = Fields.fromInet(from, connQual, privateData);
            this.peerIrd = peerIrd;
            this.peerOrd = peerOrd;
        }

        @Override
        public Fields fields() {
            return fields;
        }

        private synchronized boolean answer() {
            if (answered) {
                return false;
            }
            answered = true;
            return true;
        }

        @Override
        public void accept(PassiveHandler passive, byte[] pd, int rdmaReadIn, int rdmaReadOut) {
            if (answer()) {
                reject(REFUSE_MARK);
                t.execute(passive::acceptFailed);
            }
        }

        @Override
        public void accept(PassiveHandler passive, byte[] pd, int rdmaReadIn, int rdmaReadOut,
                EndpointResources resources) {
            if (!answer()) {
                return;
            }
            VerbsConnection.accept(t, id, from, connQual, passive, pd, Math.min(rdmaReadIn, peerOrd),
                    Math.min(rdmaReadOut, peerIrd), resources);
        }

        @Override
        public void reject() {
            if (answer()) {
                reject(REJECT_MARK);
            }
        }

        @Override
        public void refuse() {
            if (answer()) {
                reject(REFUSE_MARK);
            }
        }

        private void reject(byte[] mark) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment m = a.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, mark);
                call(() -> (int) t.v.reject.invokeExact(id, m, (byte) mark.length));
            }
            // rdma_destroy_id waits for this id's acknowledged events only: safe on any thread.
            call(() -> (int) t.v.destroyId.invokeExact(id));
        }
    }
}
