#!/usr/bin/env python3
"""The table of jdat-bench/shm-bench.sh: jdat shm against its peers, measured in one run.

Usage: shm-ratios.py DIR   (DIR holds peers/results.tsv, shm.json and perf-*.json of that run; a perf JSON
       whose "memory" is "shared" counts as a --memory shared run)

Latency rows are one-way (RTT / 2): jdat perf medians over its runs against the peers' run medians (UCX:
its per-run p50; libfabric and Aeron: as their tools report), and JMH means against UCX's means. Bandwidth
rows are JMH (median over forks) against UCX ucp_put_bw / ucp_get medians. "min" is the best run.
"""
import glob
import json
import os
import re
import statistics as st
import sys

out = sys.argv[1] if len(sys.argv) > 1 else '.'


def peer_rows():
    rows = {}
    path = os.path.join(out, 'peers', 'results.tsv')
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'peer' or len(f) < 9:
            continue
        rows.setdefault((f[0].split(' ')[0], f[1], f[2], f[3]), []).append(f)
    return rows


peers = peer_rows()


def peer(name, transport, test, size, what):
    """what: 'mean' (one-way), 'p50' (one-way, from the basis text), 'bw' (MB/s)."""
    vals = []
    for (n, t, te, s), rs in peers.items():
        if n == name and t.startswith(transport) and te == test and s == str(size):
            for f in rs:
                if what == 'bw' and f[7]:
                    vals.append(float(f[7]))
                elif what == 'mean' and f[5]:
                    vals.append(float(f[5]))
                elif what == 'p50':
                    m = re.search(r'p50 ([0-9.]+)', f[8])
                    vals.append(float(m.group(1)) if m and name == 'UCX' else float(f[5]) if f[5] else None)
    vals = [v for v in vals if v is not None]
    return (st.median(vals), min(vals) if what != 'bw' else max(vals)) if vals else None


jmh = {}
if os.path.exists(os.path.join(out, 'shm.json')):
    for b in json.load(open(os.path.join(out, 'shm.json'))):
        p = b.get('params', {})
        key = b['benchmark'].split('.')[-2] + ''.join(f' {k}={v}' for k, v in sorted(p.items()))
        forks = [st.median(f) for f in b['primaryMetric']['rawData']]
        sec = b['secondaryMetrics']
        alloc = (sec.get('gc.alloc.rate.norm') or sec.get('·gc.alloc.rate.norm') or {}).get('score')
        jmh[key] = (st.median(forks), min(forks), max(forks), alloc)

perf = {}        # native memory: latency and streams
perf_shared = {}  # --memory shared: streams
for fn in sorted(glob.glob(os.path.join(out, 'perf-*.json'))):
    run = json.load(open(fn))
    into = perf_shared if run.get('memory') == 'shared' else perf
    for r in run['results']:
        into.setdefault((r['operation'], r['size']), []).append(
            r['median_us'] if r['median_us'] is not None else r['mb_per_s'])


def fmt(x, unit):
    return '-' if x is None else f'{x:.3f} {unit}' if unit == 'µs' else f'{x / 1000:.1f} GB/s'


def ratio(a, b):
    return f'{a / b:.2f}×' if a and b else '-'


print(f'{"measurement":66} {"jdat (median, min)":>22} {"peer (median, best)":>22}  ratio')
lat = [('send/recv 64 B, jdat perf vs UCX tag_lat p50', ('send/recv ping-pong', 64), ('UCX', 'posix', 'tag_lat', 64, 'p50')),
       ('send/recv 64 B, jdat perf vs fi_pingpong shm', ('send/recv ping-pong', 64), ('libfabric', 'shm', 'pingpong', 64, 'mean')),
       ('send/recv 64 B, jdat perf vs Aeron IPC (32 B, 2 JVMs)', ('send/recv ping-pong', 64), ('Aeron', 'ipc (cross', 'pingpong', 32, 'mean')),
       ('RDMA Write 64 B, jdat perf vs UCX ucp_put_lat p50', ('RDMA write ping-pong', 64), ('UCX', 'posix', 'ucp_put_lat', 64, 'p50'))]
for label, pk, (n, t, te, s, w) in lat:
    mine = perf.get(pk)
    other = peer(n, t, te, s, w)
    if mine:
        print(f'{label:66} {fmt(st.median(mine), "µs") + ", " + fmt(min(mine), "µs"):>22} '
              f'{(fmt(other[0], "µs") + ", " + fmt(other[1], "µs")) if other else "-":>22}  '
              f'{ratio(st.median(mine), other[0] if other else None)}')
spin = jmh.get('SpinFilePingPongBench')
tag_mean = peer('UCX', 'posix', 'tag_lat', 64, 'mean')
put_mean = peer('UCX', 'posix', 'ucp_put_lat', 64, 'mean')
for op, ref, name in (('send', tag_mean, 'tag_lat'), ('write', put_mean, 'ucp_put_lat')):
    for k, v in jmh.items():
        if k.startswith('ShmPingPongBench') and f'op={op}' in k:
            print(f'{"JMH " + k[17:] + " (mean) vs UCX " + name + " mean":66} {v[0]:>19.0f} ns'
                  f'{(f"{ref[0] * 1000:.0f} ns") if ref else "-":>22}  {ratio(v[0] / 1000, ref[0] if ref else None)}'
                  f'  ({ratio(v[0], spin[0]) if spin else "-"} the spin)')
if spin:
    print(f'{"bare two-process spin ping-pong (JMH, one-way)":66} {spin[0]:>19.0f} ns')
put_bw = peer('UCX', 'posix', 'ucp_put_bw', 1048576, 'bw')
get_bw = peer('UCX', 'posix', 'ucp_get', 1048576, 'bw')
for k, v in jmh.items():
    if k.startswith('ShmBandwidthBench'):
        ref, name = (get_bw, 'ucp_get') if 'op=read' in k else (put_bw, 'ucp_put_bw')
        print(f'{"JMH " + k[18:] + " vs UCX " + name:66} {v[0] / 1e9:>17.1f} GB/s'
              f'{(f"{ref[0] / 1000:.1f} GB/s") if ref else "-":>22}  {ratio(v[0] / 1e6, ref[0] if ref else None)}')
for rows, memory in ((perf, 'native memory'), (perf_shared, 'ShmMemory')):
    for (op, size), v in rows.items():
        if 'stream' in op:
            print(f'{"jdat perf " + op + " (verified, " + memory + ")":66} {st.median(v) / 1000:>17.1f} GB/s')
allocs = [v[3] for v in jmh.values() if v[3] is not None]
if allocs:
    print(f'allocation per operation (JMH -prof gc): at most {max(allocs):.3f} B/op')
