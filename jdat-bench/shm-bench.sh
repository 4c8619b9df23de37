#!/usr/bin/env bash
# The shm provider against its peers in ONE quiet run (issue 5): libfabric fi_pingpong -p shm, UCX ucx_perftest
# with UCX_TLS=posix,self (tag_lat, ucp_put_lat, ucp_put_bw, ucp_get), Aeron IPC across processes, the bare
# two-process spin ping-pong through one mapped file (JMH SpinFilePingPongBench), jdat's JMH shm benchmarks and
# `jdat perf` between two processes; then one table of medians and ratios (shm-ratios.py).
#
#   jdat-bench/shm-bench.sh [--reps N] [--out DIR]
#
# The peers run with the commands and parsing of ../shared/bench/peers/run.sh, limited to 64 B and 1 MiB and to
# the groups above (a filtered copy of it is written to DIR). Needs ucx-utils and libfabric-bin (apt-get) and the
# Aeron jar in ~/.m2 (io.aeron:aeron-all:1.51.0) or Maven Central; a missing peer is skipped with a note.
# On a 2-core machine any third busy process ruins the ping-pongs: run nothing else meanwhile.
set -u
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
REPS=3
OUT=/tmp/jdat-shm-bench-$(date +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
    case "$1" in
        --reps) REPS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
PEERS_SRC=$ROOT/../shared/bench/peers
mkdir -p "$OUT"
. "$ROOT/bin/jdk25.sh"
cd "$ROOT"
./mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-bench,jdat-tools -am package || exit 1

echo "shm-bench: peers ($(date +%T))"
if [ -f "$PEERS_SRC/run.sh" ]; then
    rm -rf "$OUT/peers-tool" && cp -r "$PEERS_SRC" "$OUT/peers-tool" && mkdir -p "$OUT/peers-tool/lib"
    jar=~/.m2/repository/io/aeron/aeron-all/1.51.0/aeron-all-1.51.0.jar
    [ -f "$jar" ] && cp "$jar" "$OUT/peers-tool/lib/"
    sed -i -e 's/^sizes="64 4096 65536 1048576"/sizes="64 1048576"/' \
        -e 's/for pe in "shm rdm" "tcp msg"; do/for pe in "shm rdm"; do/' \
        -e 's/for tls in posix,self sm,self tcp; do/for tls in posix,self; do/' \
        -e 's/tests="tag_lat ucp_put_lat ucp_get tag_bw ucp_put_bw"/tests="tag_lat ucp_put_lat ucp_get ucp_put_bw"/' \
        -e 's/if time_ok "aeron embedded udp"; then/if false; then/' \
        -e 's/for cfg in "ipc backoff spin" "udp yield yield"; do/for cfg in "ipc backoff spin"; do/' \
        "$OUT/peers-tool/run.sh"
    bash "$OUT/peers-tool/run.sh" --only fi,ucx,aeron --reps "$REPS" --out "$OUT/peers" > "$OUT/peers.log" 2>&1
else
    echo "shm-bench: no $PEERS_SRC/run.sh: peers skipped"
fi

echo "shm-bench: JMH ($(date +%T))"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar jdat-bench/target/benchmarks.jar \
    'bench.shm.(ShmPingPong|SpinFilePingPong|ShmBandwidth)Bench' -f "$REPS" -wi 3 -i 5 -w 1s -r 1s -prof gc \
    -rf json -rff "$OUT/shm.json" > "$OUT/jmh.log" 2>&1

echo "shm-bench: jdat perf, two processes ($(date +%T))"
J=("$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar jdat-tools/target/jdat-tools.jar)
for r in $(seq 1 "$REPS"); do
    "${J[@]}" perf --server --ia shm > "$OUT/perf-server-$r.log" 2>&1 &
    server=$!
    for _ in $(seq 1 100); do grep -q listening "$OUT/perf-server-$r.log" 2>/dev/null && break; sleep 0.1; done
    addr=$(grep -o '/[^ ]*jdat-shm[^ ]*' "$OUT/perf-server-$r.log" | head -n 1)
    "${J[@]}" perf --client "$addr" --ia shm -n 100000 --warmup 20000 --bw-bytes 1G --json > "$OUT/perf-$r.json" \
        2> "$OUT/perf-client-$r.err"
    wait "$server"
    # the same streams with both sides' buffers in DAT shared memory
    "${J[@]}" perf --server --ia shm > "$OUT/perf-server-shared-$r.log" 2>&1 &
    server=$!
    for _ in $(seq 1 100); do grep -q listening "$OUT/perf-server-shared-$r.log" 2>/dev/null && break; sleep 0.1; done
    addr=$(grep -o '/[^ ]*jdat-shm[^ ]*' "$OUT/perf-server-shared-$r.log" | head -n 1)
    "${J[@]}" perf --client "$addr" --ia shm --memory shared --test bandwidth --bw-bytes 1G --json \
        > "$OUT/perf-shared-$r.json" 2> "$OUT/perf-client-shared-$r.err"
    wait "$server"
done
echo "shm-bench: done ($(date +%T)); raw results in $OUT"
python3 "$ROOT/jdat-bench/shm-ratios.py" "$OUT"
