#!/usr/bin/env bash
# jdat verbs against perftest on the same device in the same siw-vm run (issue 17's ratio table; not run by CI).
#
#   interop/verbs-perf.sh [DEVICE...]      DEVICE: rxe (default) and/or siw
#
# For each device, in the guest: perftest's ib_send_lat, ib_write_lat, ib_read_lat at 64 B (median, t_typical)
# and ib_write_bw at 64 B and 1 MiB (BW average, converted from perftest's 2^20-byte MB to 10^6 bytes), all with -R
# (rdma_cm), server and client on the device's eth0 address; then `jdat perf` on the same device and address as two
# processes, like perftest (`--server` and `--client`; send, rdma-write, rdma-read latency: the median; rdma-write
# bandwidth). Both measure the same thing:
# the same iteration count, one buffer pair, busy polling, no data verification (--no-verify), send and write
# latency as RTT/2 and read latency as the whole read, bandwidth with WINDOW transfers outstanding (perftest -t).
# The server of the one-sided tests (read latency, write streams) spins, as perftest's do with -R (they busy-poll
# the rdma_cm control connection's CQ in rdma_read_keys until the client's end). SERVER_IDLE=park (jdat perf
# --server-idle park) measures jdat with a passive server instead: not like for like with perftest -R, whose
# spinning server takes CPU from the client and the device's kernel work on the guest's two vCPUs.
# Under qemu TCG every figure is emulated and noisy: only the ratio means anything, and even it is rough on a
# loaded host. Each ping-pong side busy-polls, so the guest gets two vCPUs (PERF_SMP; with one, both sides and
# the kernel's soft device share a CPU and the scheduler's time slices dominate).
# GUEST_CLOCK (tsc, the default, or hpet): the guest kernel's clock source. Under TCG the guest's kernel finds the
# TSCs "unsynchronized" at boot and falls back to the emulated HPET, where every clock_gettime is a system call and
# a trapped device read (1.6 us; 0.10 us with tsc): a JVM's System.nanoTime (jdat perf reads it twice per sample)
# and the kernel's own timekeeping pay it, perftest's rdtsc does not, and no RDMA host runs on an HPET. With tsc the
# guest boots with tsc=reliable clocksource=tsc (the siw-vm kernel command line, repeated here with them added), as
# a NIC's host clocks; the clock source is checked after the boot and printed with the table.
# PIN ("S C", e.g. "0 1"; default empty: unpinned): both tools' servers on guest CPU S and clients on CPU C, perftest
# under taskset (the whole one-thread process), jdat perf with --cpu (its measuring thread, once connected; the JIT,
# GC and the library's threads keep both vCPUs), as ucx_perftest -c. Where the scheduler puts the two busy pollers
# moves perftest's own read latency between about 29 and 45 us on rxe (docs/verbs-performance.md): pinned, both
# tools get the same placement in every run.
# Needs jdat-tools/target/jdat-tools.jar (./jdat.sh build), or JAR=another build of it. Environment: SIW_VM, SIW_VM_NAME (default
# jdat-verbs-perf), PERF_LOG (default target/verbs-perf), LAT_N (latency iterations, 5000), BW_N (1 MiB writes,
# 400), BW64_N (64 B writes, 20000), WARMUP (jdat's latency warm-up iterations, LAT_N), BW64_WARMUP (jdat's 64 B stream warm-up transfers, 50000), WINDOW (16), SIGNAL_EVERY (a stream's completion interval: ib_write_bw's cq_mod, min(100, WINDOW)), JOPTS (JVM options, see below), REPEAT
# (runs of each, the median of the figures is shown; 3), KEEP=1 (leave the VM up), REUSE=1 (use the VM
# already up, started with --share $PERF_LOG/share), BENCH_LOCK (a file: each perftest and jdat perf run holds it
# with flock, so that no other benchmark on the host runs at the same time), JIT (the jdat JVMs' compilation modes, a
# space-separated list, each measured in every run, interleaved: c1 (JOPTS, C1 only), c2 (C2 only, no tiers:
# C2_JOPTS, C2_WARMUP, C2_BW64_WARMUP; see below) and aot (a JDK 25 AOT cache per device, test and side, made in the
# guest by a training run of the same command lines, then full tiered compilation, C2 included: AOT_JOPTS, AOT_WARMUP,
# AOT_BW64_WARMUP; see below); default "c1 aot": C2 is what a user on real hardware runs, C1 is the steadier figure
# under TCG (docs/verbs-performance.md, "Both JITs, twice on both devices").
set -uo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$ROOT"
SIW_VM=${SIW_VM:-$(readlink -f "$ROOT/../shared/interop/siw-vm/siw-vm" 2>/dev/null || true)}
export SIW_VM_NAME=${SIW_VM_NAME:-jdat-verbs-perf}
LOG=${PERF_LOG:-$ROOT/target/verbs-perf}
LAT_N=${LAT_N:-5000}
WARMUP=${WARMUP:-$LAT_N}
BW_N=${BW_N:-400}
BW64_N=${BW64_N:-20000}
WINDOW=${WINDOW:-16}
SERVER_IDLE=${SERVER_IDLE:-spin}
read -r -a PINS <<< "${PIN:-}"
PT_SERVER="" PT_CLIENT="" JD_SERVER="" JD_CLIENT="" PLACEMENT="unpinned"
if [ "${#PINS[@]}" -gt 0 ]; then
    [ "${#PINS[@]}" = 2 ] && [[ "${PINS[0]}${PINS[1]}" =~ ^[0-9]+$ ]] || { echo "verbs-perf: PIN: two CPUs, e.g. \"0 1\""; exit 1; }
    PT_SERVER="taskset -c ${PINS[0]}" PT_CLIENT="taskset -c ${PINS[1]}"
    JD_SERVER="--cpu ${PINS[0]}" JD_CLIENT="--cpu ${PINS[1]}"
    PLACEMENT="servers on CPU ${PINS[0]}, clients on CPU ${PINS[1]} (perftest under taskset, jdat perf --cpu)"
