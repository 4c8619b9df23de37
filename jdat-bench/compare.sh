#!/usr/bin/env bash
# jdat against the installed peers at the same sizes, in one run, as one table with ratios.
#
#   jdat-bench/compare.sh [--ia NAME] [--sizes LIST] [--iters N] [--reps N] [--only LIST] [--out DIR]
#
#   --ia NAME    : the jdat IA to measure (default tcp). A name starting with "tcp" is compared with the TCP
#                  peers over 127.0.0.1; any other (mem, shm) with the shared-memory peers.
#   --sizes LIST : comma list of message sizes in bytes, multiples of 8 (default 64,4096,65536,1048576)
#   --iters N    : ping-pong iterations up to 4 KiB (default 20000); 64 KiB runs a quarter, larger sizes
#                  N/64 (at least 10). Streams move about N x size bytes (at least 1 MiB, at most 1 GiB).
#   --reps N     : repetitions of everything (default 1); the table shows medians
#   --only LIST  : comma list of groups (default: all that fit the IA)
#                    jdat   jdat perf --json, one run per size (send/recv ping-pong, RDMA write stream)
#                    fi     libfabric fi_pingpong: -p tcp -e msg, or -p shm -e rdm
#                    ucx    ucx_perftest tag_lat / tag_bw: UCX_TLS=tcp, or posix,self
#                    qperf  qperf tcp_lat / tcp_bw (TCP only)
#                    iperf  iperf3, one 1 s TCP stream (TCP only; its own 128 KiB writes)
#   --out DIR    : raw logs, results.tsv and table.md (default /tmp/jdat-compare-DATE)
#
# Nothing is installed: a peer that is not on the PATH is skipped with a note. The TCP peers of ucx and fi
# run through jdat-bench/peers-tcp.sh (same commands, iterations and parsing as shared/bench/peers/run.sh);
# qperf, iperf3 and the shared-memory peers use run.sh's commands too. Every tool runs under `timeout`;
# servers are stopped by PID. This measures: run it on a quiet machine (2 vCPUs: any third busy thread
# ruins busy-polling figures) and compare only figures of one run.
#
# Table: latency rows compare jdat's send/recv ping-pong one-way median (RTT/2) with each peer's ping-pong
# one-way figure at the same size; bandwidth rows compare jdat's RDMA write stream (and send stream) with
# each peer's streaming test. ratio = jdat / peer: below 1 is faster for latency, above 1 is faster for
# bandwidth. Exit code 0 when jdat ran (peers may be skipped), 1 when jdat perf failed, 2 on a usage error.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
IA=tcp
SIZES=64,4096,65536,1048576
ITERS=20000
REPS=1
ONLY=""
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --ia) IA="$2"; shift 2 ;;
        --sizes) SIZES="$2"; shift 2 ;;
        --iters) ITERS="$2"; shift 2 ;;
        --reps) REPS="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "compare.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$ITERS" in ''|*[!0-9]*|0) echo "compare.sh: --iters needs a positive integer" >&2; exit 2 ;; esac
case "$REPS" in ''|*[!0-9]*|0) echo "compare.sh: --reps needs a positive integer" >&2; exit 2 ;; esac
case "$SIZES" in ''|*[!0-9,]*) echo "compare.sh: --sizes needs a comma list of byte counts, e.g. 64,4096" >&2; exit 2 ;; esac
for s in ${SIZES//,/ }; do
    if [ "$s" -lt 8 ] || [ $((s % 8)) -ne 0 ]; then
        echo "compare.sh: --sizes: $s is not a positive multiple of 8 (jdat perf needs that)" >&2; exit 2
    fi
done
case "$IA" in
    tcp*) KIND=tcp ;;
    *) KIND=shm ;;
esac
if [ -z "$ONLY" ]; then
    if [ "$KIND" = tcp ]; then ONLY="jdat,fi,ucx,qperf,iperf"; else ONLY="jdat,fi,ucx"; fi
fi
for g in ${ONLY//,/ }; do
    case "$g" in
        jdat|fi|ucx) ;;
        qperf|iperf) [ "$KIND" = tcp ] || { echo "compare.sh: --only $g needs a TCP IA (--ia tcp)" >&2; exit 2; } ;;
        *) echo "compare.sh: unknown group in --only: $g (jdat, fi, ucx, qperf, iperf)" >&2; exit 2 ;;
    esac
