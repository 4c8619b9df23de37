package io.jdat.shm;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs test classes of this module with the JUnit Platform in a child JVM, for the tests that repeat the
 * {@code shm} suite under other conditions (another user: {@link ShmUnprivilegedTest}; native access denied:
 * {@link ShmNativeAccessTest}). Arguments: fully qualified class names. Prints {@code UID <uid>} (as
 * {@link ShmFiles#currentUid()} reads it), {@code XMEM <true|false>} ({@link CrossMemory#isSupported()}), the
 * failures, then {@code SUMMARY found=N succeeded=N failed=N skipped=N aborted=N}; exits 0 if tests ran and
 * none failed, 1 otherwise.
 */
public final class ShmSuiteMain {
    private ShmSuiteMain() {
    }

    /** Runs the classes named by {@code args}; see the class comment. */
    public static void main(String[] args) throws Exception {
        System.out.println("UID " + ShmFiles.currentUid());
        System.out.println("XMEM " + CrossMemory.isSupported());
        List<Class<?>> classes = new ArrayList<>();
        for (String a : args) {
            classes.add(Class.forName(a));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(classes.stream().map(c -> selectClass(c)).toList())
                .filters(EngineFilter.includeEngines("junit-jupiter"))   // jqwik would want its database in cwd
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary s = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        if (s.getTotalFailureCount() > 0) {
            s.printFailuresTo(out, 25);
        }
        out.println("SUMMARY found=" + s.getTestsFoundCount() + " succeeded=" + s.getTestsSucceededCount()
                + " failed=" + s.getTotalFailureCount() + " skipped=" + s.getTestsSkippedCount()
                + " aborted=" + s.getTestsAbortedCount());
        out.flush();
        System.exit(s.getTestsSucceededCount() > 0 && s.getTotalFailureCount() == 0 ? 0 : 1);
    }
}
