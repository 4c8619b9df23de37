#!/usr/bin/env bash
# Issue 18's ratio table in one go: the two-process `jdat perf` (--server / --client, --no-verify) on shm and tcp,
# `jdat perf` on mem (one process), and the peers on this machine, medians of interleaved runs.
#
#   jdat-bench/issue18.sh [--reps N] [--out DIR] [--no-install] [--only LIST] [--quick]
#
#   --reps N      : interleaved repetitions of everything (default 3); the table shows medians
#   --out DIR     : raw logs, results.tsv and table.md (default /tmp/jdat-issue18-DATE)
#   --no-install  : do not apt-get install missing peers (default: as root, install ucx-utils and libfabric-bin
#                   when ucx_perftest or fi_pingpong is missing); a missing peer is skipped with a note
#   --only LIST   : comma list of groups (default all): shm, tcp, mem (jdat perf, polling), wait (jdat perf
#                   --wait on mem, shm and tcp), ucx, fi, spin (the in-JVM spin limit, JvmSpinPingPong.java),
#                   scale (how cost grows with connections: jdat-bench/scale.sh, once, after the repetitions)
#   --quick       : a tenth of the iterations and bytes, one repetition (a smoke run: figures are rough); scale
#                   with 1, 16 and 256 connections and shorter phases
#
# What runs, per repetition (in this order, so that the runs of one scenario are spread over the whole time):
#   jdat shm  : server `jdat perf --server --ia shm`; clients (each its own server):
#               `--op send,rdma-write --sizes 64 --bw-size 1M --window 16 --memory shared --no-verify`,
#               `--op rdma-write --test bandwidth --bw-size 1M --window 1 --memory shared --no-verify` and
#               `--op rdma-write --test bandwidth --bw-size 1M --window 16 --memory native --no-verify`.
#               Shared: the buffers are DAT shared memory (ShmMemory), which the peer maps and copies once, like
#               ucx_perftest's buffers with UCX_TLS=posix (ucp_mem_map allocates them in shared memory, the put is a
#               memcpy into the peer's mapping): the like-for-like row. Native: plain native memory, which the
#               peer reaches with cross-memory attach (process_vm_readv/writev), a labelled row of its own.
#   UCX posix : UCX_TLS=posix,self ucx_perftest tag_lat 64 B, ucp_put_lat 64 B, ucp_put_bw 1 MiB
#   fi shm    : fi_pingpong -p shm -e rdm -S 64
#   jdat tcp  : as shm with --ia tcp over 127.0.0.1, windows 16 and 2
#   UCX tcp   : UCX_TLS=tcp ucx_perftest tag_lat 64 B, tag_bw 1 MiB
#   fi tcp    : fi_pingpong -p tcp -e msg -S 64
#   jdat mem  : `jdat perf --ia mem --op send --test latency --sizes 64 --no-verify` (one process)
#   spin      : JvmSpinPingPong.java (from the peers' bench directory): two threads, a 64 B payload copied each way
#   wait      : `jdat perf --op send --test latency --sizes 64 --wait --no-verify` on mem, shm and tcp (two
#               processes for shm and tcp), each with a polling run of the same length when its provider's own
#               group is not selected (`--only wait` is the wait table alone: polling against --wait, p50/p99, CPU)
# and once, after the repetitions:
#   scale     : `jdat-bench/scale.sh --providers mem,shm,tcp --conns 1,16,256,1024` (ScaleBench, one process, both
#               ends of every connection): set-up rate, heap and RSS per connection, idle CPU, one empty poll, the
#               aggregate 64 B round-trip rate and its fairness; its table, the goals' rows (rate at 1024 against
#               16, idle CPU at 1024, the empty poll at 1024 against 1) and a chart (scale.png). 1024 shm
#               connections hold 2.5 GiB of /dev/shm; a provider that cannot set them up shows a FAILED row.
# jdat perf runs from jdat-tools/target/jdat-tools.jar (built first by ./jdat.sh when a source is newer).
#
# Figures (all one-way = half a round trip for the ping-pongs): jdat perf's median; ucx_perftest's "typical"
# (its p50) latency and "overall" bandwidth (MiB/s converted to 10^6 B/s); fi_pingpong's usec/xfer (a mean);
# the spin limit's median 10,000-round-trip chunk. CPU µs/msg: jdat perf's column (CPU time of both processes per
# message, a ping-pong iteration being two). Every tool runs under `timeout`; servers are stopped by PID. The load
# (`uptime`) before and after goes into the table: on a 2-core machine any third busy thread ruins busy-polling
# figures, so take figures on a quiet machine. Exit code 0 when the jdat runs succeeded, 1 when one failed,
# 2 on a usage error. Every test is short (about a second on a quiet machine), so three repetitions should take a
# few minutes there; under a load of 10 (three busy JVMs and a qemu VM on the 2 cores) they took 22 minutes.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
REPS=3
OUT=""
INSTALL=1
ONLY="shm,tcp,mem,wait,ucx,fi,spin,scale"
SCALE=1
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) REPS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --no-install) INSTALL=0; shift ;;
        --only) ONLY="$2"; shift 2 ;;
        --quick) SCALE=10; REPS=1; shift ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "issue18.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$REPS" in ''|*[!0-9]*|0) echo "issue18.sh: --reps needs a positive integer" >&2; exit 2 ;; esac