done
if ! command -v python3 >/dev/null 2>&1; then
    echo "compare.sh: python3 is needed to read the results and print the table" >&2; exit 1
fi

OUT="${OUT:-/tmp/jdat-compare-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT/raw" && OUT="$(cd "$OUT" && pwd)" || exit 1
RAW="$OUT/raw"
TSV="$OUT/results.tsv"
NOTES="$OUT/notes.txt"
printf 'peer\ttest\tsize\trep\toneway_us\tbw_MBps\tbasis\n' > "$TSV"
: > "$NOTES"
T0=$(date +%s)
PORT=$((21000 + RANDOM % 20000))

log() { echo "[$(($(date +%s) - T0))s] $*" >&2; }
note() { echo "$*" >> "$NOTES"; log "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
calc() { awk "BEGIN { v = $1; if (v != v) print \"\"; else printf \"%.4f\", v }" 2>/dev/null; }
rec() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$TSV"; }   # peer test size rep oneway bw basis
iters_for() { # iterations of a ping-pong at SIZE
    if [ "$1" -le 4096 ]; then echo "$ITERS"
    elif [ "$1" -le 65536 ]; then echo $(( ITERS / 4 > 10 ? ITERS / 4 : 10 ))
    else echo $(( ITERS / 64 > 10 ? ITERS / 64 : 10 )); fi
}

# ---------------------------------------------------------------- process control (as peers-tcp.sh)
. "$HERE/processes.sh"

log "output: $OUT; IA $IA ($KIND peers); sizes $SIZES; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- jdat perf
JDAT_OK=1
if want jdat; then
    if ! (cd "$ROOT" && ./jdat.sh --version > "$RAW/jdat-version.txt" 2>&1); then
        note "jdat: the tools do not build or start (see $RAW/jdat-version.txt)"
        JDAT_OK=0
    fi
    for r in $(seq 1 "$REPS"); do
        [ "$JDAT_OK" = 1 ] || break
        for s in ${SIZES//,/ }; do
            n=$(iters_for "$s")
            bw=$(( s * n )); [ "$bw" -lt 1048576 ] && bw=1048576; [ "$bw" -gt 1073741824 ] && bw=1073741824
            bws=$(( s < 16 ? 16 : s ))
            f="$RAW/jdat_${IA}_${s}_r$r"
            if ! run_client "$f.json" timeout 300 "$ROOT/jdat.sh" perf --ia "$IA" --sizes "$s" -n "$n" \
                    --warmup $(( n / 5 )) --bw-size "$bws" --bw-bytes "$bw" --json --conn-qual $(( PORT++ )); then
                note "jdat perf --ia $IA at $s B failed: $(grep -m1 . "$f.json")"
                JDAT_OK=0
                break
            fi
            python3 - "$f.json" "$IA" "$s" "$r" >> "$TSV" <<'PY' || note "jdat: cannot read $f.json"
import json, sys
path, ia, size, rep = sys.argv[1:5]
d = json.load(open(path))
for row in d["results"]:
    if row["size"] != int(size):
        continue
    op = row["operation"]
    if op == "send/recv ping-pong":
        print(f"jdat {ia}\tsend/recv ping-pong\t{size}\t{rep}\t{row['median_us']}\t\tpp; one-way = median RTT/2")
    elif op in ("RDMA write stream", "send stream"):
        print(f"jdat {ia}\t{op}\t{size}\t{rep}\t\t{row['mb_per_s']}\tstream")
PY
        done
    done
    [ "$JDAT_OK" = 1 ] && log "jdat done"
fi

# ---------------------------------------------------------------- TCP peers
if [ "$KIND" = tcp ]; then
    groups=""
    want fi && groups="$groups,fi"
    want ucx && groups="$groups,ucx"
    if [ -n "$groups" ]; then
        "$HERE/peers-tcp.sh" --reps "$REPS" --only "${groups#,}" --sizes "$SIZES" --iters "$ITERS" \
            --big-iters $(( ITERS / 64 > 10 ? ITERS / 64 : 10 )) --out "$OUT/peers-tcp" > "$RAW/peers-tcp.log" 2>&1
        grep -i "not found" "$RAW/peers-tcp.log" | sed 's/^\[[0-9]*s\] //' >> "$NOTES"
        # peer test size rep oneway bw basis: the same columns
        tail -n +2 "$OUT/peers-tcp/results.tsv" 2>/dev/null >> "$TSV"
    fi
    if want qperf; then
        if have qperf; then
            PORT=$((PORT + 1)); qport=$PORT
            start_server "$RAW/qperf.srv" timeout 600 qperf -lp "$qport"
            qsrv=$SRV; sleep 0.5
            for r in $(seq 1 "$REPS"); do
                for s in ${SIZES//,/ }; do
                    f="$RAW/qperf_${s}_r$r"
                    run_client "$f" timeout 30 qperf 127.0.0.1 -lp "$qport" -uu -t 1 -m "$s" tcp_lat tcp_bw
                    lat=$(awk '/latency/ {print $3; exit}' "$f"); bw=$(awk '/ bw / {print $3; exit}' "$f")
                    [ -n "$lat" ] && rec "qperf tcp" "tcp_lat" "$s" "$r" "$(calc "$lat/1000")" "" "pp; one-way = latency (RTT/2, blocking)"
                    [ -n "$bw" ] && rec "qperf tcp" "tcp_bw" "$s" "$r" "" "$(calc "$bw/1e6")" "stream"
                    [ -z "$lat$bw" ] && log "qperf $s failed (see $f)"
                done
            done
            stop_server "$qsrv"
            log "qperf done"
        else
            note "qperf not found: skipping qperf (apt-get install qperf)"
        fi
    fi
    if want iperf; then
        if have iperf3; then
            PORT=$((PORT + 1)); iport=$PORT
            start_server "$RAW/iperf3.srv" timeout 300 iperf3 -s -B 127.0.0.1 -p "$iport"
            isrv=$SRV; sleep 0.5
            for r in $(seq 1 "$REPS"); do
                f="$RAW/iperf3_r$r.json"
                run_client "$f" timeout 30 iperf3 -c 127.0.0.1 -p "$iport" -t 1 -J
                bps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"])' "$f" 2>/dev/null)
                if [ -n "$bps" ]; then
                    # iperf3 writes 128 KiB: compared with the jdat stream of the largest size
                    rec "iperf3 tcp" "stream (128 KiB writes)" "max" "$r" "" "$(calc "$bps/8e6")" "stream"
                else
                    log "iperf3 failed (see $f)"
                fi
                sleep 0.3
            done
            stop_server "$isrv"
            log "iperf3 done"
        else
            note "iperf3 not found: skipping iperf (apt-get install iperf3)"
        fi
    fi
fi

# ---------------------------------------------------------------- shared-memory peers
if [ "$KIND" = shm ]; then
    if want fi; then
        if have fi_pingpong; then
            for r in $(seq 1 "$REPS"); do
                for s in ${SIZES//,/ }; do
                    n=$(iters_for "$s"); PORT=$((PORT + 1)); f="$RAW/fi_shm_${s}_r$r"
                    start_server "$f.srv" timeout 60 fi_pingpong -p shm -e rdm -I "$n" -S "$s" -B "$PORT"
                    srv=$SRV; sleep 0.3
                    run_client "$f.cli" timeout 60 fi_pingpong -p shm -e rdm -I "$n" -S "$s" -P "$PORT" 127.0.0.1
                    stop_server "$srv"
                    line=$(grep -E '^[0-9]+[kmg]? ' "$f.cli" | tail -1)
                    mbps=$(echo "$line" | awk '{print $6}'); usx=$(echo "$line" | awk '{print $7}')
                    if [ -n "$mbps" ]; then
                        rec "libfabric fi_pingpong shm rdm" "pingpong" "$s" "$r" "$(calc "($mbps > 0) ? $s / $mbps : $usx")" \
                            "$mbps" "pp; one-way = usec/xfer (mean RTT/2)"
                    else
                        log "fi shm $s failed (see $f.cli)"
                    fi
                done
            done
            log "fi done"
        else
            note "fi_pingpong not found: skipping fi (apt-get install libfabric-bin)"
        fi
    fi
    if want ucx; then
        if have ucx_perftest; then
            for r in $(seq 1 "$REPS"); do
                for s in ${SIZES//,/ }; do
                    for t in tag_lat tag_bw; do
                        n=$(iters_for "$s"); PORT=$((PORT + 1)); f="$RAW/ucx_posix_${t}_${s}_r$r"
                        UCX_TLS=posix,self start_server "$f.srv" timeout 60 ucx_perftest -p "$PORT"
                        srv=$SRV; sleep 0.3
                        UCX_TLS=posix,self run_client "$f.cli" timeout 60 ucx_perftest 127.0.0.1 -p "$PORT" -t "$t" \
                            -s "$s" -n "$n" -w $((n / 10 + 10)) -f
                        stop_server "$srv"
                        line=$(grep -E '^[ A-Za-z:]*[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ *$' "$f.cli" | tail -1)
                        if [ -z "$line" ]; then log "ucx $t $s failed (see $f.cli)"; continue; fi
                        set -- $(echo "$line" | awk '{for (i = NF - 7; i <= NF; i++) printf "%s ", $i}')
                        if [ "$t" = tag_lat ]; then
                            rec "UCX ucx_perftest posix,self" "$t" "$s" "$r" "$4" "$(calc "$6 * 1.048576")" "pp; one-way = overall avg (RTT/2)"
                        else
                            rec "UCX ucx_perftest posix,self" "$t" "$s" "$r" "" "$(calc "$6 * 1.048576")" "stream (overall)"
                        fi
                    done
                done
            done
            log "ucx done"
        else
            note "ucx_perftest not found: skipping ucx (apt-get install ucx-utils)"
        fi
    fi
fi

# ---------------------------------------------------------------- table
python3 - "$TSV" "$NOTES" "$IA" "$SIZES" <<'PY' | tee "$OUT/table.md"
import statistics, sys
tsv, notes, ia, sizes = sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4].split(",")]
rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
def med(vals):
    v = [float(x) for x in vals if x not in ("", None)]
    return statistics.median(v) if v else None
def size_name(s):
    for u, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= n and s % n == 0:
            return f"{s // n} {u}"
    return f"{s} B"
def num(v):
    return "-" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 1 else f"{v:.3f}"
series = {}
for peer, test, size, rep, ow, bw, basis in rows:
    series.setdefault((peer, test, size), ([], []))
    series[(peer, test, size)][0].append(ow)
    series[(peer, test, size)][1].append(bw)
jdat = f"jdat {ia}"
out = ["| metric | size | jdat | value | peer | peer value | ratio jdat/peer |", "|---|---|---|---|---|---|---|"]
largest = str(max(sizes))
for s in sizes:
    key = str(s)
    j = med(series.get((jdat, "send/recv ping-pong", key), ([], []))[0])
    peers = [(p, t) for (p, t, sz) in series if sz == key and p != jdat and series[(p, t, sz)][0] and med(series[(p, t, sz)][0]) is not None]
    for p, t in sorted(peers):
        v = med(series[(p, t, key)][0])
        ratio = f"{j / v:.2f}x" if j is not None and v else "-"
        out.append(f"| one-way latency µs | {size_name(s)} | send/recv ping-pong | {num(j)} | {p} {t} | {num(v)} | {ratio} |")
    if not peers:
        out.append(f"| one-way latency µs | {size_name(s)} | send/recv ping-pong | {num(j)} | (no peer) | - | - |")
for s in sizes:
    key = str(s)
    for jt in ("RDMA write stream", "send stream"):
        j = med(series.get((jdat, jt, key), ([], []))[1])
        peers = []
        for (p, t, sz), (ows, bws) in series.items():
            if p == jdat or not (sz == key or (sz == "max" and key == largest)):
                continue
            basis = next((r[6] for r in rows if (r[0], r[1], r[2]) == (p, t, sz)), "")
            if basis.startswith("stream") and med(bws) is not None:
                peers.append((p, t, sz))
        for p, t, sz in sorted(peers):
            v = med(series[(p, t, sz)][1])
            ratio = f"{j / v:.2f}x" if j is not None and v else "-"
            out.append(f"| stream MB/s | {size_name(s)} | {jt} | {num(j)} | {p} {t} | {num(v)} | {ratio} |")
        if not peers and j is not None:
            out.append(f"| stream MB/s | {size_name(s)} | {jt} | {num(j)} | (no peer) | - | - |")
print("\n".join(out))
print()
print("ratio = jdat / peer: below 1 is faster for latency, above 1 is faster for bandwidth (medians of the runs).")
for line in open(notes):
    if line.strip():
        print("note: " + line.strip())
PY
log "rows: $TSV; table: $OUT/table.md"
[ "$JDAT_OK" = 1 ] || exit 1
exit 0
