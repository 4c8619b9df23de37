package io.jdat.core;

import io.jdat.DtoCompletionStatus;
import io.jdat.EventNumber;
import java.net.SocketAddress;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * jdat's JDK Flight Recorder events (category "jdat"), recorded by the core for every transport:
 *
 * <ul>
 *   <li>{@code io.jdat.Connection}: every connection event an Endpoint gets - ESTABLISHED, DISCONNECTED, BROKEN,
 *       PEER_REJECTED, NON_PEER_REJECTED, UNREACHABLE, TIMED_OUT, ACCEPT_COMPLETION_ERROR - with the IA, the
 *       Endpoint, the remote address and the connection qualifier;</li>
 *   <li>{@code io.jdat.DtoCompletion}: DTO completions of at least {@code -Djdat.jfr.dtoThreshold} bytes
 *       (default 1 MiB), and every completion with an error other than FLUSHED, with the operation, status,
 *       length, cookie and, for requests (Send, RDMA Write, RDMA Read), the time from the post to the
 *       completion ({@code postToCompletion}; JFR reserves the field name {@code duration} for the event's own).</li>
 * </ul>
 *
 * Both are enabled by default in a recording ({@code -XX:StartFlightRecording}, {@code jcmd PID JFR.start},
 * a {@code jdk.jfr.Recording}); turn them off with {@code jdk.jfr.Recording#disable("io.jdat.DtoCompletion")}
 * or a {@code .jfc} setting. Without a recording they cost one comparison per completion: an event object
 * is created only for a completion above the threshold or in error.
 */
final class JfrEvents {
    /** Completions of at least this many bytes are recorded ({@code -Djdat.jfr.dtoThreshold}, default 1 MiB). */
    static final long DTO_THRESHOLD = Math.max(0, Long.getLong("jdat.jfr.dtoThreshold", 1L << 20));

    /**
     * True while a JFR recording runs: only then does a post read the clock for the completion's duration,
     * so without a recording a post costs one volatile read more. Kept by a {@link FlightRecorderListener},
     * which does not start Flight Recorder itself.
     */
    static volatile boolean recording;

    static {
        try {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recorderInitialized(FlightRecorder recorder) {
                    update(recorder);
                }

                @Override
                public void recordingStateChanged(Recording r) {
                    update(FlightRecorder.getFlightRecorder());
                }
            });
        } catch (RuntimeException | LinkageError e) {
            recording = false; // no JFR in this runtime: durations stay 0
        }
    }

    private static void update(FlightRecorder recorder) {
        boolean any = false;
        for (Recording r : recorder.getRecordings()) {
            any |= r.getState() == RecordingState.RUNNING;
        }
        recording = any;
    }

    private JfrEvents() {
    }

    /** A connection event of an Endpoint. */
    @Name("io.jdat.Connection")
    @Label("DAT Connection Event")
    @Category("jdat")
    @Description("A connection event of a DAT Endpoint (established, disconnected, broken, rejected, ...)")
    @StackTrace(false)
    static final class Connection extends Event {
        @Label("IA")
        String ia;
        @Label("Event")
        @Description("The DAT event number, e.g. DAT_CONNECTION_EVENT_ESTABLISHED")
        String event;
        @Label("Endpoint")
        @Description("Identity hash of the Endpoint")
        int endpoint;
        @Label("Remote Address")
        String remoteAddress;
        @Label("Connection Qualifier")
        long connQual;
    }

    /** A large or failed DTO completion. */
    @Name("io.jdat.DtoCompletion")
    @Label("DAT DTO Completion")
    @Category("jdat")
    @Description("A DTO completion of at least jdat.jfr.dtoThreshold bytes, or one with an error other than FLUSHED")
    @StackTrace(false)
    static final class DtoCompletion extends Event {
        @Label("IA")
        String ia;
        @Label("Endpoint")
        @Description("Identity hash of the Endpoint")
        int endpoint;
        @Label("Operation")
        String operation;
        @Label("Status")
        String status;
        @Label("Transferred Length")
        @DataAmount
        long length;
        @Label("User Cookie")
        long cookie;
        @Label("Post to Completion")
        @Description("Time from the post to the completion (requests; 0 for receives, and for requests posted before the recording started)")
        @Timespan(Timespan.NANOSECONDS)
        long postToCompletion;
    }

    /** Records a connection event. */
    static void connection(CoreEp ep, EventNumber n, SocketAddress remote, long connQual) {
        Connection e = new Connection();
        if (e.shouldCommit()) {
            e.ia = ep.ia.name;
            e.event = n.datName();
            e.endpoint = System.identityHashCode(ep);
            e.remoteAddress = remote == null ? null : remote.toString();
            e.connQual = connQual;
            e.commit();
        }
    }

    /** Whether a completion is one to record: cheap, for the completion paths. */
    static boolean wanted(DtoCompletionStatus status, long length) {
        return length >= DTO_THRESHOLD || status != DtoCompletionStatus.SUCCESS && status != DtoCompletionStatus.ERR_FLUSHED;
    }

    /** Records a DTO completion (after {@link #wanted}); {@code postedNanos} is the post's clock, or 0. */
    static void dto(CoreEp ep, String operation, DtoCompletionStatus status, long length, long cookie, long postedNanos) {
        DtoCompletion e = new DtoCompletion();
        if (e.shouldCommit()) {
            e.ia = ep.ia.name;
            e.endpoint = System.identityHashCode(ep);
            e.operation = operation;
            e.status = status.name();
            e.length = length;
            e.cookie = cookie;
            e.postToCompletion = postedNanos == 0 ? 0 : Math.max(0, System.nanoTime() - postedNanos);
            e.commit();
        }
    }
}