fi
GUEST_CLOCK=${GUEST_CLOCK:-tsc}
case $GUEST_CLOCK in tsc|hpet) ;; *) echo "verbs-perf: GUEST_CLOCK: tsc or hpet, not $GUEST_CLOCK"; exit 1 ;; esac
# ib_write_bw signals one work request in its cq_mod (100, at most -t): jdat perf's streams do the same with it
SIGNAL_EVERY=${SIGNAL_EVERY:-$(( WINDOW < 100 ? WINDOW : 100 ))}
REPEAT=${REPEAT:-3}
DEVICES=("${@:-rxe}")
mkdir -p "$LOG/share"
[ -x "$SIW_VM" ] || { echo "verbs-perf: no siw-vm tool (SIW_VM)"; exit 1; }
. bin/jdk25.sh
# cp -p, and only a changed jar: an AOT cache records the jar's time and size (JIT=aot with AOT_TRAIN=0)
J=${JAR:-jdat-tools/target/jdat-tools.jar}
cmp -s "$J" "$LOG/share/jdat-tools.jar" || cp -p "$J" "$LOG/share/jdat-tools.jar" || { echo "verbs-perf: build jdat-tools first (./jdat.sh build)"; exit 1; }
g() { "$SIW_VM" exec -- "$@"; }
# A measured run: under flock BENCH_LOCK when set.
m() { if [ -n "${BENCH_LOCK:-}" ]; then flock -w 900 "$BENCH_LOCK" "$SIW_VM" exec -- "$@"; else g "$@"; fi; }
if [ "${REUSE:-0}" != 1 ]; then
    "$SIW_VM" stop > /dev/null 2>&1 || true
    CLOCK_ARGS=()
    # siw-vm's -append (interop/siw-vm/siw-vm, "local append=") with the TSC trusted; qemu takes the last -append
    [ "$GUEST_CLOCK" = tsc ] && CLOCK_ARGS=(--qemu-arg -append --qemu-arg "root=/dev/vda rw console=ttyS0,115200 \
init=/sbin/siw-vm-init quiet panic=-1 siwvm.share=hostshare tsc=reliable clocksource=tsc")
    nice -n 10 "$SIW_VM" start --smp "${PERF_SMP:-2}" --siw --rxe --jdk "$JAVA_HOME" --share "$LOG/share" \
        "${CLOCK_ARGS[@]}" > "$LOG/start.log" 2>&1 || { tail -5 "$LOG/start.log"; exit 1; }
    [ "${KEEP:-0}" = 1 ] || trap '"$SIW_VM" stop > /dev/null 2>&1' EXIT
