package io.jdat.tcp;

import io.jdat.transport.LinuxLibc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The Linux TCP socket option the JDK does not expose and RFC 5044 needs: {@code TCP_MAXSEG}, the
 * connection's effective MSS, read with {@code getsockopt(2)} through the FFM {@link Linker} on the socket's
 * file descriptor.
 *
 * <p>A {@link SocketChannel} does not give its descriptor away, so {@link #find} looks for it: it takes the one
 * socket whose {@code getpeername}/{@code getsockname} are the channel's remote and local addresses (a TCP
 * 4-tuple names one connection). It probes the descriptors around the last one it found first, outwards, at
 * most {@value #NEAR} each way: the kernel gives a new socket the lowest free number, so in a burst of
 * connections the next one is a few numbers from the last (a lookup costs a few system calls whatever the
 * number of open descriptors). Only when none of those matches does it walk {@code /proc/self/fd}, one probe
 * per open descriptor (with 2000 descriptors open that walk cost milliseconds per connection, most of a
 * burst's set-up time, issue 18). This runs once per connection, at establishment, and only reads: a
 * descriptor closed or reused meanwhile can at worst not match.
 *
 * <p>{@link #descriptor} hands the number found to {@link DirectSocket}, the data path's direct {@code recv} and
 * {@code send}.
 *
 * <p>Everything here degrades: off Linux, without native access for this module ({@code
 * --enable-native-access}; no warning is printed then), or when the search fails, {@link #maxSegment} answers
 * an estimate from the interface MTU ({@link #estimateMss}).
 */
final class SocketFd {
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_MAXSEG = 2;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    /** sockaddr_storage. */
    private static final int SOCKADDR = 128;
    /** IPv4 20 + TCP 20 + the timestamp option 12 (Linux sends it by default). */
    private static final int V4_OVERHEAD = 52;
    private static final int V6_OVERHEAD = 72;
    /** Descriptors probed on each side of the last one found before the directory walk. */
    static final int NEAR = 128;
    /** The descriptor found last, -1 for none: where the next search starts. Racy by design (only a hint). */
    private static volatile int hint = -1;
    /** Descriptors probed (near the hint and in walks), all lookups together: a diagnostic for tests, racy. */
    static long probes;

    private SocketFd() {
    }

    /** True when {@code getsockopt} and friends are bound (Linux, native access granted). */
    static boolean available() {
        return Handles.GETSOCKOPT != null;
    }

    /**
     * The effective MSS of {@code ch}'s connection: {@code TCP_MAXSEG} when it can be read, else the estimate
     * of {@link #estimateMss}.
     */
    static int maxSegment(SocketChannel ch) {
        try {
            InetSocketAddress local = (InetSocketAddress) ch.getLocalAddress();
            InetSocketAddress remote = (InetSocketAddress) ch.getRemoteAddress();
            int mss = readMaxSegment(local, remote);
            return mss > 0 ? mss : estimateMss(local.getAddress());
        } catch (IOException | RuntimeException e) {
            return TcpConfig.ETHERNET_MSS;
        }
    }

    /**
     * The descriptor of {@code ch}'s socket, for {@link DirectSocket}; -1 when it cannot be found (or the calls
     * are not bound). The channel must stay open while the number is used: once it is closed, the number may
     * name another file.
     */
    static int descriptor(SocketChannel ch) {
        if (!available()) {
            return -1;
        }
        try (Arena a = Arena.ofConfined()) {
            return find(a, (InetSocketAddress) ch.getLocalAddress(), (InetSocketAddress) ch.getRemoteAddress());
        } catch (Throwable t) {
            return -1;
        }
    }

    /** {@code TCP_MAXSEG} of the connection {@code local}-{@code remote}, or -1. */
    static int readMaxSegment(InetSocketAddress local, InetSocketAddress remote) {
        if (!available()) {
            return -1;
        }
        try (Arena a = Arena.ofConfined()) {
            int fd = find(a, local, remote);
            if (fd < 0) {
                return -1;
            }
            MemorySegment val = a.allocate(ValueLayout.JAVA_INT);
            MemorySegment len = a.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, 4);
            int r = (int) Handles.GETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_MAXSEG, val, len);
            return r == 0 ? val.get(ValueLayout.JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * {@code TCP_MAXSEG} of the socket {@code fd} now, read into {@code value} with {@code length} (4 bytes
     * each, allocated by the caller once): nothing allocated per call, for a transmit path that follows its
     * connection's MSS as it grows.
     *
     * @return the MSS, or -1 when it cannot be read
     */
    static int maxSegment(int fd, MemorySegment value, MemorySegment length) {
        if (!available()) {
            return -1;
        }
        try {
            length.set(ValueLayout.JAVA_INT, 0, 4);
            int r = (int) Handles.GETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_MAXSEG, value, length);
            return r == 0 ? value.get(ValueLayout.JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * The MSS a connection over the interface that holds {@code local} gets at most: its MTU less the IP and
     * TCP headers and the timestamp option; {@link TcpConfig#ETHERNET_MSS} when unknown.
     */
    static int estimateMss(InetAddress local) {
        try {
            NetworkInterface ni = NetworkInterface.getByInetAddress(local);
            if (ni == null && local.isLoopbackAddress()) {
                ni = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
            }
            int mtu = ni == null ? -1 : ni.getMTU();
            if (mtu > 0) {
                return Math.max(mtu - (local instanceof Inet4Address ? V4_OVERHEAD : V6_OVERHEAD), 536);
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return TcpConfig.ETHERNET_MSS;
    }

    /** The descriptor of the TCP socket connecting {@code local} to {@code remote}, or -1. */
    private static int find(Arena a, InetSocketAddress local, InetSocketAddress remote) throws Throwable {
        byte[] wantLocal = normalized(local.getAddress());
        byte[] wantRemote = normalized(remote.getAddress());
        MemorySegment addr = a.allocate(SOCKADDR, 8);
        MemorySegment len = a.allocate(ValueLayout.JAVA_INT);
        int h = hint;
        if (h >= 0) {
            // h + 1, h, h + 2, h - 1, ...: a new socket most often takes the number after the last one
            for (int d = 0; d <= NEAR; d++) {
                int up = h + 1 + d;
                if (is(up, addr, len, local, remote, wantLocal, wantRemote)) {
                    hint = up;
                    return up;
                }
                int down = h - d;
                if (down >= 0 && is(down, addr, len, local, remote, wantLocal, wantRemote)) {
                    hint = down;
                    return down;
                }
            }
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path p : fds) {
                int fd;
                try {
                    fd = Integer.parseInt(p.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (is(fd, addr, len, local, remote, wantLocal, wantRemote)) {
                    hint = fd;
                    return fd;
                }
            }
        }
        return -1;
    }

    /** Forgets where the last lookup found its socket (tests: the next lookup walks the directory). */
    static void forgetHint() {
        hint = -1;
    }

    /** True when descriptor {@code fd} is the TCP socket connecting {@code local} to {@code remote}. */
    private static boolean is(int fd, MemorySegment addr, MemorySegment len, InetSocketAddress local,
            InetSocketAddress remote, byte[] wantLocal, byte[] wantRemote) throws Throwable {
        probes++;
        len.set(ValueLayout.JAVA_INT, 0, SOCKADDR);
        if ((int) Handles.GETPEERNAME.invokeExact(fd, addr, len) != 0 || !matches(addr, remote.getPort(), wantRemote)) {
            return false; // not a socket, not connected, or another peer (a descriptor above the table's end: EBADF)
        }
        len.set(ValueLayout.JAVA_INT, 0, SOCKADDR);
        return (int) Handles.GETSOCKNAME.invokeExact(fd, addr, len) == 0 && matches(addr, local.getPort(), wantLocal);
    }

    /** True when the sockaddr in {@code sa} is {@code port} at {@code want} (16 bytes, IPv4 mapped). */
    private static boolean matches(MemorySegment sa, int port, byte[] want) {
        int family = sa.get(ValueLayout.JAVA_SHORT, 0);
        int p = ((sa.get(ValueLayout.JAVA_BYTE, 2) & 0xFF) << 8) | (sa.get(ValueLayout.JAVA_BYTE, 3) & 0xFF);
        if (p != port) {
            return false;
        }
        byte[] got = new byte[16];
        if (family == AF_INET) {
            got[10] = got[11] = (byte) 0xFF;
            MemorySegment.copy(sa, ValueLayout.JAVA_BYTE, 4, got, 12, 4);
        } else if (family == AF_INET6) {
            MemorySegment.copy(sa, ValueLayout.JAVA_BYTE, 8, got, 0, 16);
        } else {
            return false;
        }
        return Arrays.equals(got, want);
    }

    /** An address as 16 bytes, IPv4 as IPv4-mapped IPv6. */
    private static byte[] normalized(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 16) {
            return b;
        }
        byte[] m = new byte[16];
        m[10] = m[11] = (byte) 0xFF;
        System.arraycopy(b, 0, m, 12, 4);
        return m;
    }

    /** The bound functions, or nulls where they cannot be bound. */
    private static final class Handles {
        static final MethodHandle GETSOCKOPT;
        static final MethodHandle GETSOCKNAME;
        static final MethodHandle GETPEERNAME;

        static {
            MethodHandle[] h = null;
            try {
                if (SocketFd.class.getModule().isNativeAccessEnabled()) {
                    // int getsockopt(int, int, int, void *, socklen_t *)
                    FunctionDescriptor opt = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
                    // int getsockname(int, struct sockaddr *, socklen_t *), getpeername likewise
                    FunctionDescriptor name = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.ADDRESS, ValueLayout.ADDRESS);
                    h = LinuxLibc.bind(new String[] {"getsockopt", "getsockname", "getpeername"},
                            new FunctionDescriptor[] {opt, name, name});
                }
            } catch (RuntimeException | LinkageError e) {
                h = null; // IllegalCallerException under --illegal-native-access=deny, and the like
            }
            GETSOCKOPT = h == null ? null : h[0];
            GETSOCKNAME = h == null ? null : h[1];
            GETPEERNAME = h == null ? null : h[2];
        }

        private Handles() {
        }
    }
}
