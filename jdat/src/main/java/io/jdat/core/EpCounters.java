package io.jdat.core;

import io.jdat.DtoCounters;

/**
 * An Endpoint's {@link DtoCounters}, as plain fields grouped by the one writer each group has, with padding
 * between the groups so the posting thread and the transport's completion path do not share a cache line:
 * request posts and flushes (under the EP's {@code txLock}), request completions (the transport's single
 * completer, or the poster for a Write placed at once while nothing is outstanding), receive posts and flushes
 * (under the EP's {@code lock}), receive completions (the transport's receive path). Incrementing allocates
 * nothing and takes no lock of its own. Every completion is counted before its event is queued, so a consumer
 * that dequeued the event sees it counted.
 */
final class EpCounters {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    // Request posters and flushes (txLock).
    long reqPosted;
    long reqFlushed;
    long p10, p11, p12, p13, p14, p15;
    // Request completions (the transport's completer; or the poster, under txLock, for an RDMA Write the transport
    // placed at once with nothing outstanding, Channel.writeNow: the transport then has nothing to complete).
    long reqCompleted;
    long reqBytes;
    long reqErrors;
    long reqCompletedFlushed;
    long p20, p21, p22, p23;
    // Receive posters and flushes (lock).
    long recvPosted;
    long recvFlushed;
    /** Receives failed by a PZ change (EPM-10), under the lock like posts. */
    long recvPzFailed;
    long p30, p31, p32, p33, p34;
    // Receive completions (transport receive path).
    long recvCompleted;
    long recvBytes;
    long recvErrors;
    long recvCompletedFlushed;
    long p40, p41, p42, p43, p44, p45, p46, p47;

    /** Counts a request completion from the transport. */
    void requestCompleted(io.jdat.DtoCompletionStatus status, long length) {
        switch (status) {
            case SUCCESS -> {
                reqCompleted++;
                reqBytes += length;
            }
            case ERR_FLUSHED -> reqCompletedFlushed++;
            default -> reqErrors++;
        }
    }

    /** Counts a receive completion from the transport. */
    void recvCompleted(io.jdat.DtoCompletionStatus status, long length) {
        switch (status) {
            case SUCCESS -> {
                recvCompleted++;
                recvBytes += length;
            }
            case ERR_FLUSHED -> recvCompletedFlushed++;
            default -> recvErrors++;
        }
    }

    /** A snapshot (allocates the record). */
    DtoCounters snapshot() {
        return new DtoCounters(reqPosted, reqCompleted, reqFlushed + reqCompletedFlushed, reqErrors, reqBytes,
                recvPosted, recvCompleted, recvFlushed + recvCompletedFlushed, recvErrors + recvPzFailed, recvBytes);
    }
}