fi
# The clock source: the boot's (a VM of REUSE=1 switches at run time when the kernel offers it).
CS=/sys/devices/system/clocksource/clocksource0
g "grep -qw $GUEST_CLOCK $CS/available_clocksource && echo $GUEST_CLOCK > $CS/current_clocksource" > /dev/null 2>&1
CLOCK=$(g "cat $CS/current_clocksource" 2>/dev/null)
[ "$CLOCK" = "$GUEST_CLOCK" ] || echo "verbs-perf: the guest's clock source is ${CLOCK:-unknown}, not $GUEST_CLOCK"
JAVA="/opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC"
# JOPTS: more JVM options for both jdat perf processes. The default, so that each JVM measures steady state as
# perftest's one-thread processes do, on the guest's two vCPUs under TCG (docs/verbs-performance.md, "How the scripts
# measure"): -XX:TieredStopAtLevel=1, C1 only: C2's compiler threads (20-35% each) ran through the whole measured
# phase with the default JIT, the send median was 3,267 us (the guest's time slices) against 69-124 us with C1;
# -Djdat.jmx=false: no MBean registration thread (28% at the start). The warm-up (WARMUP, LAT_N) is for C1 to be
# done before the measured part. JOPTS= (empty) gives the default JIT.
JOPTS=${JOPTS--Djdat.jmx=false -XX:TieredStopAtLevel=1}
# JIT=aot (docs/verbs-performance.md, "AOT cache and C2"): per device, first a training run of each jdat perf
# command line below (latency, 1 MiB and 64 B bandwidth; server and client) with -XX:AOTCacheOutput (JEP 514's one-step
# training: at the JVM's exit it writes the cache with the classes loaded and linked, JEP 483, and the methods'
# profiles, JEP 515), in the guest, with the same JDK (/opt/jdk), jar path (/mnt/host/jdat-tools.jar) and JVM
# options as the measured runs, which then start with -XX:AOTCache and -XX:AOTMode=on (a cache that does not fit
# stops the JVM instead of being ignored) and the default JIT, C2 included. The classes come mapped from the cache
# (a guest JVM starts in about a third less time: 15-17 s -> 9-12 s warm, 41-49 s -> 18-25 s cold) and C2
# compiles the data path from the training's profiles within 10-30 s of the start; the latency warm-up is
# AOT_WARMUP (100000) iterations, 5-40 s there, so that the measured part runs in C2's code. AOT_JOPTS: the JVM
# options of both the training and the measured runs (not JOPTS). AOT_TRAIN=0 (with REUSE=1): use the caches a run
# before made in the same VM, no training.
AOT_JOPTS=${AOT_JOPTS--Djdat.jmx=false}
AOT_WARMUP=${AOT_WARMUP:-100000}
# The 64 B stream's warm-up with the cache (jdat perf --bw-warmup, untimed transfers): 300,000 take about 15 s
# under TCG, which covers C2's compilations of the post and poll paths (19-26 s after the JVM's start). Without it
# the stream's own warm-up (an eighth of BW64_N) ends long before them. The 1 MiB stream posts about 40 transfers
# a second there: its cost is the device's copy, and it keeps the default warm-up.
AOT_BW64_WARMUP=${AOT_BW64_WARMUP:-300000}
# The 64 B stream's warm-up with C1 (--bw-warmup): a few seconds of transfers, so that C1's compilations and the
# first GCs are over before the measured 5,000-20,000.
BW64_WARMUP=${BW64_WARMUP:-50000}
# JIT=c2: C2 alone (-XX:-TieredCompilation): the interpreter profiles, C2 compiles; no C1 code whose entry HotSpot
# patches (the guest crashes of the tiered JIT, docs/verbs-performance.md) and no training. Its warm-ups are the
# AOT cache's.
C2_JOPTS=${C2_JOPTS--Djdat.jmx=false -XX:-TieredCompilation}
C2_WARMUP=${C2_WARMUP:-100000}
C2_BW64_WARMUP=${C2_BW64_WARMUP:-300000}
# The training's warm-up (the profiles only need the paths taken often enough; the runs are the same otherwise).
AOT_TRAIN_WARMUP=${AOT_TRAIN_WARMUP:-20000}
AOT_DIR=/tmp/jdat-aot
read -r -a MODES <<< "${JIT:-c1 aot}"
for mode in "${MODES[@]}"; do
    case $mode in c1|c2|aot) ;; *) echo "verbs-perf: JIT: c1, c2 or aot, not $mode"; exit 1 ;; esac