for g in ${ONLY//,/ }; do
    case "$g" in
        shm|tcp|mem|wait|ucx|fi|spin|scale) ;;
        *) echo "issue18.sh: unknown group in --only: $g" >&2; exit 2 ;;
    esac
done
command -v python3 >/dev/null 2>&1 || { echo "issue18.sh: python3 is needed for the table" >&2; exit 1; }

OUT="${OUT:-/tmp/jdat-issue18-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT/raw" && OUT="$(cd "$OUT" && pwd)" || exit 1
RAW="$OUT/raw"
TSV="$OUT/results.tsv"
NOTES="$OUT/notes.txt"
printf 'key\trep\tvalue\tp99\tcpu\n' > "$TSV"
: > "$NOTES"
T0=$(date +%s)
QUAL=$((21000 + RANDOM % 20000))
PEERS="${PEERS_DIR:-$ROOT/../shared/bench/peers}"
[ -d "$PEERS" ] || PEERS="$ROOT/../../shared/bench/peers"

log() { echo "[$(($(date +%s) - T0))s] $*" >&2; }
note() { echo "$*" >> "$NOTES"; log "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
rec() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$TSV"; }   # key rep value p99 cpu
n_of() { echo $(( $1 / SCALE > 100 ? $1 / SCALE : 100 )); }

# ---------------------------------------------------------------- process control
. "$HERE/processes.sh"

# ---------------------------------------------------------------- set-up
echo "load before: $(uptime)" >> "$NOTES"
log "output: $OUT; load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$INSTALL" = 1 ] && { ! have ucx_perftest || ! have fi_pingpong; } && [ "$(id -u)" = 0 ] && have apt-get; then
    log "installing the peers (apt-get install ucx-utils libfabric-bin)"
    { apt-get install -y -q ucx-utils libfabric-bin || { apt-get update -q && apt-get install -y -q ucx-utils libfabric-bin; }; } \
        > "$RAW/apt.log" 2>&1 || note "apt-get install ucx-utils libfabric-bin failed (see $RAW/apt.log)"
fi
JDAT_OK=1
if want shm || want tcp || want mem || want wait; then
    if ! (cd "$ROOT" && ./jdat.sh --version > "$RAW/jdat-version.txt" 2>&1); then
        note "jdat: the tools do not build or start (see $RAW/jdat-version.txt)"
        exit 1
    fi
fi
. "$ROOT/bin/jdk25.sh" >/dev/null 2>&1 || true
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
PERF=("$JAVA" --enable-native-access=ALL-UNNAMED -jar "$ROOT/jdat-tools/target/jdat-tools.jar" perf)

