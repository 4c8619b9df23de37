#!/usr/bin/env bash
# How far jdat is from the floor of any Java program on FFM (issue 17; docs/verbs-performance.md, "The Java
# floor"); by default the send ping-pong: per device and round, perftest's ib_send_lat (64 B, -R), then
# io.jdat.verbs.VerbsFloor as two guest JVMs (C2 only), which alternates phases of the same ping-pong through DAT
# and through direct post_send / post_recv / poll_cq downcalls in ib_send_lat's order, in one JVM pair. Prints a row per round and the medians:
#   perftest, raw Java, DAT (µs, one-way, medians) and the ratios DAT/raw (the DAT layer's cost, measured within one
#   JVM pair) and raw/perftest (the floor: Java and FFM against C, across processes); the median row gives each
#   ratio's median over the rounds.
# FLOOR_TEST=write-bw measures the 64 B RDMA Write stream instead: ib_write_bw -s 64 -t 16 (-R), and
# VerbsFloor -Dfloor=write-bw (ib_write_bw's loop raw, jdat perf's window through DAT), in 10^6 bytes/s; there
# a ratio below 1 is a loss (DAT/raw: the DAT layer's share; raw/perftest: the floor).
# Not run by CI (1-3 minutes a round and device under TCG). Usage: interop/verbs-floor.sh [rxe] [siw]
# Environment: ROUNDS (3), N (perftest's iterations: 20000 ib_send_lat, 20000 ib_write_bw), ITERS and PHASES
# (VerbsFloor: iterations per phase, 5000 (write-bw: 20000, a multiple of 16), and phases per mode, 5), WARMUP
# (its warm-up per mode, 50000; write-bw: 300000 writes), SIW_VM, SIW_VM_NAME (jdat-verbs-floor),
# PIN ("S C": the servers, perftest's and the JVM, under taskset -c S, the clients under taskset -c C; default
# unpinned), FLOOR_JOPTS (more options for both JVMs, e.g. -Djdat.verbs.inlineBytes=0: no inline data, as
# ib_write_bw posts), REUSE=1 (a guest of that name already up with --share $FLOOR_LOG/share), KEEP=1 (leave it
# up), FLOOR_LOG (target/verbs-floor).
set -uo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$ROOT"
SIW_VM=${SIW_VM:-$(readlink -f "$ROOT/../shared/interop/siw-vm/siw-vm" 2>/dev/null || true)}
export SIW_VM_NAME=${SIW_VM_NAME:-jdat-verbs-floor}
LOG=${FLOOR_LOG:-$ROOT/target/verbs-floor}
TEST=${FLOOR_TEST:-send-lat}
case $TEST in
    send-lat) ROUNDS=${ROUNDS:-3} N=${N:-20000} ITERS=${ITERS:-5000} PHASES=${PHASES:-5} WARMUP=${WARMUP:-50000}
        PT="ib_send_lat -s 64" PT_COL=5 UNIT="one-way send latency, 64 B, µs (medians)" ;;
    write-bw) ROUNDS=${ROUNDS:-3} N=${N:-20000} ITERS=${ITERS:-20000} PHASES=${PHASES:-5} WARMUP=${WARMUP:-300000}
        PT="ib_write_bw -s 64 -t 16" PT_COL=4 UNIT="RDMA Write stream, 64 B, 16 outstanding, 10^6 B/s (medians)" ;;
    *) echo "verbs-floor: FLOOR_TEST: send-lat or write-bw, not $TEST"; exit 1 ;;
esac
DEVICES=("${@:-rxe}")
read -r -a PINS <<< "${PIN:-}"
ON_S="" ON_C="" PLACEMENT=unpinned
if [ "${#PINS[@]}" -gt 0 ]; then
    [ "${#PINS[@]}" = 2 ] && [[ "${PINS[0]}${PINS[1]}" =~ ^[0-9]+$ ]] || { echo "verbs-floor: PIN: two CPUs, e.g. \"0 1\""; exit 1; }
    ON_S="taskset -c ${PINS[0]}" ON_C="taskset -c ${PINS[1]}" PLACEMENT="servers on CPU ${PINS[0]}, clients on CPU ${PINS[1]}"
fi
[ -x "$SIW_VM" ] || { echo "verbs-floor: no siw-vm tool (SIW_VM)"; exit 1; }
. bin/jdk25.sh
mkdir -p "$LOG/share"
(./mvnw -B -ntp -q -o -pl jdat test-compile || ./mvnw -B -ntp -q -pl jdat test-compile) > "$LOG/compile.log" 2>&1 \
    || { echo "verbs-floor: jdat does not compile ($LOG/compile.log)"; exit 1; }
