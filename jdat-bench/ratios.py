#!/usr/bin/env python3
"""Summarises a JMH JSON result (-rf json -rff FILE) of jdat's benchmarks and their baselines.

Per benchmark and parameter set: the median over forks of each fork's mean, then the ratios the issues set
as goals. mem: send/recv one-way latency against the spin baseline and Aeron IPC, RDMA Write bandwidth
against MemorySegment.copy. tcp: one-way latency against the raw NIO TCP ping-pong (NioTcpPingPongBench)
and, with --peers, against UCX ucx_perftest tag_lat over tcp; 1 MiB bandwidth against UCX tag_bw. The tcp
transport's benchmarks are expected in package io.jdat.bench.tcp under the mem benchmarks' class and
method names (SendRecvPingPongBench.roundTrip, RdmaWriteBandwidthBench.write). Also the allocation per
operation from -prof gc.

Usage: ratios.py RESULT.json [--peers PEERS.tsv]
  PEERS.tsv: results.tsv of jdat-bench/peers-tcp.sh, run in the same session (medians over its runs).
Units: ping-pong scores are one-way ns (RTT / 2); bandwidth scores are bytes/s (MB/s = score / 10^6).
"""
import csv
import json
import statistics
import sys

NAMES = {
    "SpinPingPongBench.roundTrip": "spin",
    "AeronIpcPingPongBench.roundTrip": "aeron",
    "NioTcpPingPongBench.roundTrip": "nio_tcp",
    "NioTcpStreamBench.stream": "nio_tcp_stream",
    "SendRecvPingPongBench.roundTrip": "jdat_sendrecv",
    "MemCopyBench.nativeToNative1MiB": "copy",
    "RdmaWriteBandwidthBench.write": "jdat_rdma_write",
}


def load(path):
    """{(key, params): (median, forks, unit, alloc or None)}; keys of io.jdat.bench.tcp get 'tcp_' prepended."""
    results = {}
    for r in json.load(open(path)):
        parts = r["benchmark"].rsplit(".", 3)
        key = NAMES.get(parts[-2] + "." + parts[-1])
        if key is None:
            continue
        if parts[-3] == "tcp":
            key = "tcp_" + key
        params = tuple(sorted(r.get("params", {}).items()))
        forks = [statistics.mean(f) for f in r["primaryMetric"]["rawData"]]
        gc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        results[(key, params)] = (statistics.median(forks), forks, r["primaryMetric"]["scoreUnit"],
                                  gc["score"] if gc else None)
    return results


def pick(results, key, **want):
    """Median score of KEY whose params match WANT (params it does not have match anything), or None."""
    for (k, params), v in results.items():
        p = dict(params)
        if k == key and all(str(p.get(n, x)) == str(x) for n, x in want.items()):
            return v[0]
    return None


def load_peers(path):
    """{(peer, test, size): (median one-way µs or None, median MB/s or None)} from peers-tcp.sh results.tsv."""
    rows = {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            k = (row["peer"], row["test"], int(row["size"]))
            ow, bw = rows.setdefault(k, ([], []))
            if row["oneway_us"]:
                ow.append(float(row["oneway_us"]))
            if row["bw_MBps"]:
                bw.append(float(row["bw_MBps"]))
    return {k: (statistics.median(ow) if ow else None, statistics.median(bw) if bw else None)
            for k, (ow, bw) in rows.items()}


def ratio(label, num, den, goal):
    if num is not None and den:
        print(f"{label:44} = {num / den:.2f}x ({goal})")


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    results = load(argv[0])
    peers = load_peers(argv[argv.index("--peers") + 1]) if "--peers" in argv else {}

    for (key, params), (median, forks, unit, alloc) in results.items():
        label = key + ("[" + ",".join(f"{n}={v}" for n, v in params) + "]" if params else "")
        shown = ", ".join(f"{f:,.1f}" for f in forks)
        extra = f"; alloc {alloc:.3f} B/op" if alloc is not None else ""
        is_bw = unit == "ops/s" and (key in ("copy", "nio_tcp_stream") or key.endswith("rdma_write"))
        mbps = f" = {median / 1e6:,.0f} MB/s" if is_bw else ""
        print(f"{label:36} median {median:,.1f} {unit}{mbps} (forks: {shown}){extra}")
    for (peer, test, size), (ow, bw) in peers.items():
        shown = (f"one-way {ow:.3f} µs" if ow is not None else "") + (", " if ow is not None and bw else "") + \
            (f"{bw:,.0f} MB/s" if bw else "")
        print(f"{'peer ' + peer + ' ' + test + ' ' + str(size):52} median {shown}")

    g = lambda key, **p: pick(results, key, **p)
    ratio("send/recv one-way / spin ping-pong", g("jdat_sendrecv", size=64), g("spin"), "goal <= 2.0")
    ratio("send/recv one-way / Aeron IPC", g("jdat_sendrecv", size=64), g("aeron"), "goal <= 1.0")
    ratio("RDMA Write 1 MiB / MemorySegment.copy", g("jdat_rdma_write"), g("copy"), "goal >= 0.9")

    ucx_lat = peers.get(("UCX ucx_perftest tcp", "tag_lat", 64), (None, None))[0]
    ucx_bw = peers.get(("UCX ucx_perftest tcp", "tag_bw", 1048576), (None, None))[1]
    fi_lat = peers.get(("libfabric fi_pingpong tcp msg", "pingpong", 64), (None, None))[0]
    nio = g("nio_tcp", size=64)
    nio_bw = g("nio_tcp_stream", size=1048576)
    tcp_lat = g("tcp_jdat_sendrecv", size=64)
    tcp_bw = g("tcp_jdat_rdma_write")
    us = lambda ns: ns / 1000 if ns is not None else None
    mb = lambda bps: bps / 1e6 if bps is not None else None
    ratio("tcp send/recv 64 B one-way / NIO TCP", tcp_lat, nio, "goal <= 1.2")
    ratio("tcp send/recv 64 B one-way / UCX tcp tag_lat", us(tcp_lat), ucx_lat, "goal <= 1.0")
    ratio("tcp send/recv 64 B one-way / fi_pingpong tcp", us(tcp_lat), fi_lat, "peer")
    ratio("tcp RDMA Write 1 MiB / UCX tcp tag_bw", mb(tcp_bw), ucx_bw, "goal >= 1.0")
    ratio("NIO TCP 64 B one-way / UCX tcp tag_lat", us(nio), ucx_lat, "baselines")
    ratio("NIO TCP stream 1 MiB / UCX tcp tag_bw", mb(nio_bw), ucx_bw, "baselines")


if __name__ == "__main__":
    main(sys.argv[1:])