# ---------------------------------------------------------------- jdat perf
# jdat_rows JSON KEY REP: one row per result of a `jdat perf --json` run
jdat_rows() {
    python3 - "$1" "$2" "$3" >> "$TSV" <<'PY' || note "jdat: cannot read $1"
import json, sys
path, key, rep = sys.argv[1:4]
d = json.load(open(path))
names = {"send/recv ping-pong": "send_lat", "RDMA write ping-pong": "write_lat", "RDMA read": "read_lat",
         "RDMA write stream": "write_bw", "send stream": "send_bw", "RDMA read stream": "read_bw"}
for r in d["results"]:
    n = names[r["operation"]]
    if n.endswith("_bw"):
        n += "_w%d" % d["window"]
        v = r["mb_per_s"]
        p99 = ""
    else:
        v = r["median_us"]
        p99 = r["p99_us"]
    cpu = r.get("cpu_us_per_msg")
    print("\t".join(str(x) for x in (key + ":" + n, rep, v, "" if p99 is None else p99, "" if cpu is None else cpu)))
PY
}
# perf_two IA KEY REP TAG CLIENT-ARGS...: a server and a client process; rows go under KEY
perf_two() {
    local ia=$1 key=$2 r=$3 tag=$4; shift 4
    local q=$QUAL; QUAL=$((QUAL + 2))
    local f="$RAW/jdat_${ia}_${tag}_r$r" addr
    start_server "$f.srv" timeout 300 "${PERF[@]}" --server --ia "$ia" --conn-qual "$q" --accept-timeout 60
    local srv=$SRV
    for _ in $(seq 1 150); do grep -q listening "$f.srv" 2>/dev/null && break; sleep 0.1; done
    if [ "$ia" = tcp ]; then
        addr=127.0.0.1
    else
        addr=$(grep -o 'listening at [^ ]*' "$f.srv" | head -1 | awk '{print $3}')
    fi
    if [ -z "$addr" ] || ! run_client "$f.json" timeout 300 "${PERF[@]}" --client "$addr" --ia "$ia" --conn-qual "$q" \
            --no-verify --json "$@"; then
        note "jdat perf --ia $ia ($tag, run $r) failed: $(grep -hm1 . "$f.json" "$f.srv" 2>/dev/null | head -2 | tr '\n' ' ')"
        JDAT_OK=0
        stop_server "$srv" 2
        return 1
    fi
    stop_server "$srv" 2
    jdat_rows "$f.json" "$key" "$r"
}
perf_one() { # perf_one IA KEY REP TAG ARGS...: both sides in one process
    local ia=$1 key=$2 r=$3 tag=$4; shift 4
    local f="$RAW/jdat_${ia}_${tag}_r$r"
    QUAL=$((QUAL + 2))
    if ! run_client "$f.json" timeout 300 "${PERF[@]}" --ia "$ia" --conn-qual "$QUAL" --no-verify --json "$@"; then
        note "jdat perf --ia $ia ($tag, run $r) failed: $(grep -m1 . "$f.json")"
        JDAT_OK=0
        return 1
    fi
    jdat_rows "$f.json" "$key" "$r"
}
LAT_SHM=(--op send,rdma-write --sizes 64 -n "$(n_of 200000)" --warmup "$(n_of 50000)" --bw-size 1M
         --bw-bytes "$(( 4096 / SCALE ))M" --window 16 --memory shared)
LAT_TCP=(--op send,rdma-write --sizes 64 -n "$(n_of 50000)" --warmup "$(n_of 10000)" --bw-size 1M
         --bw-bytes "$(( 2048 / SCALE ))M" --window 16)
