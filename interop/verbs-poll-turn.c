/*
 * perftest's turn of a busy poll: a bare ibv_poll_cq on an empty CQ (issue 17; the Java side is
 * io.jdat.verbs.VerbsPollTurn). Build and run in the siw-vm guest:
 *   gcc -O2 -o /tmp/poll-turn interop/verbs-poll-turn.c -libverbs && /tmp/poll-turn [DEVICE] [TURNS]
 * Prints ns per turn for 1 and 16 entries per call: the median of 5 rounds of TURNS after a warm-up of as many,
 * each round timed by two clock_gettime calls only.
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : NULL;
    long turns = argc > 2 ? atol(argv[2]) : 1000000;
    int n;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_device *dev = NULL;
    for (int i = 0; list && i < n; i++) {
        if (!want || strcmp(ibv_get_device_name(list[i]), want) == 0) {
            dev = list[i];
            break;
        }
    }
    if (!dev) {
        fprintf(stderr, "no device %s\n", want ? want : "");
        return 1;
    }
    struct ibv_context *ctx = ibv_open_device(dev);
    struct ibv_cq *cq = ctx ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
    if (!cq) {
        fprintf(stderr, "ibv_open_device/ibv_create_cq failed\n");
        return 1;
    }
    struct ibv_wc wc[16];
    int batches[] = {1, 16};
    printf("%s: ns per ibv_poll_cq turn on an empty CQ, median of 5 rounds of %ld (rounds in brackets)\n",
           ibv_get_device_name(dev), turns);
    for (int b = 0; b < 2; b++) {
        double r[5], s[5];
        long hits = 0;
        for (long i = 0; i < turns; i++) {
            hits += ibv_poll_cq(cq, batches[b], wc);
        }
        for (int k = 0; k < 5; k++) {
            double t0 = now_ns();
            for (long i = 0; i < turns; i++) {
                hits += ibv_poll_cq(cq, batches[b], wc);
            }
            r[k] = (now_ns() - t0) / turns;
            s[k] = r[k];
        }
        qsort(s, 5, sizeof s[0], cmp);
        printf("  ibv_poll_cq, %2d entries %8.0f  (%.0f, %.0f, %.0f, %.0f, %.0f)%s\n", batches[b], s[2], r[0], r[1],
               r[2], r[3], r[4], hits ? " (completions found!)" : "");
    }
    ibv_destroy_cq(cq);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    return 0;
}
