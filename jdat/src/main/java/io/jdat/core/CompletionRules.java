package io.jdat.core;

import io.jdat.CompletionFlags;

/**
 * The completion-flag rules of API.md §3.1: which flags each post accepts, which values the EP
 * attributes may take, and when a completion notifies.
 */
final class CompletionRules {
    private static final int REQUEST_POST = CompletionFlags.SUPPRESS | CompletionFlags.UNSIGNALLED
            | CompletionFlags.BARRIER_FENCE;

    private CompletionRules() {
    }

    /**
     * Checks the flags of a send, RDMA or bind post (SND-03/04, RDR-07/08, RWR-03, RMB-10).
     *
     * @param flags     the per-post flags
     * @param epFlags   the EP's request_completion_flags
     * @param send      true for a send (SOLICITED_WAIT allowed)
     * @param arg       the C argument position of the flags
     */
    static void checkRequestPostFlags(int flags, int epFlags, boolean send, int arg) {
        int allowed = send ? REQUEST_POST | CompletionFlags.SOLICITED_WAIT : REQUEST_POST;
        if ((flags & ~allowed) != 0) {
            throw Fail.param(arg, "completion flags 0x" + Integer.toHexString(flags) + " not allowed here");
        }
        if ((flags & CompletionFlags.UNSIGNALLED) != 0 && epFlags != CompletionFlags.UNSIGNALLED) {
            throw Fail.param(arg, "UNSIGNALLED needs request_completion_flags UNSIGNALLED");
        }
    }

    /** Checks the flags of a receive post (RCV-03). */
    static void checkRecvPostFlags(int flags, int epFlags, int arg) {
        if ((flags & ~CompletionFlags.UNSIGNALLED) != 0) {
            throw Fail.param(arg, "receive posts take DEFAULT or UNSIGNALLED only");
        }
        if (flags != 0 && epFlags != CompletionFlags.UNSIGNALLED) {
            throw Fail.param(arg, "UNSIGNALLED needs recv_completion_flags UNSIGNALLED");
        }
    }

    /** True for a legal recv_completion_flags attribute (EPM-19). */
    static boolean validRecvAttr(int flags) {
        return flags == CompletionFlags.DEFAULT || flags == CompletionFlags.UNSIGNALLED
                || flags == CompletionFlags.SOLICITED_WAIT || flags == CompletionFlags.EVD_THRESHOLD;
    }

    /** True for a legal request_completion_flags attribute (EPM-20). */
    static boolean validRequestAttr(int flags) {
        return flags == CompletionFlags.DEFAULT || flags == CompletionFlags.UNSIGNALLED
                || flags == CompletionFlags.EVD_THRESHOLD;
    }

    /** Whether a request completion notifies the EVD (errors always do). */
    static boolean requestNotifies(int postFlags, boolean success) {
        return !success || (postFlags & CompletionFlags.UNSIGNALLED) == 0;
    }

    /** Whether a request completion is generated at all (SUPPRESS hides successes only). */
    static boolean requestReported(int postFlags, boolean success) {
        return !success || (postFlags & CompletionFlags.SUPPRESS) == 0;
    }

    /** Whether a receive completion notifies (RCV-04, SND-10). */
    static boolean recvNotifies(int epRecvFlags, int postFlags, boolean solicited, boolean success) {
        if (!success) {
            return true;
        }
        if (epRecvFlags == CompletionFlags.SOLICITED_WAIT) {
            return solicited;
        }
        return (postFlags & CompletionFlags.UNSIGNALLED) == 0;
    }
}