WAIT=(--op send --test latency --sizes 64 --wait)
g_jdat_shm() {
    perf_two shm jdat:shm "$1" lat "${LAT_SHM[@]}"
    perf_two shm jdat:shm "$1" w1 --op rdma-write --test bandwidth --bw-size 1M --bw-bytes "$(( 2048 / SCALE ))M" --window 1 \
        --memory shared
    perf_two shm jdat:shm:native "$1" native --op rdma-write --test bandwidth --bw-size 1M \
        --bw-bytes "$(( 4096 / SCALE ))M" --window 16 --memory native
}
g_jdat_tcp() {
    perf_two tcp jdat:tcp "$1" lat "${LAT_TCP[@]}"
    perf_two tcp jdat:tcp "$1" w2 --op rdma-write --test bandwidth --bw-size 1M --bw-bytes "$(( 1024 / SCALE ))M" --window 2
}
g_jdat_mem() {
    perf_one mem jdat:mem "$1" lat --op send --test latency --sizes 64 -n "$(n_of 500000)" --warmup "$(n_of 100000)"
}
# g_wait REP: --wait rows, each beside a polling row of the same length (unless the provider's own group ran its
# polling 64 B send, the figure the table puts them against); so `--only wait` prints the wait table by itself
POLL=(--op send --test latency --sizes 64)
g_wait() {
    want mem || perf_one mem jdat:mem "$1" poll "${POLL[@]}" -n "$(n_of 50000)" --warmup "$(n_of 10000)"
    perf_one mem jdat:mem:wait "$1" wait "${WAIT[@]}" -n "$(n_of 50000)" --warmup "$(n_of 10000)"
    want shm || perf_two shm jdat:shm "$1" poll "${POLL[@]}" -n "$(n_of 30000)" --warmup "$(n_of 5000)"
    perf_two shm jdat:shm:wait "$1" wait "${WAIT[@]}" -n "$(n_of 30000)" --warmup "$(n_of 5000)"
    want tcp || perf_two tcp jdat:tcp "$1" poll "${POLL[@]}" -n "$(n_of 20000)" --warmup "$(n_of 5000)"
    perf_two tcp jdat:tcp:wait "$1" wait "${WAIT[@]}" -n "$(n_of 20000)" --warmup "$(n_of 5000)"
}

# ---------------------------------------------------------------- peers
# ucx TLS TEST SIZE ITERS REP: ucx_perftest as shared/bench/peers/run.sh runs it. Columns of its -f line: iters,
# typical latency, avg latency, overall latency, avg bw, overall bw (MiB/s), msgrate avg, overall.
ucx() {
    local tls=$1 t=$2 s=$3 n=$4 r=$5 f line
    QUAL=$((QUAL + 2))
    f="$RAW/ucx_${tls//,/+}_${t}_${s}_r$r"
    UCX_TLS=$tls start_server "$f.srv" timeout 60 ucx_perftest -p "$QUAL"
    local srv=$SRV; sleep 0.3
    UCX_TLS=$tls run_client "$f.cli" timeout 60 ucx_perftest 127.0.0.1 -p "$QUAL" -t "$t" -s "$s" -n "$n" \
        -w $((n / 10 + 10)) -f
    stop_server "$srv" 2
    line=$(grep -E '^[ A-Za-z:]*[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ *$' "$f.cli" | tail -1)
    if [ -z "$line" ]; then note "ucx $tls $t $s (run $r) failed (see $f.cli)"; return; fi
    set -- $(echo "$line" | awk '{for (i = NF - 7; i <= NF; i++) printf "%s ", $i}')
    local key="ucx:${tls%%,*}:$t"
    case "$t" in
        *_lat) rec "$key" "$r" "$2" "" "" ;;
        *) rec "$key" "$r" "$(awk "BEGIN { printf \"%.1f\", $6 * 1.048576 }")" "" "" ;;
    esac
}
g_ucx_posix() {
    ucx posix,self tag_lat 64 "$(n_of 100000)" "$1"
    ucx posix,self ucp_put_lat 64 "$(n_of 100000)" "$1"
    ucx posix,self ucp_put_bw 1048576 "$(n_of 4000)" "$1"
}
g_ucx_tcp() {
    ucx tcp tag_lat 64 "$(n_of 20000)" "$1"
    ucx tcp tag_bw 1048576 "$(n_of 2000)" "$1"
}
# fi_run PROV EP ITERS REP: fi_pingpong at 64 B; its usec/xfer is the mean one-way time
fi_run() {
    local prov=$1 ep=$2 n=$3 r=$4 f line us
    QUAL=$((QUAL + 2))
    f="$RAW/fi_${prov}_64_r$r"
    start_server "$f.srv" timeout 60 fi_pingpong -p "$prov" -e "$ep" -I "$n" -S 64 -B "$QUAL"
    local srv=$SRV; sleep 0.3
    run_client "$f.cli" timeout 60 fi_pingpong -p "$prov" -e "$ep" -I "$n" -S 64 -P "$QUAL" 127.0.0.1
    stop_server "$srv" 2
    line=$(grep -E '^[0-9]+[kmg]? ' "$f.cli" | tail -1)
    us=$(echo "$line" | awk '{print $7}')
    if [ -n "$us" ]; then rec "fi:$prov:pingpong" "$r" "$us" "" ""; else note "fi_pingpong $prov (run $r) failed (see $f.cli)"; fi
}
g_spin() {
    local f="$RAW/spin_r$1" med
    if [ ! -f "$PEERS/JvmSpinPingPong.java" ]; then note "spin: no $PEERS/JvmSpinPingPong.java: skipped"; return; fi
    run_client "$f" timeout 120 "$JAVA" "$PEERS/JvmSpinPingPong.java" "$(n_of 300000)" 64
    med=$(grep '^RESULT' "$f" | grep 'mode=payload' | tr ' ' '\n' | sed -n 's/^batch_rtt_ns_median_chunk=//p' | head -1)
    if [ -n "$med" ]; then rec "spin:mem:payload64" "$1" "$(awk "BEGIN { printf \"%.4f\", $med / 2000 }")" "" ""
    else note "spin (run $1) failed (see $f)"; fi
}