done

# perftest: $1 program, $2 size, $3 iterations, $4 the run; prints the median latency (t_typical, us) or the
# average bandwidth (10^6 bytes/s).
# perftest times with the TSC and first measures the CPU's MHz; under TCG on a loaded host that measurement can fail
# ("Correlation coefficient r^2 < 0.9", then no report or "inf"): such a run is repeated, up to 3 times.
perftest() {
    local prog=$1 size=$2 n=$3 run=$4 try port extra="" v=""
    local log="$LOG/$DEV-$prog-$size-$run.log"
    case $prog in *_bw) extra="-t $WINDOW" ;; esac
    for try in 1 2 3; do
        port=$((18600 + RANDOM % 200))
        m "$PT_SERVER $prog -R -F -d $DEV -s $size -n $n $extra -p $port > /tmp/pt-server.log 2>&1 &
            sleep 3; $PT_CLIENT $prog -R -F -d $DEV -s $size -n $n $extra -p $port 10.0.2.15" > "$log" 2>&1
        g "pkill -x $prog; cat /tmp/pt-server.log" > "$log.server" 2>&1
        case $prog in
            *_bw) v=$(awk -v s="$size" '$1 == s && NF >= 4 && $4 ~ /^[0-9.]+$/ { v = $4 * 1.048576 }
                END { if (v != "") printf "%.1f\n", v }' "$log") ;;
            *) v=$(awk -v s="$size" '$1 == s && NF >= 5 && $5 ~ /^[0-9.]+$/ { v = $5 } END { print v }' "$log") ;;
        esac
        [ -n "$v" ] && break
        cp "$log" "$log.failed-$try"
    done
    echo "$v"
}
. interop/verbs-guest.sh

