package io.jdat.shm;

import io.jdat.spi.PassiveHandler;
import io.jdat.transport.StreamRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ProtocolException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The passive side of one connection setup: reads the requester's {@link CmMessage.Request} (within
 * {@link #REQUEST_TIMEOUT_MILLIS}), checks that the requester runs as this user and that its connection file is
 * an owner-only file of a live instance under the same base directory, maps it, and offers the request to the
 * service point. Then exactly one of {@link #accept}, {@link #reject}, {@link #refuse} answers it.
 */
final class ShmPassive extends StreamRequest<ShmTransport, ShmListener> {
    /** How long a requester may take to send its request. */
    static final long REQUEST_TIMEOUT_MILLIS = 5000;
    /** How long the requester may take to confirm an accept. */
    static final long READY_TIMEOUT_MILLIS = 10_000;

    private CmMessage.Request request;
    private Arena arena;
    private MemorySegment file;
    private MappedFile mapped;

    ShmPassive(ShmTransport transport, ShmListener listener, SocketChannel ch) {
        super(transport, listener, ch);
    }

    /** Runs on a virtual thread: reads and checks the request, then offers it. */
    void handshake() {
        ScheduledFuture<?> deadline = ShmTransport.TIMER.schedule(this::abort, REQUEST_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
        try {
            CmMessage.Frame f = CmMessage.read(ch);
            if (f.type() != CmMessage.REQUEST) {
                throw new ProtocolException("expected a connection request, got message " + f.type());
            }
            request = CmMessage.parseRequest(f.payload());
            checkPeerUser();
            mapFile();
        } catch (IOException | RuntimeException e) {
            deadline.cancel(false);
            transport.trace(this, "request dropped: " + e);
            // an unreadable request gets no answer but the closed socket: the requester sees NON_PEER_REJECTED
            abort();
            return;
        }
        deadline.cancel(false);
        arrived(new Fields(UnixDomainSocketAddress.of(request.activeDir()), request.portQual(), listener.connQual(),
                request.privateData()));
        if (!listener.isOpen() || !listener.handler().onRequest(this)) {
            refuse();
        }
    }

    private void checkPeerUser() throws IOException {
        UserPrincipal peer;
        try {
            peer = ch.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED).user();
        } catch (UnsupportedOperationException e) {
            return; // not Linux: the owner-only directory is the only gate
        }
        UserPrincipal me = Files.getOwner(transport.instance.directory(), LinkOption.NOFOLLOW_LINKS);
        if (!peer.getName().equals(me.getName())) {
            throw new ProtocolException("requester runs as " + peer.getName() + ", not " + me.getName());
        }
    }

    private void mapFile() throws IOException {
        Path base = transport.files.baseDirectory();
        Path dir = Path.of(request.activeDir()).toAbsolutePath().normalize();
        Path f = Path.of(request.file()).toAbsolutePath().normalize();
        if (!dir.getParent().equals(base) || !f.getParent().equals(dir)
                || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) || !ShmFiles.isLive(dir)) {
            throw new ProtocolException("connection file " + f + " is not a file of a live instance under " + base);
        }
        if (!RingDescriptor.isValidCapacity(request.ringCapacity())) {
            throw new ProtocolException("ring capacity " + request.ringCapacity());
        }
        arena = ChannelArena.ofShared();
        try {
            mapped = RingFile.openWatched(f, arena);
            file = mapped.segment();
            String bad = ConnectionLayout.validate(file, request.ringCapacity(), request.staging());
            if (bad != null) {
                throw new ProtocolException(bad);
            }
        } catch (IOException | RuntimeException e) {
            arena.close();
            arena = null;
            throw e;
        }
    }

    @Override
    public void accept(PassiveHandler passive, byte[] privateData, int rdmaReadIn, int rdmaReadOut) {
        if (!claimAnswer()) {
            return;
        }
        Thread.ofVirtual().name("jdat-shm-accept").start(() -> completeAccept(passive, privateData, rdmaReadIn,
                rdmaReadOut));
    }

    private void completeAccept(PassiveHandler passive, byte[] pd, int ird, int ord) {
        ShmConnection conn = null;
        ScheduledFuture<?> deadline = null;
        try {
            java.nio.file.Path peerMemory = transport.peerMemoryDir(request.memoryDir());
            int mine = (transport.canReach(request.pid(), request.probeAddress()) ? CmMessage.CAN_REACH : 0)
                    | (peerMemory != null ? CmMessage.CAN_MAP : 0);
            conn = new ShmConnection(transport, false, ch, arena, mapped, request.ringCapacity(), request.staging(),
                    request.pid(), listener.connQual(), UnixDomainSocketAddress.of(request.activeDir()),
                    request.portQual(), transport.config.inline());
            arena = null; // the connection owns the mapping now
            CmMessage.writeAccept(ch, new CmMessage.Accept(ProcessHandle.current().pid(), ird, ord,
                    transport.probe.address(), mine, transport.memoryDir, pd == null ? new byte[0] : pd));
            deadline = ShmTransport.TIMER.schedule(this::closeStream, READY_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            CmMessage.Frame f = CmMessage.read(ch);
            deadline.cancel(false);
            if (f.type() != CmMessage.READY || f.payload().remaining() != 1) {
                throw new ProtocolException("the requester did not confirm (message " + f.type() + ")");
            }
            conn.setPeer(f.payload().get(), peerMemory);
        } catch (IOException | RingCorruptException | RuntimeException e) {
            if (deadline != null) {
                deadline.cancel(false);
            }
            transport.trace(this, "accept failed: " + e);
            if (conn != null) {
                conn.abandon();
            }
            abort();
            passive.acceptFailed();
            return;
        } finally {
            leave();
        }
        conn.start(passive.established(conn));
    }

    @Override
    public void reject() {
        answer(CmMessage.REJECT);
    }

    @Override
    public void refuse() {
        answer(CmMessage.REFUSE);
    }

    private void answer(int type) {
        if (!claimAnswer()) {
            return;
        }
        try {
            CmMessage.writeEmpty(ch, type);
        } catch (IOException e) {
            // the requester is gone: nobody to tell
        }
        abort();
    }

    /** Drops the request: closes the socket and the mapping (the transport closes, or the request was bad). */
    @Override
    protected void abort() {
        super.abort();
        synchronized (this) {
            if (arena != null) {
                arena.close();
                arena = null;
            }
        }
    }

    @Override
    public String toString() {
        return "shm request to " + listener + (request == null ? "" : " from " + request.activeDir());
    }
}
