#!/usr/bin/env python3
"""Issue 18's ratio table from the rows of jdat-bench/issue18.sh (results.tsv: key, rep, value, p99, cpu).

   python3 jdat-bench/issue18-table.py results.tsv [notes.txt] [scale.csv]

Every cell is the median over the runs (the repetitions). Latency in µs one-way (half a round trip),
bandwidth in GB/s (10^9 B/s). ratio = jdat / peer: for latency, <= the goal is met; for bandwidth, >= it.
With scale.csv (jdat-bench/scale.sh --csv): its rows, and the scale goals per provider (issue 18 item 2).
"""
import csv
import statistics
import sys


def load(path):
    series = {}
    with open(path) as f:
        next(f, None)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                continue
            key, _rep, value, p99, cpu = parts[:5]
            s = series.setdefault(key, {"value": [], "p99": [], "cpu": []})
            for name, v in (("value", value), ("p99", p99), ("cpu", cpu)):
                try:
                    s[name].append(float(v))
                except ValueError:
                    pass
    return series


def med(series, key, field="value"):
    v = series.get(key, {}).get(field, [])
    return statistics.median(v) if v else None


def runs(series, key):
    return len(series.get(key, {}).get("value", []))


def us(v):
    if v is None:
        return "-"
    return f"{v:,.0f} µs" if v >= 100 else f"{v:.1f} µs" if v >= 10 else f"{v:.2f} µs" if v >= 1 else f"{v:.3f} µs"


def gbs(mbps):
    return "-" if mbps is None else f"{mbps / 1000:.1f} GB/s" if mbps >= 1000 else f"{mbps / 1000:.2f} GB/s"


def cpu(v):
    return "-" if v is None else f"{v:.2f}" if v < 10 else f"{v:.1f}"


def ratio(j, p):
    return None if j is None or not p else j / p


def rtext(r):
    return "-" if r is None else f"{r:.2f}x"


def goal_text(r, goal, lower_is_better):
    if r is None:
        return f"{'<=' if lower_is_better else '>='} {goal:.1f}x"
    met = r <= goal if lower_is_better else r >= goal
    return f"{'<=' if lower_is_better else '>='} {goal:.1f}x ({'met' if met else 'not met'})"