for DEV in "${DEVICES[@]}"; do
    use_device "$DEV"
    g 'rdma link' > "$LOG/$DEV-links.log" 2>&1
    printf 'verbs-%s u1.2 threadsafe default verbs jdat.1.0 "eth0 0" ""\n' "$DEV" > "$LOG/share/dat.conf"
    declare -A PT=() JD=()
    # A mode's JVM options for one test ($2: lat, bw, bw64) and side ($3: server, client); train: the AOT training.
    jopts() {
        case $1 in
            c1) echo "$JOPTS" ;;
            c2) echo "$C2_JOPTS" ;;
            aot) echo "$AOT_JOPTS -XX:AOTCache=$AOT_DIR/$DEV-$2-$3.aot -XX:AOTMode=on" ;;
            train) echo "$AOT_JOPTS -XX:AOTCacheOutput=$AOT_DIR/$DEV-$2-$3.aot" ;;
        esac
    }
    # jdat perf as two processes, as perftest runs: a server (the settings come from the client over a control
    # connection on qualifier 18515; the measured one is 18516), then the client once the server listens.
    # $1 the mode, $2 the test, then the client's options. A training run waits for the server's exit (it writes its
    # cache then, in a child JVM) instead of ending it (at most 300 s).
    jdat() {
        local mode=$1 t=$2 perf="-Djdat.dat.conf=/mnt/host/dat.conf -jar jdat-tools.jar perf --ia verbs-$DEV --timeout 300s"
        local end="sleep 1; kill \$SP 2> /dev/null"
        shift 2
        [ "$mode" = train ] && end="for i in \$(seq 1 600); do kill -0 \$SP 2> /dev/null || break; sleep 0.5; done; kill \$SP 2> /dev/null"
        m "cd /mnt/host && ulimit -l unlimited && rm -f /tmp/jp-server.log; $JAVA $(jopts "$mode" "$t" server) $perf --server --conn-qual 18515 $JD_SERVER > /tmp/jp-server.log 2>&1 &
        SP=\$!; for i in \$(seq 1 240); do grep -q listening /tmp/jp-server.log && break; sleep 0.5; done
        $JAVA $(jopts "$mode" "$t" client) $perf --client 10.0.2.15:18515 --csv --no-verify --server-idle $SERVER_IDLE $JD_CLIENT $*; rc=\$?; $end; cat /tmp/jp-server.log >&2; exit \$rc"; }
    # One jdat perf run ($1 mode, $2 test, $3 the output file, $4 the client's options), repeated up to 3 times
    # while its output lacks a figure (lat: 3 rows, bw: 1): under TCG a guest JVM with the full tiered JIT now and
    # then dies where HotSpot patches a C1 method's entry (docs/verbs-performance.md, "Both JITs, twice on both
    # devices"). A
    # failed try's output is kept as FILE.failed-N and named in crashes.log.
    jdat_try() {
        local mode=$1 t=$2 out=$3 opts=$4 try rows=1
        [ "$t" = lat ] && rows=3
        for try in 1 2 3; do
            jdat "$mode" "$t" "$opts" > "$out" 2>&1
            [ "$(grep -cE '^[^,]+,[0-9]+,[0-9]+,' "$out")" -ge "$rows" ] && return 0
            cp "$out" "$out.failed-$try"
            echo "$(date -u +%T) $out try $try: $(grep -m1 -E '^# J |error:' "$out" | tr -s ' ')" >> "$LOG/crashes.log"
        done
    }
    # The three jdat perf runs of mode $1, run $2.
    jdat_runs() {
        local mode=$1 run=$2 warm=$WARMUP tag=$1 bw64warm="--bw-warmup $BW64_WARMUP"
        case $mode in aot) warm=$AOT_WARMUP; bw64warm="--bw-warmup $AOT_BW64_WARMUP" ;;
            c2) warm=$C2_WARMUP; bw64warm="--bw-warmup $C2_BW64_WARMUP" ;;
            train) warm=$AOT_TRAIN_WARMUP; tag=aot-training; bw64warm="" ;; esac
        echo "$(date -u +%T) $DEV $tag run $run: guest $(g uptime | sed 's/.*load/load/'); host $(uptime | sed 's/.*load/load/')" >> "$LOG/load.log"
        jdat_try "$mode" lat "$LOG/$DEV-jdat-$tag-lat-$run.csv" "--op send,write,read --test lat --sizes 64 -n $LAT_N --warmup $warm"
        jdat_try "$mode" bw "$LOG/$DEV-jdat-$tag-bw-$run.csv" \
            "--op write --test bw --bw-size 1M --bw-bytes ${BW_N}MiB --window $WINDOW --signal-every $SIGNAL_EVERY"
        # 64 B: the same count as perftest's, after an untimed warm-up of BW64_WARMUP transfers for the JIT (C1), or
        # AOT_BW64_WARMUP with the AOT cache (C2).
        jdat_try "$mode" bw64 "$LOG/$DEV-jdat-$tag-bw64-$run.csv" \
            "--op write --test bw --bw-size 64 --bw-bytes $((BW64_N * 64)) --window $WINDOW --signal-every $SIGNAL_EVERY $bw64warm"
    }
    for mode in "${MODES[@]}"; do
        if [ "$mode" = aot ] && [ "${AOT_TRAIN:-1}" = 1 ]; then
            # A second training when the first left fewer than 6 caches (a training JVM that died three times in
            # jdat_try leaves no cache).
            for try in 1 2; do
                g "rm -rf $AOT_DIR; mkdir -p $AOT_DIR"
                jdat_runs train "$try"
                g "ls -l $AOT_DIR" > "$LOG/$DEV-aot-caches.log" 2>&1
                [ "$(grep -c '\.aot$' "$LOG/$DEV-aot-caches.log")" = 6 ] && break
                [ "$try" = 2 ] && { echo "verbs-perf: AOT training failed twice, see $LOG/$DEV-*aot-training*"; exit 1; }
            done
        fi
    done
    for run in $(seq 1 "$REPEAT"); do
        PT[send]+=" $(perftest ib_send_lat 64 "$LAT_N" "$run")"
        PT[write]+=" $(perftest ib_write_lat 64 "$LAT_N" "$run")"
        PT[read]+=" $(perftest ib_read_lat 64 "$LAT_N" "$run")"
        PT[bw]+=" $(perftest ib_write_bw 1048576 "$BW_N" "$run")"
        PT[bw64]+=" $(perftest ib_write_bw 64 "$BW64_N" "$run")"
        for mode in "${MODES[@]}"; do
            jdat_runs "$mode" "$run"
            # CSV: operation,size_bytes,count,min_us,median_us,mean_us,stdev_us,p99_us,p999_us,max_us,mb_per_s,msg_per_s
            L="$LOG/$DEV-jdat-$mode-lat-$run.csv"
            JD[$mode-send]+=" $(awk -F, 'tolower($1) ~ /send/ && $2 == 64 { print $5 }' "$L" | tail -1)"
            JD[$mode-write]+=" $(awk -F, 'tolower($1) ~ /write/ && $2 == 64 { print $5 }' "$L" | tail -1)"
            JD[$mode-read]+=" $(awk -F, 'tolower($1) ~ /read/ && $2 == 64 { print $5 }' "$L" | tail -1)"
            JD[$mode-bw]+=" $(awk -F, 'tolower($1) ~ /write/ && $2 == 1048576 { print $11 }' "$LOG/$DEV-jdat-$mode-bw-$run.csv" | tail -1)"
            JD[$mode-bw64]+=" $(awk -F, 'tolower($1) ~ /write/ && $2 == 64 { print $11 }' "$LOG/$DEV-jdat-$mode-bw64-$run.csv" | tail -1)"
        done
    done
    echo
    echo "$DEV (qemu TCG, emulated: only the ratio means anything; median of $REPEAT runs; guest clock $CLOCK;"\
        "$PLACEMENT; logs in $LOG)"
    hdr="| %-30s | %-8s | %-24s"; row=("test" "size" "perftest (runs)"); sep=(--- --- ---)
    for mode in "${MODES[@]}"; do hdr+=" | %-24s | %-5s"; row+=("jdat $mode (runs)" ratio); sep+=(--- ---); done
    # shellcheck disable=SC2059
    { printf "$hdr |\n" "${row[@]}"; printf "$hdr |\n" "${sep[@]}"; }
    for k in send write read bw64 bw; do
        case $k in send) t="send lat, us (ib_send_lat)"; size=64 ;; write) t="write lat, us (ib_write_lat)"; size=64 ;;
            read) t="read lat, us (ib_read_lat)"; size=64 ;; bw64) t="write bw, MB/s (ib_write_bw)"; size=64 ;; bw) t="write bw, MB/s (ib_write_bw)"; size=1MiB ;; esac
        # shellcheck disable=SC2086
        p=$(median ${PT[$k]})
        row=("$t" "$size" "$p (${PT[$k]# })")
        for mode in "${MODES[@]}"; do
            # shellcheck disable=SC2086
            j=$(median ${JD[$mode-$k]})
            r=$(awk -v p="$p" -v j="$j" 'BEGIN { if (p ~ /^[0-9.]+$/ && j ~ /^[0-9.]+$/ && p > 0 && j > 0) printf "%.2f", j / p; else print "n/a" }')
            row+=("$j (${JD[$mode-$k]# })" "$r")
        done
        # shellcheck disable=SC2059
        printf "$hdr |\n" "${row[@]}"
    done
    unset PT JD
done
