package io.jdat.conformance;

import io.jdat.shm.ShmTesting;
import io.jdat.tcp.TcpTesting;
import io.jdat.verbs.VerbsTesting;
import java.util.List;
import java.util.stream.Stream;

/**
 * The IAs the conformance suite runs on: every transport, in the configurations that take different paths
 * through it. A test marked {@link EveryTransport} runs once for each. <b>A new transport joins the whole suite
 * with one line here</b> (its IA name, how its tests register it, and its traits).
 */
public final class Transports {
    /** One line per transport configuration. */
    private static final List<IaUnderTest> ALL = Stream.concat(Stream.of(
            // mem: one JVM, the reference for every rule the core implements
            new IaUnderTest("mem", "mem", false, () -> { }),
            // tcp (iWARP over loopback): plain, CRC32c, 100-byte FPDUs (every message many FPDUs), MPA revision 1
            new IaUnderTest(TcpTesting.LO, "tcp", true, TcpTesting::register),
            new IaUnderTest(TcpTesting.LO_CRC, "tcp", true, TcpTesting::register),
            new IaUnderTest(TcpTesting.LO_SMALL, "tcp", true, TcpTesting::register),
            new IaUnderTest(TcpTesting.LO_REV1, "tcp", true, TcpTesting::register),
            // shm: inline and cross-memory attach; without cross-memory attach (fragments, staging); tiny rings
            new IaUnderTest(ShmTesting.SHM, "shm", false, ShmTesting::register),
            new IaUnderTest(ShmTesting.SHM_BOUNCE, "shm", false, ShmTesting::register),
            new IaUnderTest(ShmTesting.SHM_SMALL, "shm", false, ShmTesting::register)),
            // verbs: only on a machine with an RDMA device, named by -Djdat.conformance.verbs=LABEL:NETDEV
            // (interop/verbs.sh runs the suite so in the siw-vm guest, on rxe and on siw)
            VerbsTesting.underTest().stream()).toList();

    private Transports() {
    }

    /**
     * The arguments of an {@link EveryTransport} test: every IA of {@link #ALL}, registered (again: a test may
     * have reloaded the registry).
     */
    public static Stream<IaUnderTest> all() {
        ALL.forEach(t -> t.register().run());
        String only = System.getProperty(ONLY);
        return only == null ? ALL.stream() : ALL.stream().filter(t -> t.transport().equals(only));
    }

    /**
     * A system property naming one transport library ({@code shm}, ...) to run the suite on alone: the child JVMs
     * that repeat the shm tests as another user or under other JVM flags set it.
     */
    public static final String ONLY = "jdat.conformance.transport";

    /**
     * One registered IA name of one transport, as a test sees it.
     *
     * @param ia                    the registry name a test opens
     * @param transport             the transport library name ({@code mem}, {@code tcp}, {@code shm}, {@code verbs})
     * @param requestCompletesWhenSent whether a Send or RDMA Write completes once its bytes are handed to the
     *                                 network (tcp: in the socket), before the peer placed them; then the peer's
     *                                 refusal may come too late to be the request's status, which is SUCCESS
     *                                 (API.md allows either), and sends waiting for receives are not outstanding
     * @param register              adds {@code ia} to the registry if it is not there
     */
    public record IaUnderTest(String ia, String transport, boolean requestCompletesWhenSent, Runnable register) {
        /** The IA name: what a parameterized test's display name shows. */
        @Override
        public String toString() {
            return ia;
        }
    }
}