def fnum(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else f  # NaN: a failed row


def idle_text(pct):
    if pct is None:
        return "- (< 1%)"
    return f"{pct:.2f}% (< 1%: {'met' if pct < 1.0 else 'not met'})"


def scale_tables(path):
    """The rows of a scale CSV and, per provider, the goals: rate at 1024 >= 0.9x the rate at 16, idle CPU at
    1024 under 1% of a core, one empty poll at 1024 not above the poll at 1 (flat: within 1.5x)."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    out = ["| provider | N | set-up/s | heap B/conn | RSS B/conn | idle CPU % | empty poll ns | round trips/s | "
           "fairness min / median / max | note |", "|---|---|---|---|---|---|---|---|---|---|"]
    by = {}
    for r in rows:
        by.setdefault(r["provider"], {})[int(r["connections"])] = r
        out.append("| {provider} | {connections} | {setup_per_s} | {heap_bytes_per_conn} | {rss_bytes_per_conn} | "
                   "{idle_cpu_pct} | {poll_ns} | {round_trips_per_s} | {fair_min} / {fair_median} / {fair_max} | "
                   "{note} |".format(**r))
    top = max((int(r["connections"]) for r in rows), default=1024)
    goals = [f"| provider | rate at {top} / at 16 (goal at 1024: >= 0.9x) | idle CPU at {top} (goal: < 1%) | "
             f"empty poll at {top} / at 1 (goal: flat) |", "|---|---|---|---|"]
    for p, n in by.items():
        def val(conns, col):
            return fnum(n[conns][col]) if conns in n else None
        r16, rtop = val(16, "round_trips_per_s"), val(top, "round_trips_per_s")
        idle = val(top, "idle_cpu_pct")
        p1, ptop = val(1, "poll_ns"), val(top, "poll_ns")
        rate = ratio(rtop, r16)
        poll = ratio(ptop, p1)
        goals.append(f"| {p} | {rtext(rate)} {goal_text(rate, 0.9, False)} | {idle_text(idle)} | "
                     f"{rtext(poll)} {goal_text(poll, 1.5, True)} |")
    return out, goals


def main():
    s = load(sys.argv[1])
    notes = sys.argv[2] if len(sys.argv) > 2 else None
    out = ["| scenario | jdat perf | peer | ratio | goal |", "|---|---|---|---|---|"]

    def lat_row(scenario, jkey, pkey, peer_name, goal):
        j, p = med(s, jkey), med(s, pkey)
        if j is None and p is None:
            return
        r = ratio(j, p)
        out.append(f"| {scenario} | {us(j)} | {peer_name} {us(p)} | {rtext(r)} | {goal_text(r, goal, True)} |")

    def bw_row(scenario, jkeys, pkey, peer_name, goal):
        js = [med(s, k) for k in jkeys]
        p = med(s, pkey)
        if all(j is None for j in js) and p is None:
            return
        rs = [ratio(j, p) for j in js]
        out.append(f"| {scenario} | {' / '.join(gbs(j) for j in js)} | {peer_name} {gbs(p)} | "
                   f"{' / '.join(rtext(r) for r in rs)} | "
                   f"{goal_text(max((r for r in rs if r is not None), default=None), goal, False)} |")

    lat_row("shm send/recv 64 B one-way", "jdat:shm:send_lat", "ucx:posix:tag_lat", "UCX posix `tag_lat`", 1.0)
    lat_row("shm send/recv 64 B one-way", "jdat:shm:send_lat", "fi:shm:pingpong", "libfabric `fi_pingpong -p shm`",
            1.0)
    lat_row("shm RDMA Write 64 B one-way", "jdat:shm:write_lat", "ucx:posix:ucp_put_lat", "UCX posix `ucp_put_lat`",
            1.0)
    bw_row("shm RDMA Write 1 MiB, window 16 / window 1 (`--memory shared`)",
           ["jdat:shm:write_bw_w16", "jdat:shm:write_bw_w1"], "ucx:posix:ucp_put_bw", "UCX posix `ucp_put_bw`", 1.0)
    bw_row("shm RDMA Write 1 MiB, window 16, `--memory native` (cross-memory attach)",
           ["jdat:shm:native:write_bw_w16"], "ucx:posix:ucp_put_bw", "UCX posix `ucp_put_bw`", 1.0)
    lat_row("tcp send/recv 64 B one-way", "jdat:tcp:send_lat", "ucx:tcp:tag_lat", "UCX tcp `tag_lat`", 1.0)
    lat_row("tcp send/recv 64 B one-way", "jdat:tcp:send_lat", "fi:tcp:pingpong", "libfabric `fi_pingpong -p tcp`",
            1.0)
    bw_row("tcp RDMA Write 1 MiB, window 16 / window 2", ["jdat:tcp:write_bw_w16", "jdat:tcp:write_bw_w2"],
           "ucx:tcp:tag_bw", "UCX tcp `tag_bw`", 1.0)
    lat_row("mem send/recv 64 B one-way", "jdat:mem:send_lat", "spin:mem:payload64",
            "JVM spin limit, 64 B payload,", 2.0)
    if len(out) > 2:
        print("\n".join(out))
        print()

    wait = ["| `--wait` (dat_evd_wait), send/recv 64 B | polling p50 / p99 | `--wait` p50 / p99 | "
            "CPU µs/msg polling / `--wait` | `--wait` / polling (p50) |", "|---|---|---|---|---|"]
    for ia in ("mem", "shm", "tcp"):
        pk, wk = f"jdat:{ia}:send_lat", f"jdat:{ia}:wait:send_lat"
        if med(s, wk) is None and med(s, pk) is None:
            continue
        wait.append(f"| {ia} | {us(med(s, pk))} / {us(med(s, pk, 'p99'))} | {us(med(s, wk))} / {us(med(s, wk, 'p99'))} | "
                    f"{cpu(med(s, pk, 'cpu'))} / {cpu(med(s, wk, 'cpu'))} | {rtext(ratio(med(s, wk), med(s, pk)))} |")
    if len(wait) > 2:
        print("\n".join(wait))
        print()
    n = max((runs(s, k) for k in s), default=0)
    if n > 0:
        print(f"Medians of {n} interleaved run(s). jdat perf: two processes (--server / --client, --no-verify) "
              "on shm and tcp, one process on mem; its median one-way latency, stream MB/s. UCX: ucx_perftest's "
              "typical (p50) latency and overall bandwidth; libfabric: fi_pingpong's usec/xfer (mean); spin limit: "
              "JvmSpinPingPong.java's median chunk. shm bandwidth: `--memory shared` (DAT shared memory, which the "
              "peer maps: like ucx_perftest's buffers, which UCX allocates in shared memory with UCX_TLS=posix) and a "
              "labelled `--memory native` row (cross-memory attach). CPU µs/msg: both processes' CPU time per "
              "message (a ping-pong iteration is two messages; polling keeps both sides' threads busy, so it is about "
              "two one-way times). A bandwidth row's goal is met when the better of its windows reaches it.")
    if len(sys.argv) > 3:
        rows, goals = scale_tables(sys.argv[3])
        print()
        print("\n".join(goals))
        print()
        print("\n".join(rows))
        print()
        print("Scale (jdat-bench/scale.sh, one process, both ends of every connection on one IA pair): set-up rate, "
              "heap and RSS per connection, idle CPU of the process with all connections idle, one dat_evd_dequeue "
              "on an empty EVD, aggregate 64 B round trips per second with one in flight per connection, and the "
              "spread of the per-connection rates (fairness, relative to the median).")
    if notes:
        for line in open(notes):
            if line.strip():
                print("note: " + line.strip())


if __name__ == "__main__":
    main()