# ---------------------------------------------------------------- the runs, interleaved
HAVE_UCX=0; have ucx_perftest && HAVE_UCX=1
HAVE_FI=0; have fi_pingpong && HAVE_FI=1
want ucx && [ "$HAVE_UCX" = 0 ] && note "ucx_perftest not found: UCX skipped (apt-get install ucx-utils)"
want fi && [ "$HAVE_FI" = 0 ] && note "fi_pingpong not found: libfabric skipped (apt-get install libfabric-bin)"
for r in $(seq 1 "$REPS"); do
    echo "run $r: load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$NOTES"
    log "run $r of $REPS (load $(cut -d' ' -f1-3 /proc/loadavg))"
    want shm && g_jdat_shm "$r"
    want ucx && [ "$HAVE_UCX" = 1 ] && g_ucx_posix "$r"
    want fi && [ "$HAVE_FI" = 1 ] && fi_run shm rdm "$(n_of 50000)" "$r"
    want tcp && g_jdat_tcp "$r"
    want ucx && [ "$HAVE_UCX" = 1 ] && g_ucx_tcp "$r"
    want fi && [ "$HAVE_FI" = 1 ] && fi_run tcp msg "$(n_of 20000)" "$r"
    want mem && g_jdat_mem "$r"
    want spin && g_spin "$r"
    want wait && g_wait "$r"
done
SCALE_CSV=""
if want scale; then
    # once: its rows are many short phases of one process; it needs the benchmarks jar (built when missing)
    log "scale (load $(cut -d' ' -f1-3 /proc/loadavg))"
    SCALE_CSV="$RAW/scale.csv"
    sargs=(--providers mem,shm,tcp --conns 1,16,256,1024 --idle-seconds 3 --rate-seconds 2)
    [ "$SCALE" != 1 ] && sargs=(--providers mem,shm,tcp --conns 1,16,256 --idle-seconds 1 --rate-seconds 1)
    build=(--no-build)
    [ -f "$ROOT/jdat-bench/target/benchmarks.jar" ] || build=()
    echo "scale: load before $(cut -d' ' -f1-3 /proc/loadavg)" >> "$NOTES"
    if ! timeout 1800 "$HERE/scale.sh" "${build[@]}" "${sargs[@]}" --csv "$SCALE_CSV" --plot "$OUT/scale.png" \
            > "$RAW/scale.log" 2>&1; then
        note "scale failed (see $RAW/scale.log)"
        JDAT_OK=0
    fi
    [ -s "$SCALE_CSV" ] || SCALE_CSV=""
fi
echo "load after: $(uptime)" >> "$NOTES"
echo "elapsed: $(($(date +%s) - T0)) s" >> "$NOTES"

# ---------------------------------------------------------------- table
python3 "$HERE/issue18-table.py" "$TSV" "$NOTES" $SCALE_CSV | tee "$OUT/table.md"
log "done in $(($(date +%s) - T0)) s; rows: $TSV; table: $OUT/table.md"
[ "$JDAT_OK" = 1 ] || exit 1
exit 0
