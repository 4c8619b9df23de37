package io.jdat.tcp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * {@code recv(2)} and {@code send(2)} on one connection's socket, called through the FFM {@link Linker} on its
 * descriptor ({@link SocketFd#descriptor}): the small reads and writes of the data path without NIO's
 * per-call bookkeeping (two locks, the blocking-mode checks, a JNI transition), which a busy-polling consumer
 * pays on every empty read (issue 18). The calls are bound as critical ({@link Linker.Option#critical}): a
 * non-blocking {@code recv}/{@code send} returns at once, so the thread need not leave the Java state.
 *
 * <p>Safety: the descriptor is a number, so it must not be used once the channel is closed (the number may
 * name another file by then). The receive path calls {@link #receive} only under its lock while running and
 * the transmit path {@link #send} only under its lock while open; {@link TcpConnection#abort} stops both
 * before it closes the channel.
 *
 * <p>The system property {@code jdat.tcp.nio=true} turns them off (the channel for everything), for A/B runs.
 *
 * <p>Each path has its own {@code errno} capture area ({@link Path}), used under that path's lock: nothing is
 * allocated per call. Both pass {@code MSG_DONTWAIT} (a critical call must never block), and {@code send} passes
 * {@code MSG_NOSIGNAL}: a peer's reset is an {@link IOException}, not
 * a {@code SIGPIPE}.
 */
final class DirectSocket {
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EPIPE = 32;
    private static final int ECONNRESET = 104;
    private static final int MSG_NOSIGNAL = 0x4000;
    /** Never block, whatever the socket's mode: a critical call must not (it holds up the JVM's safepoints). */
    private static final int MSG_DONTWAIT = 0x40;

    /** The receive path's calls. */
    final Path rx;
    /** The transmit path's calls. */
    final Path tx;

    private DirectSocket(int fd) {
        this.rx = new Path(fd);
        this.tx = new Path(fd);
    }

    /**
     * Direct calls on {@code ch}'s socket, or null when they are not available (not Linux, no native access
     * for this module, or the descriptor was not found): the caller then uses the channel.
     */
    static DirectSocket of(SocketChannel ch) {
        if (Handles.RECV == null || Boolean.getBoolean("jdat.tcp.nio")) {
            return null;
        }
        int fd = SocketFd.descriptor(ch);
        return fd < 0 ? null : new DirectSocket(fd);
    }

    /** The calls of one path (receive or transmit), with its {@code errno} capture area; used under its lock. */
    static final class Path {
        private final int fd;
        private final MemorySegment state = Arena.ofAuto().allocate(Handles.STATE);
        /** {@code getsockopt}'s value and length ({@link #maxSegment}). */
        private final MemorySegment optValue = Arena.ofAuto().allocate(ValueLayout.JAVA_INT);
        private final MemorySegment optLength = Arena.ofAuto().allocate(ValueLayout.JAVA_INT);

        private Path(int fd) {
            this.fd = fd;
        }

        /**
         * Reads what the socket holds, up to {@code length} bytes, into {@code seg} at {@code offset}.
         *
         * @return the bytes read, 0 when none is there now, -1 at the end of the stream
         * @throws IOException when the connection failed (reset)
         */
        long receive(MemorySegment seg, long offset, long length) throws IOException {
            long at = address(seg, offset, length);
            for (;;) {
                long n;
                try {
                    n = (long) Handles.RECV.invokeExact(state, fd, at, length, MSG_DONTWAIT);
                } catch (Throwable t) {
                    throw new IOException("recv failed", t);
                }
                if (n > 0) {
                    return n;
                }
                if (n == 0) {
                    return length == 0 ? 0 : -1;
                }
                int e = errno();
                if (e == EAGAIN) {
                    return 0;
                }
                if (e != EINTR) {
                    throw failure("recv", e);
                }
            }
        }

        /**
         * Writes up to {@code length} bytes of {@code seg} from {@code offset}.
         *
         * @return the bytes the socket took, 0 when it is full
         * @throws IOException when the connection failed (reset, or closed by the peer)
         */
        long send(MemorySegment seg, long offset, long length) throws IOException {
            long at = address(seg, offset, length);
            for (;;) {
                long n;
                try {
                    n = (long) Handles.SEND.invokeExact(state, fd, at, length, MSG_NOSIGNAL | MSG_DONTWAIT);
                } catch (Throwable t) {
                    throw new IOException("send failed", t);
                }
                if (n >= 0) {
                    return n;
                }
                int e = errno();
                if (e == EAGAIN) {
                    return 0;
                }
                if (e != EINTR) {
                    throw failure("send", e);
                }
            }
        }

        /**
         * The address of {@code seg}'s bytes [offset, offset + length), bounds-checked. An address, not a slice:
         * nothing is allocated per call (the caller's fields keep the native segment alive).
         */
        private static long address(MemorySegment seg, long offset, long length) {
            java.util.Objects.checkFromIndexSize(offset, length, seg.byteSize());
            if (!seg.isNative()) {
                throw new IllegalArgumentException("not native memory");
            }
            return seg.address() + offset;
        }

        /**
         * The connection's effective MSS now ({@code TCP_MAXSEG}, {@link SocketFd#maxSegment(int, MemorySegment,
         * MemorySegment)}), read into this path's area.
         *
         * @return the MSS, or -1 when it cannot be read
         */
        int maxSegment() {
            return SocketFd.maxSegment(fd, optValue, optLength);
        }

        private int errno() {
            return (int) Handles.ERRNO.get(state, 0L);
        }
    }

    /** The exception of a failed call, worded as NIO words the common ones. */
    static IOException failure(String call, int errno) {
        return new IOException(switch (errno) {
            case ECONNRESET -> "Connection reset by peer";
            case EPIPE -> "Broken pipe";
            default -> call + " failed: errno " + errno;
        });
    }

    /** The bound functions, or nulls where they cannot be bound. */
    private static final class Handles {
        static final MethodHandle RECV;
        static final MethodHandle SEND;
        static final StructLayout STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

        static {
            MethodHandle r = null;
            MethodHandle s = null;
            try {
                String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
                if (os.startsWith("linux") && ValueLayout.ADDRESS.byteSize() == 8 && DirectSocket.class.getModule().isNativeAccessEnabled()) {
                    Linker linker = Linker.nativeLinker();
                    SymbolLookup libc = linker.defaultLookup();
                    // ssize_t recv(int, void *, size_t, int), send likewise; the buffer passed as its address
                    // (a 64-bit integer, as the x86-64 and AArch64 ABIs pass a pointer): no segment per call
                    FunctionDescriptor d = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
                    var rf = libc.find("recv");
                    var sf = libc.find("send");
                    if (rf.isPresent() && sf.isPresent()) {
                        Linker.Option errno = Linker.Option.captureCallState("errno");
                        Linker.Option critical = Linker.Option.critical(false);
                        r = linker.downcallHandle(rf.get(), d, errno, critical);
                        s = linker.downcallHandle(sf.get(), d, errno, critical);
                    }
                }
            } catch (RuntimeException | LinkageError e) {
                r = s = null; // IllegalCallerException under --illegal-native-access=deny, and the like
            }
            RECV = r;
            SEND = s;
        }

        private Handles() {
        }
    }
}