rm -rf "$LOG/share/main" "$LOG/share/test"
cp -r jdat/target/classes "$LOG/share/main" && cp -r jdat/target/test-classes "$LOG/share/test" || exit 1
g() { "$SIW_VM" exec -- "$@"; }
if [ "${REUSE:-0}" != 1 ]; then
    "$SIW_VM" stop > /dev/null 2>&1 || true
    # the guest on the TSC, as interop/verbs-perf.sh's (siw-vm's -append with the TSC trusted)
    nice -n 10 "$SIW_VM" start --smp 2 --siw --rxe --jdk "$JAVA_HOME" --share "$LOG/share" --qemu-arg -append \
        --qemu-arg "root=/dev/vda rw console=ttyS0,115200 init=/sbin/siw-vm-init quiet panic=-1 \
siwvm.share=hostshare tsc=reliable clocksource=tsc" > "$LOG/start.log" 2>&1 || { tail -5 "$LOG/start.log"; exit 1; }
    [ "${KEEP:-0}" = 1 ] || trap '"$SIW_VM" stop > /dev/null 2>&1' EXIT
fi
JAVA="/opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Djdat.jmx=false -XX:-TieredCompilation ${FLOOR_JOPTS:-}"
. interop/verbs-guest.sh
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
for DEV in "${DEVICES[@]}"; do
    use_device "$DEV"
    PTS=() RAWS=() DATS=() RATIOS=() FLOORS=() TOTALS=()
    echo "$DEV: $UNIT; VerbsFloor: $PHASES phases of $ITERS per mode; $PLACEMENT"
    printf '| round | perftest | raw Java | DAT | DAT/raw | raw/perftest | DAT/perftest |\n| --- | --- | --- | --- | --- | --- | --- |\n'
    for r in $(seq 1 "$ROUNDS"); do
        # ib_write_bw's MB are 2^20 bytes: converted to 10^6, as jdat's
        pt=$(g "port=\$((18600 + RANDOM % 100)); $ON_S $PT -R -F -d $DEV -n $N -p \$port > /dev/null 2>&1 &
            sleep 3; $ON_C $PT -R -F -d $DEV -n $N -p \$port 10.0.2.15 | awk '\$1 == 64 && \$$PT_COL ~ /^[0-9.]+\$/ {
                v = \$$PT_COL; if (\"$TEST\" == \"write-bw\") v = sprintf(\"%.3f\", v * 1.048576); print v }'
            pkill -x ${PT%% *}" 2> /dev/null | tail -1)
        q=$((18700 + RANDOM % 200))
        g "cd /mnt/host && ulimit -l unlimited && CP=main:test
            $ON_S $JAVA -Dfloor=$TEST -cp \$CP io.jdat.verbs.VerbsFloor server eth0 - $q $ITERS $PHASES $WARMUP > /tmp/floor-server.log 2>&1 &
            SP=\$!; for i in \$(seq 1 240); do grep -q listening /tmp/floor-server.log && break; sleep 0.5; done
            $ON_C $JAVA -Dfloor=$TEST -cp \$CP io.jdat.verbs.VerbsFloor client eth0 10.0.2.15 $q $ITERS $PHASES $WARMUP
            wait \$SP; pkill -f VerbsFloor" > "$LOG/$DEV-round$r.log" 2>&1
        read -r raw dat < <(awk '/^SUMMARY/ { print $3, $5 }' "$LOG/$DEV-round$r.log")
        PTS+=("${pt:--}") RAWS+=("${raw:--}") DATS+=("${dat:--}")
        RATIOS+=("$(ratio "$dat" "$raw")") FLOORS+=("$(ratio "$raw" "$pt")") TOTALS+=("$(ratio "$dat" "$pt")")
        echo "| $r | ${pt:--} | ${raw:--} | ${dat:--} | ${RATIOS[-1]} | ${FLOORS[-1]} | ${TOTALS[-1]} |"
    done
    # each ratio's median is the median of the rounds' ratios (a round's tools ran one after another in one guest)
    echo "| median | $(median "${PTS[@]}") | $(median "${RAWS[@]}") | $(median "${DATS[@]}") | $(median "${RATIOS[@]}") \
| $(median "${FLOORS[@]}") | $(median "${TOTALS[@]}") |"
done
