#!/usr/bin/env python3
"""Summarises a JMH JSON result (-rf json -rff FILE) of the mem benchmarks and their baselines.

Per benchmark: the median over forks of each fork's mean, then the ratios the issues set as goals:
send/recv one-way latency against the spin baseline and Aeron IPC, RDMA Write bandwidth against
MemorySegment.copy, and the allocation per operation from -prof gc. Usage: ratios.py RESULT.json
"""
import json
import statistics
import sys

NAMES = {
    "SpinPingPongBench.roundTrip": "spin",
    "AeronIpcPingPongBench.roundTrip": "aeron",
    "SendRecvPingPongBench.roundTrip": "jdat_sendrecv",
    "MemCopyBench.nativeToNative1MiB": "copy",
    "RdmaWriteBandwidthBench.write": "jdat_rdma_write",
}


def main(path):
    results = {}
    alloc = {}
    for r in json.load(open(path)):
        short = r["benchmark"].rsplit(".", 2)
        key = NAMES.get(short[-2] + "." + short[-1])
        if key is None:
            continue
        forks = [statistics.mean(f) for f in r["primaryMetric"]["rawData"]]
        results[key] = (statistics.median(forks), forks, r["primaryMetric"]["scoreUnit"])
        gc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
        if gc:
            alloc[key] = gc["score"]
    for key, (median, forks, unit) in results.items():
        shown = ", ".join(f"{f:,.1f}" for f in forks)
        extra = f"; alloc {alloc[key]:.3f} B/op" if key in alloc else ""
        print(f"{key:16} median {median:,.1f} {unit} (forks: {shown}){extra}")
    if {"jdat_sendrecv", "spin"} <= results.keys():
        print(f"send/recv one-way / spin ping-pong   = {results['jdat_sendrecv'][0] / results['spin'][0]:.2f}x (goal <= 2.0)")
    if {"jdat_sendrecv", "aeron"} <= results.keys():
        print(f"send/recv one-way / Aeron IPC        = {results['jdat_sendrecv'][0] / results['aeron'][0]:.2f}x (goal <= 1.0)")
    if {"jdat_rdma_write", "copy"} <= results.keys():
        print(f"RDMA Write 1 MiB / MemorySegment.copy = {results['jdat_rdma_write'][0] / results['copy'][0]:.2f}x (goal >= 0.9)")


if __name__ == "__main__":
    main(sys.argv[1])
