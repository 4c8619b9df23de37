#!/usr/bin/env bash
# TCP peers of jdat's tcp transport, measured on THIS machine over 127.0.0.1, to be run in the same session
# as the JMH benchmarks they are compared with (io.jdat.bench.baseline.NioTcp*Bench and the tcp transport's).
#
#   jdat-bench/peers-tcp.sh [--reps N] [--only ucx,fi] [--out DIR] [--big-iters N] [--sizes LIST] [--iters N]
#                           [--install]
#
#   --reps N     : repetitions of every test (default 3); the table shows median and best
#   --only LIST  : comma list of groups, default ucx,fi
#                    ucx  ucx_perftest, UCX_TLS=tcp: tag_lat 64 B (ping-pong), tag_bw 1 MiB (stream)
#                    fi   libfabric fi_pingpong -p tcp -e msg: 64 B and 1 MiB (ping-pong)
#   --out DIR    : raw tool logs and results.tsv go there (default /tmp/peers-tcp-DATE)
#   --big-iters N: iterations of the 1 MiB tests (default 300, as run.sh: a tag_bw run then lasts only
#                  ~40 ms and its figure swings ~2x between runs; more iterations do not cure that)
#   --sizes LIST : comma list of sizes in bytes: run tag_lat, tag_bw and fi_pingpong at each (default: tag_lat
#                  and fi_pingpong at 64, tag_bw and fi_pingpong at 1048576); sizes up to 4096 use --iters,
#                  65536 a quarter of it, larger sizes --big-iters (what jdat-bench/compare.sh passes)
#   --iters N    : iterations of the small-size tests (default 20000)
#   --install    : first install the tools (apt-get install -y ucx-utils libfabric-bin; needs root).
#                  Without it nothing is installed: a missing tool skips its group with a note.
#
# The commands, iteration counts and parsing are those of shared/bench/peers/run.sh, so the figures are
# comparable with its RESULTS.md:
#   ucx: server  UCX_TLS=tcp ucx_perftest -p PORT
#        client  UCX_TLS=tcp ucx_perftest 127.0.0.1 -p PORT -t TEST -s SIZE -n N -w N/10+10 -f
#        N = 20000 (64 B), 300 (1 MiB, --big-iters). From the last (-f) row: tag_lat one-way = "overall" latency
#        (the tool already halves the round trip); tag_bw MB/s = "overall" bandwidth, which ucx_perftest
#        prints in MiB/s, times 1.048576.
#   fi:  server  fi_pingpong -p tcp -e msg -I N -S SIZE -B PORT
#        client  fi_pingpong -p tcp -e msg -I N -S SIZE -P PORT 127.0.0.1
#        N = 20000 (64 B), 300 (1 MiB, --big-iters). From the client's result row: MB/sec (10^6 B/s, = size / one-way)
#        and usec/xfer (one-way = half the mean round trip); one-way is recomputed as size / MB/sec for
#        more digits.
# Units: one-way µs = half a ping-pong round trip (mean over the run); MB/s = 10^6 B/s. "pp" rows: size /
# one-way of a ping-pong (NOT streaming); "stream": a unidirectional streaming test.
#
# Every tool runs under `timeout` (which leads its own process group); servers are started in the
# background and stopped by PID (their group), also on Ctrl-C. On a 2-core machine any third busy process
# ruins busy-polling figures: the background CPU use before the run is printed with the table.
set -u

REPS=3
ONLY="ucx,fi"
OUT=""
INSTALL=0
BIG=300
SIZES=""
ITERS=20000
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) REPS="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --big-iters) BIG="$2"; shift 2 ;;
        --sizes) SIZES="$2"; shift 2 ;;
        --iters) ITERS="$2"; shift 2 ;;
        --install) INSTALL=1; shift ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$BIG" in ''|*[!0-9]*|0) echo "--big-iters needs a positive integer" >&2; exit 2 ;; esac
case "$REPS" in ''|*[!0-9]*|0) echo "--reps needs a positive integer" >&2; exit 2 ;; esac
case "$ITERS" in ''|*[!0-9]*|0) echo "--iters needs a positive integer" >&2; exit 2 ;; esac
case "$SIZES" in *[!0-9,]*) echo "--sizes needs a comma list of byte counts, e.g. 64,4096,1048576" >&2; exit 2 ;; esac
# iters_for SIZE: iterations of one test at SIZE
iters_for() {
    if [ "$1" -le 4096 ]; then echo "$ITERS"
    elif [ "$1" -le 65536 ]; then echo $(( ITERS / 4 > 10 ? ITERS / 4 : 10 ))
    else echo "$BIG"; fi
}
for g in ${ONLY//,/ }; do
    case "$g" in ucx|fi) ;; *) echo "unknown group in --only: $g (groups: ucx, fi)" >&2; exit 2 ;; esac
