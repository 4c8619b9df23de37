package io.jdat.shm;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.ChannelSink;
import io.jdat.transport.OutgoingAttempt;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * One outgoing connection attempt, run on a virtual thread: finds the peer's listener, creates and formats the
 * connection file in this IA's instance directory, sends the request and waits for the answer.
 *
 * <p>Outcomes: a peer instance directory that is missing or whose owner is dead is {@code UNREACHABLE}; a
 * live instance with nobody listening on the qualifier, a refusal or a requester-side failure is
 * {@code NON_PEER_REJECTED}; a consumer's reject is {@code PEER_REJECTED}. Timeouts are the core's: it
 * cancels the attempt ({@link #cancel}), which closes the socket.
 */
final class ShmActive extends OutgoingAttempt {
    /**
     * Tests only: keep the connection file's name after the handshake (normally removed once both sides have
     * it mapped), so that a test can map it a third time and play a hostile peer.
     */
    static volatile boolean keepConnectionFiles;

    private final ShmTransport transport;
    private final Path peerDir;
    private final long qual;
    private final byte[] privateData;
    private final int ird;
    private final int ord;
    private final ActiveHandler handler;
    private volatile SocketChannel ch;

    private ShmActive(ShmTransport transport, Path peerDir, long qual, byte[] privateData, int ird, int ord,
            ActiveHandler handler) {
        super(transport, transport.nextPort());
        this.transport = transport;
        this.peerDir = peerDir.toAbsolutePath().normalize();
        this.qual = qual;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        this.ird = ird;
        this.ord = ord;
        this.handler = handler;
    }

    static ShmActive start(ShmTransport transport, Path peerDir, long qual, byte[] privateData, int ird, int ord,
            ActiveHandler handler) {
        ShmActive a = new ShmActive(transport, peerDir, qual, privateData, ird, ord, handler);
        a.launch("jdat-shm-connect", a::run);
        return a;
    }

    @Override
    protected void cancelled() {
        closeSocket();
    }

    private void run() {
        if (!Files.isDirectory(peerDir, LinkOption.NOFOLLOW_LINKS) || !ShmFiles.isLive(peerDir)) {
            if (finish()) {
                handler.unreachable();
            }
            return;
        }
        SocketChannel s;
        try {
            s = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch = s;
            if (!pending()) {
                closeSocket();
                return;
            }
            s.connect(UnixDomainSocketAddress.of(ShmTransport.listenerPath(peerDir, qual)));
        } catch (NoSuchFileException | SocketException e) {
            closeSocket();
            boolean live = ShmFiles.isLive(peerDir);
            if (finish()) {
                if (live) {
                    handler.nonPeerRejected();
                } else {
                    handler.unreachable();
                }
            }
            return;
        } catch (IOException e) {
            closeSocket();
            if (finish()) {
                handler.nonPeerRejected();
            }
            return;
        }
        handshake(s);
    }

    private void handshake(SocketChannel s) {
        String name = "c-" + localPortQual();
        Path path = transport.instance.path(name);
        int ring = transport.config.ringCapacity();
        int staging = transport.config.staging();
        Arena arena = ChannelArena.ofShared();
        ShmConnection conn = null;
        try {
            // the channel stays open with the arena: a truncation by the peer is detectable (MappedFile)
            MappedFile mapped = MappedFile.map(
                    transport.instance.createFile(name, ConnectionLayout.fileLength(ring, staging)), arena);
            MemorySegment file = mapped.segment();
            ConnectionLayout.format(file, ring, staging);
            CmMessage.writeRequest(s, new CmMessage.Request(ProcessHandle.current().pid(), localPortQual(), ird, ord,
                    transport.probe.address(), transport.instance.directory().toString(), path.toString(), ring,
                    staging, transport.memoryDir, privateData));
            CmMessage.Frame f = CmMessage.read(s);
            switch (f.type()) {
                case CmMessage.REJECT -> {
                    fail(arena, path);
                    if (finish()) {
                        handler.peerRejected();
                    }
                    return;
                }
                case CmMessage.REFUSE -> {
                    fail(arena, path);
                    if (finish()) {
                        handler.nonPeerRejected();
                    }
                    return;
                }
                case CmMessage.ACCEPT -> {
                }
                default -> throw new ProtocolException("unexpected answer " + f.type());
            }
            CmMessage.Accept a = CmMessage.parseAccept(f.payload());
            java.nio.file.Path peerMemory = transport.peerMemoryDir(a.memoryDir());
            int mine = (transport.canReach(a.pid(), a.probeAddress()) ? CmMessage.CAN_REACH : 0)
                    | (peerMemory != null ? CmMessage.CAN_MAP : 0);
            conn = new ShmConnection(transport, true, s, arena, mapped, ring, staging, a.pid(), localPortQual(),
                    UnixDomainSocketAddress.of(peerDir), qual, transport.config.inline());
            conn.setPeer(a.abilities(), peerMemory);
            if (!finish()) {
                CmMessage.writeEmpty(s, CmMessage.NACK); // cancelled meanwhile: the acceptor fails (CRA-07)
                conn.abandon();
                deleteQuietly(path);
                return;
            }
            ChannelSink sink = handler.established(conn, a.privateData());
            if (sink == null) {
                CmMessage.writeEmpty(s, CmMessage.NACK);
                conn.abandon();
                deleteQuietly(path);
                return;
            }
            CmMessage.writeReady(s, mine);
            if (!keepConnectionFiles) {
                deleteQuietly(path); // both sides have it mapped: the name is no longer needed
            }
            conn.start(sink);
        } catch (IOException | RingCorruptException | RuntimeException e) {
            transport.trace(this, "connect failed: " + e);
            if (conn != null) {
                conn.abandon();
            } else {
                arena.close();
            }
            deleteQuietly(path);
            closeSocket();
            if (finish()) {
                handler.nonPeerRejected();
            }
        }
    }

    private void fail(Arena arena, Path path) {
        closeSocket();
        arena.close();
        deleteQuietly(path);
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // the instance directory goes with the IA
        }
    }

    private void closeSocket() {
        SocketChannel s = ch;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closed either way
            }
        }
    }

    @Override
    public String toString() {
        return "shm connect to " + peerDir + " qualifier " + qual;
    }
}
