package io.jdat.tools.perf;

import static io.jdat.tools.cli.ToolRun.jdat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.cli.ToolRun;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@code jdat perf --cpu}: the measuring thread runs on the CPU asked for, and only it (issue 17's like-for-like
 * runs against perftest under {@code taskset}). Every pin happens on a thread of its own, never on JUnit's.
 */
class PerfPinningTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    /** Runs {@code body} on a new thread and returns what it returned (the thread dies with its mask). */
    private static <T> T onOwnThread(Supplier<T> body) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(body.get());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "pin-test");
        t.setDaemon(true);
        t.start();
        return f.get(60, TimeUnit.SECONDS);
    }

    private static List<Integer> allowed() {
        assumeTrue(CpuAffinity.available(), "no sched_setaffinity here");
        return CpuAffinity.allowed();
    }

    @Test
    void aPinnedThreadRunsOnItsCpuAloneAndTheThreadsItStartsInherit() throws Exception {
        List<Integer> all = allowed();
        assertFalse(all.isEmpty(), "a running thread may run somewhere");
        int cpu = all.getLast();
        List<List<Integer>> seen = onOwnThread(() -> {
            CpuAffinity.pin(cpu);
            List<Integer> mine = CpuAffinity.allowed();
            List<List<Integer>> child = new java.util.ArrayList<>();
            Thread c = new Thread(() -> child.add(CpuAffinity.allowed()));
            c.start();
            try {
                c.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return List.of(mine, child.getFirst());
        });
        assertEquals(List.of(cpu), seen.get(0), "the pinned thread's own mask");
        assertEquals(List.of(cpu), seen.get(1), "a thread it started inherits the mask");
        assertEquals(all, CpuAffinity.allowed(), "other threads keep theirs");
    }

    @Test
    void aCpuOutsideTheSetIsRefusedAndTheThreadKeepsItsMask() throws Exception {
        List<Integer> all = allowed();
        int outside = CpuAffinity.MAX_CPU;
        assumeTrue(!all.contains(outside), "this host lets us run on CPU " + outside);
        List<Integer> after = onOwnThread(() -> {
            ToolFailure f = assertThrows(ToolFailure.class, () -> CpuAffinity.pin(outside));
            assertTrue(f.getMessage().contains("CPU " + outside) && f.getMessage().contains("EINVAL"),
                    f.getMessage());
            return CpuAffinity.allowed();
        });
        assertEquals(all, after);
        assertThrows(ToolFailure.class, () -> CpuAffinity.pin(-1));
        assertThrows(ToolFailure.class, () -> CpuAffinity.pin(CpuAffinity.MAX_CPU + 1));
    }

    @Test
    void rangesJoinRunsOfCpus() {
        assertEquals("0-2,5,7-8", PerfCommand.ranges(List.of(0, 1, 2, 5, 7, 8)));
        assertEquals("3", PerfCommand.ranges(List.of(3)));
        assertEquals("none", PerfCommand.ranges(List.of()));
    }

    /** Both sides in this JVM: the header and the JSON name each side's CPU. */
    @Test
    void oneJvmPinsBothThreadsAndSaysSo() {
        List<Integer> all = allowed();
        int server = all.getFirst();
        int client = all.getLast();
        String qual = Long.toString(ToolRun.nextQual());
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "--conn-qual", qual, "--op", "write",
                "--test", "latency", "-n", "200", "--warmup", "20", "--cpu", server + "," + client));
        assertEquals(0, r.exitCode(), r::err);
        assertTrue(r.out().contains("; server thread on CPU " + server + ", client thread on CPU " + client
                + " (--cpu)"), r.out());
        String qual2 = Long.toString(ToolRun.nextQual());
        ToolRun.Run j = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "--conn-qual", qual2, "--op", "write",
                "--test", "latency", "-n", "200", "--warmup", "20", "--cpu", server + "," + client, "--json"));
        assertEquals(0, j.exitCode(), j::err);
        assertTrue(j.out().contains("\"server_cpu\":" + server + ",\"client_cpu\":" + client + ","), j.out());
        String qual3 = Long.toString(ToolRun.nextQual());
        ToolRun.Run u = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "--conn-qual", qual3, "--op", "write",
                "--test", "latency", "-n", "200", "--warmup", "20", "--json"));
        assertTrue(u.out().contains("\"server_cpu\":null,\"client_cpu\":null,"), u.out());
    }

    /** Two processes' roles (here two threads) over tcp: each side pins its own measuring thread. */
    @Test
    void eachSideOfATwoProcessRunPinsItsCaller() throws Exception {
        List<Integer> all = allowed();
        int server = all.getFirst();
        int client = all.getLast();
        String port = ToolRun.qual("tcp");
        CountDownLatch listening = new CountDownLatch(1);
        CompletableFuture<List<Integer>> served = CompletableFuture.supplyAsync(() -> {
            try {
                return onOwnThread(() -> {
                    PerfRun.runServer("tcp", Long.parseLong(port), 10, 30, server, a -> listening.countDown());
                    return CpuAffinity.allowed();
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(listening.await(30, TimeUnit.SECONDS), "the server did not listen");
        List<Object> ran = assertTimeoutPreemptively(LIMIT, () -> onOwnThread(() -> List.of(jdat("perf", "--ia",
                "tcp", "--client", "127.0.0.1:" + port, "--op", "send", "--test", "latency", "-n", "200", "--warmup",
                "20", "--cpu", Integer.toString(client)), CpuAffinity.allowed())));
        ToolRun.Run r = (ToolRun.Run) ran.get(0);
        assertEquals(0, r.exitCode(), r::err);
        assertTrue(r.out().contains("; client thread on CPU " + client + " (--cpu)"), r.out());
        assertEquals(List.of(client), ran.get(1), "the client's measuring thread is pinned");
        assertEquals(List.of(server), served.get(30, TimeUnit.SECONDS), "the server's measuring thread is pinned");
        assertEquals(all, CpuAffinity.allowed(), "JUnit's thread is left alone");
    }
}
