package io.jdat.shm;

import io.jdat.tcp.TcpCrossProcessTest;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.BeforeAll;

/**
 * The two-JVM suite of {@link TcpCrossProcessTest} on {@code shm}: 8 EPs at once with every DTO type both
 * ways and every byte checked (private data, 64 B / 4 KiB / 1 MiB sends, RDMA Write, RDMA Read), roles
 * reversed without cross-memory attach (fragments and staging between processes), and a child killed with
 * SIGKILL mid-stream: BROKEN on every EP here and every DTO completed within the bound, then a fresh IA and
 * child work. The peer's death is seen through its Unix domain socket, which the kernel closes.
 */
class ShmCrossProcessTest extends TcpCrossProcessTest {
    @BeforeAll
    static void registerShm() {
        ShmTesting.register();
    }

    @Override
    protected String ia() {
        return ShmTesting.SHM;
    }

    @Override
    protected String iaVariant() {
        return ShmTesting.SHM_SMALL;
    }

    @Override
    protected String rnrTimeoutProperty() {
        return "jdat.shm.rnrTimeoutMillis";
    }

    @Override
    protected String addressOf(SocketAddress iaAddress) {
        return ((UnixDomainSocketAddress) iaAddress).getPath().toString();
    }
}
