package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DtoCompletionStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Selective signalling on a verbs send queue without a device: the work completions a device reports (in order,
 * one per signalled or failed work request; siw's early Send/Write before a pending Read) fed to {@link SendQueue},
 * and the core's request completions it makes of them (EPM-23: a SUPPRESSed request's slot is freed when it
 * completes; EPQ-04, RWR-08, SND-11). The guest's {@code VerbsVmCheck} cases run the same on rxe and siw.
 */
class SendQueueTest {
    /** {@code IBV_WC_REM_ACCESS_ERR} (verbs.h): a wrong rkey or a bound overrun at the target. */
    private static final int REM_ACCESS_ERR = 10;

    /** What the core was told, in order: "SUCCESS 64", "broken", ... */
    private static final class Recorder implements SendQueue.Completions {
        final List<String> log = new ArrayList<>();
        boolean up = true;

        @Override
        public void requestCompleted(DtoCompletionStatus status, long length) {
            log.add(status + " " + length);
        }

        @Override
        public void broken() {
            log.add("broken");
            up = false;
        }

        @Override
        public boolean up() {
            return up;
        }
    }

    /** Posts {@code count} SUPPRESSed one-part Writes of {@code length} bytes; returns which were signalled. */
    private static List<Boolean> postSuppressed(SendQueue q, int count, long length) {
        List<Boolean> signalled = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long n = q.posted();
            boolean s = q.signals(n, true);
            q.slot(n, length, s);
            q.posted(n + 1);
            signalled.add(s);
        }
        return signalled;
    }

    private static void postSignalled(SendQueue q, long length) {
        long n = q.posted();
        assertTrue(q.signals(n, false), "a request that does not suppress its completion is signalled");
        q.slot(n, length, true);
        q.posted(n + 1);
    }

    @Test
    @DisplayName("every n-th SUPPRESSed request in a row is signalled; one that is not SUPPRESSed restarts the count")
    void everyNthIsSignalled() {
        SendQueue q = new SendQueue(64, 4);
        assertEquals(List.of(false, false, false, true, false, false, false, true), postSuppressed(q, 8, 64));
        postSignalled(q, 64);
        assertEquals(List.of(false, false, false, true), postSuppressed(q, 4, 64));
        SendQueue all = new SendQueue(64, 1);
        assertEquals(List.of(true, true, true), postSuppressed(all, 3, 64), "every 1: all signalled, as before");
    }

    @Test
    @DisplayName("a signalled completion completes the unsignalled requests before it, in order, with their lengths")
    void signalledCompletionCompletesTheRunBeforeIt() {
        SendQueue q = new SendQueue(64, 4);
        Recorder r = new Recorder();
        postSuppressed(q, 3, 8); // 0..2 unsignalled
        postSignalled(q, 64); // 3
        postSuppressed(q, 2, 16); // 4, 5 unsignalled: no completion yet
        q.complete(r, VerbsStatus.SUCCESS, 3);
        assertEquals(List.of("SUCCESS 8", "SUCCESS 8", "SUCCESS 8", "SUCCESS 64"), r.log);
        assertEquals(2, q.outstanding(), "the two unsignalled requests after it still hold their slots");
    }

    @Test
    @DisplayName("an error in the middle of unsignalled requests: those before it succeed, it fails, the EP breaks")
    void errorInTheMiddleOfAnUnsignalledRun() {
        SendQueue q = new SendQueue(64, 8);
        Recorder r = new Recorder();
        postSuppressed(q, 6, 64); // 0..5, all unsignalled
        // A failed work request makes a completion whether it was signalled or not (IB, iWARP).
        q.complete(r, REM_ACCESS_ERR, 3);
        assertEquals(List.of("SUCCESS 64", "SUCCESS 64", "SUCCESS 64",
                VerbsStatus.of(REM_ACCESS_ERR) + " 0", "broken"), r.log);
        // the flushes that follow report nothing more (the core flushes the rest)
        q.complete(r, VerbsStatus.WR_FLUSH_ERR, 4);
        assertEquals(5, r.log.size());
    }

    @Test
    @DisplayName("flushes of unsignalled requests: those before the first flush succeeded, the flushes report nothing")
    void flushesOfUnsignalledRequests() {
        SendQueue q = new SendQueue(64, 8);
        Recorder r = new Recorder();
        postSuppressed(q, 4, 32);
        q.complete(r, VerbsStatus.WR_FLUSH_ERR, 2);
        q.complete(r, VerbsStatus.WR_FLUSH_ERR, 3);
        assertEquals(List.of("SUCCESS 32", "SUCCESS 32"), r.log, "the disconnect's CM event decides the rest");
        assertEquals(0, q.outstanding());
    }

    @Test
    @DisplayName("an idle unsignalled tail gets a marker at the second idle look; its completion frees the tail")
    void idleTailGetsAMarker() {
        SendQueue q = new SendQueue(64 + 1, 32);
        Recorder r = new Recorder();
        postSuppressed(q, 5, 64);
        assertFalse(q.markerDue(), "first look: the consumer may still post");
        postSuppressed(q, 1, 64);
        assertFalse(q.markerDue(), "something was posted since: still not idle");
        assertTrue(q.markerDue(), "the same tail at two looks in a row: idle");
        long m = q.posted();
        q.slot(m, SendQueue.MARKER, true);
        q.posted(m + 1);
        assertFalse(q.markerDue(), "the queue ends in a signalled request now");
        postSuppressed(q, 1, 64);
        assertFalse(q.markerDue());
        assertFalse(q.markerDue(), "one marker at a time");
        q.complete(r, VerbsStatus.SUCCESS, m);
        assertEquals(List.of("SUCCESS 64", "SUCCESS 64", "SUCCESS 64", "SUCCESS 64", "SUCCESS 64", "SUCCESS 64"),
                r.log, "the six requests before the marker, nothing for the marker");
        assertEquals(1, q.outstanding());
        assertTrue(q.markerDue(), "the marker completed: the new tail may have one");
    }

    @Test
    @DisplayName("siw: a Write completes ahead of an earlier Read; the unsignalled Write between them waits for both")
    void earlyCompletionBehindAPendingRead() {
        SendQueue q = new SendQueue(64, 8);
        Recorder r = new Recorder();
        postSignalled(q, 100); // 0: an RDMA Read (always signalled)
        postSuppressed(q, 1, 8); // 1: unsignalled
        postSignalled(q, 64); // 2
        q.complete(r, VerbsStatus.SUCCESS, 2);
        assertEquals(List.of(), r.log, "held: the Read has not completed");
        q.complete(r, VerbsStatus.SUCCESS, 0);
        assertEquals(List.of("SUCCESS 100", "SUCCESS 8", "SUCCESS 64"), r.log);
        assertEquals(0, q.outstanding());
    }

    @Test
    @DisplayName("a completion that fits no slot breaks the connection")
    void strayCompletionBreaks() {
        SendQueue q = new SendQueue(64, 8);
        Recorder r = new Recorder();
        postSuppressed(q, 2, 8);
        q.complete(r, VerbsStatus.SUCCESS, 5);
        assertEquals(List.of("broken"), r.log);
    }
}