done

OUT="${OUT:-/tmp/peers-tcp-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT/raw" && OUT="$(cd "$OUT" && pwd)" || exit 1
RAW="$OUT/raw"
TSV="$OUT/results.tsv"
printf 'peer\ttest\tsize\trep\toneway_us\tbw_MBps\tbasis\n' > "$TSV"
T0=$(date +%s)
PORT=$((21000 + RANDOM % 20000))

log() { echo "[$(($(date +%s) - T0))s] $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
calc() { awk "BEGIN { v = $1; if (v != v) print \"\"; else printf \"%.4f\", v }" 2>/dev/null; }
rec() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$TSV"; }   # peer test size rep oneway bw basis

# ---------------------------------------------------------------- process control
. "$(dirname "${BASH_SOURCE[0]}")/processes.sh"
wait_listening() { # wait_listening PORT SERVER_PID : up to 5 s; false if the server died first
    local i
    for i in $(seq 1 50); do
        kill -0 "$2" 2>/dev/null || return 1
        if have ss; then
            ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        elif [ "$i" -ge 3 ]; then
            return 0                                # no ss: fixed 0.3 s, as run.sh
        fi
        sleep 0.1
    done
    return 1
}

# with_server NAME SRV_LOG CLI_LOG "server cmd" "client cmd" : a fresh port per attempt (PORT is
# substituted into both commands), 3 attempts if the server does not come up; returns the client's status
with_server() {
    local name="$1" slog="$2" clog="$3" scmd="$4" ccmd="$5" attempt rc
    for attempt in 1 2 3; do
        PORT=$((PORT + 1))
        # shellcheck disable=SC2086
        start_server "$slog" ${scmd//PORT/$PORT}
        local srv=$SRV
        if ! wait_listening "$PORT" "$srv"; then
            log "$name: server not listening on $PORT (attempt $attempt, see $slog)"
            stop_server "$srv"
            continue
        fi
        # shellcheck disable=SC2086
        run_client "$clog" ${ccmd//PORT/$PORT}; rc=$?
        stop_server "$srv"
        return $rc
    done
    return 1
}

# ---------------------------------------------------------------- install (only when asked)
if [ "$INSTALL" = 1 ]; then
    if [ "$(id -u)" != 0 ]; then echo "--install needs root (apt-get)" >&2; exit 1; fi
    export DEBIAN_FRONTEND=noninteractive
    log "installing ucx-utils libfabric-bin"
    if ! apt-get install -y -q ucx-utils libfabric-bin > "$RAW/apt.log" 2>&1; then
        log "apt-get install failed; apt-get update and retry"
        apt-get update -q >> "$RAW/apt.log" 2>&1
        apt-get install -y -q ucx-utils libfabric-bin >> "$RAW/apt.log" 2>&1 || { log "install failed (see $RAW/apt.log)"; exit 1; }
    fi
fi

# ---------------------------------------------------------------- context
cpu_busy() { # % of both CPUs busy (incl. steal) over 1 s
    local a b
    read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ < /proc/stat; sleep 1
    read -r _ u2 n2 s2 i2 w2 q2 sq2 st2 _ < /proc/stat
    a=$(( (u2 + n2 + s2 + q2 + sq2 + st2) - (u1 + n1 + s1 + q1 + sq1 + st1) )); b=$(( a + (i2 + w2) - (i1 + w1) ))
    echo $(( b > 0 ? 100 * a / b : 0 ))
}
BUSY=$(cpu_busy)
{
    echo "date: $(date -Is); host: $(uname -srm); cpus: $(nproc); loadavg: $(cat /proc/loadavg)"
    echo "background CPU use before the run: ${BUSY}%"
    have ucx_info && ucx_info -v 2>/dev/null | head -1
    have fi_info && fi_info --version 2>/dev/null | head -2 | tr '\n' ' ' && echo
} > "$RAW/context.txt"
log "output: $OUT (background CPU ${BUSY}%)"

# ---------------------------------------------------------------- ucx_perftest over tcp
ucx_test() { # ucx_test TEST SIZE ITERS REP
    local t=$1 s=$2 n=$3 r=$4 f line
    f="$RAW/ucx_tcp_${t}_${s}_r$r"
    export UCX_TLS=tcp
    with_server "ucx $t $s" "$f.srv" "$f.cli" "timeout 60 ucx_perftest -p PORT" \
        "timeout 60 ucx_perftest 127.0.0.1 -p PORT -t $t -s $s -n $n -w $((n / 10 + 10)) -f"
    unset UCX_TLS
    # -f row: [test] iters lat_p50 lat_avg lat_overall bw_avg bw_overall(MiB/s) rate_avg rate_overall
    line=$(grep -E '^[ A-Za-z:]*[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ *$' "$f.cli" | tail -1)
    if [ -z "$line" ]; then log "ucx $t $s r$r failed (see $f.cli)"; return; fi
    set -- $(echo "$line" | awk '{for (i = NF - 7; i <= NF; i++) printf "%s ", $i}')
    case "$t" in
        tag_lat) rec "UCX ucx_perftest tcp" "$t" "$s" "$r" "$4" "$(calc "$6 * 1.048576")" "pp; one-way = overall avg (RTT/2)" ;;
        *)       rec "UCX ucx_perftest tcp" "$t" "$s" "$r" "" "$(calc "$6 * 1.048576")" "stream (overall)" ;;
    esac
}
if want ucx; then
    if have ucx_perftest; then
        for r in $(seq 1 "$REPS"); do
            if [ -z "$SIZES" ]; then
                ucx_test tag_lat 64 "$ITERS" "$r"
                ucx_test tag_bw 1048576 "$BIG" "$r"
            else
                for s in ${SIZES//,/ }; do
                    ucx_test tag_lat "$s" "$(iters_for "$s")" "$r"
                    ucx_test tag_bw "$s" "$(iters_for "$s")" "$r"
                done
            fi
        done
        log "ucx done"
    else
        log "ucx_perftest not found: skipping ucx (install: $0 --install, or apt-get install ucx-utils)"
    fi
fi

# ---------------------------------------------------------------- fi_pingpong tcp msg
fi_test() { # fi_test SIZE ITERS REP
    local s=$1 n=$2 r=$3 f line mbps usx
    f="$RAW/fi_tcp_${s}_r$r"
    with_server "fi $s" "$f.srv" "$f.cli" "timeout 60 fi_pingpong -p tcp -e msg -I $n -S $s -B PORT" \
        "timeout 60 fi_pingpong -p tcp -e msg -I $n -S $s -P PORT 127.0.0.1"
    # row: bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
    line=$(grep -E '^[0-9]+[kmg]? ' "$f.cli" | tail -1)
    mbps=$(echo "$line" | awk '{print $6}'); usx=$(echo "$line" | awk '{print $7}')
    if [ -z "$mbps" ]; then log "fi $s r$r failed (see $f.cli)"; return; fi
    rec "libfabric fi_pingpong tcp msg" "pingpong" "$s" "$r" "$(calc "($mbps > 0) ? $s / $mbps : $usx")" "$mbps" \
        "pp; one-way = usec/xfer (mean RTT/2)"
}
if want fi; then
    if have fi_pingpong; then
        for r in $(seq 1 "$REPS"); do
            for s in $(if [ -z "$SIZES" ]; then echo 64 1048576; else echo "${SIZES//,/ }"; fi); do
                fi_test "$s" "$(iters_for "$s")" "$r"
            done
        done
        log "fi done"
    else
        log "fi_pingpong not found: skipping fi (install: $0 --install, or apt-get install libfabric-bin)"
    fi
fi

# ---------------------------------------------------------------- table
echo
cat "$RAW/context.txt"
echo
awk -F'\t' '
    function sortn(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
    function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    function num(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
    NR == 1 { next }
    {
        k = $1 "\t" $2 "\t" $3
        if (!(k in seen)) { seen[k] = 1; order[++nk] = k; basis[k] = $7 }
        runs[k]++
        if ($5 != "") ow[k, ++now[k]] = $5 + 0
        if ($6 != "") bw[k, ++nbw[k]] = $6 + 0
    }
    END {
        print "| peer | test | size | runs | one-way µs (med / min) | MB/s (med / max) | basis |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= nk; i++) {
            k = order[i]; split(k, f, "\t")
            o = "";  if (now[k]) { delete a; for (j = 1; j <= now[k]; j++) a[j] = ow[k, j]; sortn(a, now[k]); o = num(med(a, now[k])) " / " num(a[1]) }
            b = "";  if (nbw[k]) { delete a; for (j = 1; j <= nbw[k]; j++) a[j] = bw[k, j]; sortn(a, nbw[k]); b = num(med(a, nbw[k])) " / " num(a[nbw[k]]) }
            printf "| %s | %s | %s | %d | %s | %s | %s |\n", f[1], f[2], f[3], runs[k], o, b, basis[k]
        }
    }' "$TSV" | tee "$OUT/table.md"
echo
log "one row per run: $TSV (for jdat-bench/ratios.py --peers)"
