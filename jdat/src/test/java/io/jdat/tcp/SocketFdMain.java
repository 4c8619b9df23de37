package io.jdat.tcp;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The child JVM of {@link SocketFdChildTest}: on a loopback connection, prints
 * {@code MSS read=<TCP_MAXSEG or -1> chosen=<what the MULPDU is sized from>}, then fills its descriptor table
 * (so that {@code /proc/self/fd} cannot be opened) and prints {@code NEAR chosen=<...>} (the lookup probes near the
 * descriptor it found last, which needs no descriptor) and, with that hint forgotten (the directory walk),
 * {@code FULL chosen=<...> mulpdu=<...>}.
 */
public final class SocketFdMain {
    private SocketFdMain() {
    }

    public static void main(String[] args) throws IOException {
        TcpConfig config = TcpConfig.parse("127.0.0.1"); // loaded now: with the table full no class file opens
        TcpConfig.mulpduOfMss(SocketFd.estimateMss(InetAddress.getLoopbackAddress()));
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                SocketChannel ch = SocketChannel.open(ss.getLocalSocketAddress());
                Socket peer = ss.accept()) {
            int read = SocketFd.readMaxSegment((InetSocketAddress) ch.getLocalAddress(),
                    (InetSocketAddress) ch.getRemoteAddress());
            System.out.println("MSS read=" + read + " chosen=" + SocketFd.maxSegment(ch));
            List<RandomAccessFile> hog = new ArrayList<>();
            try {
                for (int i = 0; i < 1_000_000; i++) {
                    hog.add(new RandomAccessFile("/proc/self/stat", "r"));
                }
            } catch (IOException e) {
                // the table is full: EMFILE
            }
            int near = SocketFd.maxSegment(ch); // the last lookup's descriptor: probed, no descriptor needed
            SocketFd.forgetHint(); // the directory walk, which needs one
            int chosen = SocketFd.maxSegment(ch);
            int mulpdu = config.mulpduFor(ch);
            for (RandomAccessFile f : hog) {
                f.close();
            }
            System.out.println("NEAR chosen=" + near);
            System.out.println("FULL chosen=" + chosen + " mulpdu=" + mulpdu + " files=" + hog.size());
        }
    }
}
