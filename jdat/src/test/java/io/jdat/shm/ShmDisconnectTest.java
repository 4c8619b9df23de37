package io.jdat.shm;

import io.jdat.tcp.TcpDisconnectTest;
import org.junit.jupiter.api.BeforeAll;

/**
 * The disconnect suite of {@link TcpDisconnectTest} on {@code shm}: graceful and abrupt disconnects from
 * either side, outstanding reads, flushes, an IA closed under a live connection (its peer sees BROKEN),
 * disconnect while connecting, ten reconnects after {@code dat_ep_reset}.
 */
class ShmDisconnectTest extends TcpDisconnectTest {
    @BeforeAll
    static void registerShm() {
        ShmTesting.register();
    }

    @Override
    protected String ia() {
        return ShmTesting.SHM;
    }

    /** A Send completes once the peer placed it: until then it is outstanding like the read behind it. */
    @Override
    protected boolean sendCompletesWhenSent() {
        return false;
    }
}
