package io.jdat.verbs;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.jdat.conformance.Transports;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
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
 * ({@code jdat.conformance.transport=verbs}); each test has a 5-minute timeout.
 */
public final class VerbsConformance {
    private VerbsConformance() {
    }

    public static void main(String[] args) {
        String label = args[0];
        System.setProperty(VerbsTesting.PROPERTY, label + ":" + args[1]);
        System.setProperty(Transports.ONLY, "verbs");
        String only = args.length > 2 ? args[2] : "";
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass("io.jdat.conformance.DataPathTest"),
                        selectClass("io.jdat.conformance.SendRecvTest"), selectClass("io.jdat.conformance.RdmaTest"))
                .configurationParameter("junit.jupiter.execution.timeout.default", "300 s")
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "false")
                .filters(ClassNameFilter.includeClassNamePatterns(".*" + only + ".*"))
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
        System.out.printf("%d passed, %d failed%n", passed.get(), failed.get());
        System.exit(failed.get());
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
