package io.jdat.verbs;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.jdat.conformance.Transports;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The provider-neutral conformance suite ({@code io.jdat.conformance}: DataPathTest, SendRecvTest, RdmaTest) on one
 * {@code verbs} device, in one JVM, through the JUnit Platform launcher: {@code interop/verbs.sh} runs it in the
 * siw-vm guest once on rxe and once on siw (a guest JVM takes ~14 s to start).
 *
 * <pre>
 *   java -cp ... io.jdat.verbs.VerbsConformance LABEL NETDEV [CLASS-NAME-PART]
 * </pre>
 *
 * Prints {@code PASS conformance-LABEL/Class.method(ia)} or {@code FAIL ...: why} per test, then
 * {@code N passed, N failed}; the exit status is the number failed. Only the verbs IA runs
 * ({@code jdat.conformance.transport=verbs}); each test has a 5-minute timeout. Tests listed in {@link #KNOWN} for the
 * device are not run (one {@code KNOWN ...: not run} line each) unless {@code -Dconformance.known.run=true};
 * {@code -Dconformance.methods=a,b} runs only the test methods named; {@code -Dconformance.repeat=N} runs the
 * selection N times in the same JVM (to catch a rare failure: the guest's JVM start is the slow part).
 */
public final class VerbsConformance {
    /** A device difference of siw 6.1 that DAT allows but the suite's assertion does not (docs/verbs.md). */
    private static final String SIW_TERMINATE = "device difference: siw answers a refused access with a Terminate and"
            + " closes; the target sees DISCONNECTED, not BROKEN, and a receive may be flushed before its error";
    /** iWARP (RFC 5040) has no receiver-not-ready retry: a test that sends before the peer's receive is posted. */
    private static final String SIW_NO_RNR = "device difference: iWARP has no receiver-not-ready retry; a Send that"
            + " arrives before its receive is posted is a Terminate (DDP: no buffer), the connection breaks";

    /**
     * Tests that fail on a device for a known reason: {@code LABEL-PREFIX/Class.method} to the reason. A listed test
     * that fails prints {@code KNOWN}, counted apart from the failures; one that passes prints {@code PASS}.
     */
    static final java.util.Map<String, String> KNOWN = java.util.Map.ofEntries(
            java.util.Map.entry("rxe/DataPathTest.solicitedWait", "device difference: a receive completion does"
                    + " not say whether the message was solicited (docs/verbs.md)"),
            java.util.Map.entry("siw/DataPathTest.solicitedWait", "device difference: a receive completion does"
                    + " not say whether the message was solicited (docs/verbs.md)"),
            java.util.Map.entry("rxe/DataPathTest.rmrBindInOrder", "device difference: a write crossing the RMR's"
                    + " end (a memory window) is refused at the initiator, but rxe leaves the target's QP alone: the"
                    + " target sees the initiator's disconnect, not BROKEN"),
            java.util.Map.entry("siw/DataPathTest.rmrBindInOrder", SIW_TERMINATE),
            java.util.Map.entry("rxe/RdmaTest.remoteViolation", "device difference: rxe 6.1 raises no asynchronous"
                    + " QP error at the target of a refused access; the target sees the initiator's disconnect"),
            java.util.Map.entry("rxe/RdmaTest.readDepth", "device difference: rxe queues an RDMA Read beyond the"
                    + " negotiated IRD instead of refusing it (RDR-17 is the target's check on software transports)"),
            java.util.Map.entry("rxe/DataPathTest.sixteenEndpoints", "device difference: the CM of RoCE and"
                    + " InfiniBand carries a fixed 56-byte private data area, not its length: the passive side gets 56"
                    + " bytes for the 1 sent (the test checks the length)"),
            java.util.Map.entry("siw/SendRecvTest.sendIntoZeroSegmentBuffer", SIW_TERMINATE),
            java.util.Map.entry("siw/SendRecvTest.messageLongerThanBuffer", SIW_TERMINATE),
            java.util.Map.entry("siw/RdmaTest.remoteViolation", SIW_TERMINATE),
            java.util.Map.entry("siw/RdmaTest.readDepth", "device difference: siw queues an RDMA Read beyond the"
                    + " negotiated IRD instead of refusing it (RDR-17 is the target's check on software transports)"),
            java.util.Map.entry("siw/RdmaTest.iovOwnership", SIW_NO_RNR),
            java.util.Map.entry("siw/SendRecvTest.limits", SIW_NO_RNR));

    private VerbsConformance() {
    }

    public static void main(String[] args) {
        int[] r = {0, 0};
        for (int i = Integer.getInteger("conformance.repeat", 1); i > 0; i--) {
            int[] one = run(args[0], args[1], args.length > 2 ? args[2] : "");
            r[0] += one[0];
            r[1] += one[1];
        }
        System.out.printf("%d passed, %d failed%n", r[0], r[1]);
        System.exit(r[1]);
    }

    /**
     * Runs the suite on the device {@code label} of {@code netdev}, printing a line per test.
     *
     * @return the tests passed and failed
     */
    static int[] run(String label, String netdev, String only) {
        System.setProperty(VerbsTesting.PROPERTY, label + ":" + netdev);
        System.setProperty(Transports.ONLY, "verbs");
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass("io.jdat.conformance.DataPathTest"),
                        selectClass("io.jdat.conformance.SendRecvTest"), selectClass("io.jdat.conformance.RdmaTest"))
                .configurationParameter("junit.jupiter.execution.timeout.default", "300 s")
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "false")
                .filters(ClassNameFilter.includeClassNamePatterns(".*" + only + ".*"),
                        (PostDiscoveryFilter) d -> knownSkipped(label, d))
                .build();
        AtomicInteger passed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Launcher launcher = LauncherFactory.create();
        long[] started = new long[1];
        launcher.execute(request, new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                started[0] = System.nanoTime();
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                if (id.isTest()) {
                    System.out.printf("SKIP %s: %s%n", name(label, id), reason);
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest()) {
                    if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                        failed.incrementAndGet();
                        System.out.printf("FAIL %s: %s%n", name(label, id), result.getThrowable().orElse(null));
                    }
                    return;
                }
                long ms = (System.nanoTime() - started[0]) / 1_000_000;
                if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    passed.incrementAndGet();
                    System.out.printf("PASS %s (%d ms)%n", name(label, id), ms);
                } else if (known(label, id) != null) {
                    System.out.printf("KNOWN %s: %s (%s)%n", name(label, id), known(label, id),
                            result.getThrowable().map(Object::toString).orElse(""));
                } else {
                    failed.incrementAndGet();
                    Throwable t = result.getThrowable().orElse(null);
                    System.out.printf("FAIL %s: %s%n", name(label, id), t);
                    if (t != null) {
                        t.printStackTrace(System.out);
                    }
                }
            }
        });
        return new int[] {passed.get(), failed.get()};
    }

    /**
     * Leaves out a test listed in {@link #KNOWN} for the device (each waits out timeouts: the guest's CI time is
     * bounded), saying so in a {@code KNOWN} line; {@code -Dconformance.known=run} runs them too.
     */
    private static FilterResult knownSkipped(String label, TestDescriptor d) {
        if (!(d.getSource().orElse(null) instanceof MethodSource m)) {
            return FilterResult.included("");
        }
        String methods = System.getProperty("conformance.methods", "");
        if (!methods.isEmpty() && !java.util.Arrays.asList(methods.split(",")).contains(m.getMethodName())) {
            return FilterResult.excluded("not in -Dconformance.methods");
        }
        if (Boolean.getBoolean("conformance.known.run")) {
            return FilterResult.included("");
        }
        String cls = m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1);
        String why = KNOWN.get(label.replaceAll("[^a-z].*", "") + "/" + cls + "." + m.getMethodName());
        if (why == null || !d.isContainer() && d.getParent().flatMap(TestDescriptor::getSource).isPresent()
                && d.getParent().get().getSource().get() instanceof MethodSource) {
            return FilterResult.included("");
        }
        System.out.printf("KNOWN conformance-%s/%s.%s: not run: %s%n", label, cls, m.getMethodName(), why);
        return FilterResult.excluded(why);
    }

    /** The reason {@code id} fails on the device {@code label}, when it is a known difference. */
    static String known(String label, TestIdentifier id) {
        String n = name(label, id);
        return KNOWN.get(label.replaceAll("[^a-z].*", "") + n.substring(n.indexOf('/')));
    }

    /** {@code conformance-LABEL/Class.method}: the class's simple name and the test's display name. */
    static String name(String label, TestIdentifier id) {
        String source = id.getSource().map(Object::toString).orElse("");
        String cls = source.replaceAll(".*className = '(?:[a-z]+\\.)*([A-Za-z]+)'.*", "$1");
        String method = source.replaceAll(".*methodName = '([^']*)'.*", "$1");
        return "conformance-" + label + "/" + (cls.equals(source) ? id.getDisplayName() : cls + "." + method)
                .replace(' ', '_');
    }
}
