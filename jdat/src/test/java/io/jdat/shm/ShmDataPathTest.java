package io.jdat.shm;

import io.jdat.tcp.TcpDataPathTest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;

/**
 * The provider-neutral data-path suite of {@link TcpDataPathTest} (every size from 0 B to 1 MiB, gather and
 * scatter lists, sentinels around every target, mixed back-to-back requests, RMR binds in order, solicited
 * waits, 16 endpoints) on {@code shm}: its defaults (inline and cross-memory attach), without cross-memory
 * attach (fragments and staging), and with tiny rings (everything in many pieces, rings full all the time).
 */
class ShmDataPathTest extends TcpDataPathTest {
    @BeforeAll
    static void registerShm() {
        ShmTesting.register();
    }

    /** The IAs the inherited tests run on (hides the tcp ones). */
    public static Stream<String> ias() {
        return Stream.of(ShmTesting.SHM, ShmTesting.SHM_BOUNCE, ShmTesting.SHM_SMALL);
    }
}
