#!/usr/bin/env bash
# jdat verbs against perftest on the same device in the same siw-vm run (issue 17's ratio table; not run by CI).
#
#   interop/verbs-perf.sh [DEVICE...]      DEVICE: rxe (default) and/or siw
#
# For each device, in the guest: perftest's ib_send_lat, ib_write_lat, ib_read_lat (median, t_typical) and
# ib_write_bw (BW average), all with -R (rdma_cm), server and client on the device's eth0 address, at 64 B and
# 1 MiB; then `jdat perf` on two IAs of the same device in one JVM (send, rdma-write, rdma-read latency: the
# median; rdma-write bandwidth). Prints one table per device with the ratio jdat/perftest (latency: lower is
# better, goal <= 1.1; bandwidth: higher is better, goal >= 0.95). Under qemu TCG every figure is emulated and
# noisy: only the ratio means anything, and even it is rough on a loaded host.
# Needs jdat-tools/target/jdat-tools.jar (./jdat.sh build). Environment: SIW_VM, SIW_VM_NAME (default
# jdat-verbs-perf), PERF_LOG (default target/verbs-perf), LAT_N (latency iterations, 2000), KEEP=1 (leave the VM up).
set -uo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$ROOT"
SIW_VM=${SIW_VM:-$(readlink -f "$ROOT/../shared/interop/siw-vm/siw-vm" 2>/dev/null || true)}
export SIW_VM_NAME=${SIW_VM_NAME:-jdat-verbs-perf}
LOG=${PERF_LOG:-$ROOT/target/verbs-perf}
LAT_N=${LAT_N:-2000}
DEVICES=("${@:-rxe}")
mkdir -p "$LOG/share"
[ -x "$SIW_VM" ] || { echo "verbs-perf: no siw-vm tool (SIW_VM)"; exit 1; }
. bin/jdk25.sh
cp jdat-tools/target/jdat-tools.jar "$LOG/share/" || { echo "verbs-perf: build jdat-tools first (./jdat.sh build)"; exit 1; }
g() { "$SIW_VM" exec -- "$@"; }
"$SIW_VM" stop > /dev/null 2>&1 || true
nice -n 10 "$SIW_VM" start --siw --rxe --jdk "$JAVA_HOME" --share "$LOG/share" > "$LOG/start.log" 2>&1 \
    || { tail -5 "$LOG/start.log"; exit 1; }
[ "${KEEP:-0}" = 1 ] || trap '"$SIW_VM" stop > /dev/null 2>&1' EXIT
JAVA="/opt/jdk/bin/java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC"

# perftest: $1 program, $2 size, $3 iterations; prints the median latency (t_typical, us) or the average bandwidth.
perftest() {
    local prog=$1 size=$2 n=$3 port=$((18600 + RANDOM % 200)) col
    case $prog in *_bw) col=4 ;; *) col=5 ;; esac
    g "$prog -R -d $DEV -s $size -n $n -p $port > /tmp/pt-server.log 2>&1 &"
    sleep 2
    g "$prog -R -d $DEV -s $size -n $n -p $port 10.0.2.15" > "$LOG/$DEV-$prog-$size.log" 2>&1
    awk -v s="$size" -v c="$col" '$1 == s && NF >= c { v = $c } END { print v }' "$LOG/$DEV-$prog-$size.log"
}

for DEV in "${DEVICES[@]}"; do
    if [ "$DEV" = rxe ]; then
        g 'rdma link delete siw0; rdma link delete siw_v0' > /dev/null 2>&1
        DEV=rxe0
    else
        g 'rdma link delete rxe0; rdma link delete rxe_v0; rdma link add siw0 type siw netdev eth0' > /dev/null 2>&1
        DEV=siw0
    fi
    printf 'verbs-%s u1.2 threadsafe default verbs jdat.1.0 "eth0 0" ""\n' "$DEV" > "$LOG/share/dat.conf"
    declare -A PT=() JD=()
    for size in 64 1048576; do
        n=$LAT_N; [ "$size" = 64 ] || n=$((LAT_N / 10))
        PT[send-$size]=$(perftest ib_send_lat "$size" "$n")
        PT[write-$size]=$(perftest ib_write_lat "$size" "$n")
        PT[read-$size]=$(perftest ib_read_lat "$size" "$n")
        PT[bw-$size]=$(perftest ib_write_bw "$size" "$n")
    done
    TOOL="cd /mnt/host && ulimit -l unlimited && $JAVA -Djdat.dat.conf=/mnt/host/dat.conf -jar jdat-tools.jar perf --ia verbs-$DEV --csv"
    g "$TOOL --op send,write,read --test lat --sizes 64,1M -n $LAT_N --warmup $((LAT_N / 4))" > "$LOG/$DEV-jdat-lat.csv" 2>&1
    g "$TOOL --op write --test bw --bw-size 64,1M --bw-bytes 256M" > "$LOG/$DEV-jdat-bw.csv" 2>&1
    # CSV: operation,size_bytes,count,min_us,median_us,mean_us,stdev_us,p99_us,p999_us,max_us,mb_per_s,msg_per_s
    for size in 64 1048576; do
        JD[send-$size]=$(awk -F, -v s="$size" 'tolower($1) ~ /send/ && $2 == s { print $5 }' "$LOG/$DEV-jdat-lat.csv" | tail -1)
        JD[write-$size]=$(awk -F, -v s="$size" 'tolower($1) ~ /write/ && $2 == s { print $5 }' "$LOG/$DEV-jdat-lat.csv" | tail -1)
        JD[read-$size]=$(awk -F, -v s="$size" 'tolower($1) ~ /read/ && $2 == s { print $5 }' "$LOG/$DEV-jdat-lat.csv" | tail -1)
        JD[bw-$size]=$(awk -F, -v s="$size" 'tolower($1) ~ /write/ && $2 == s { print $11 }' "$LOG/$DEV-jdat-bw.csv" | tail -1)
    done
    echo
    echo "$DEV (qemu TCG, emulated: only the ratio means anything; logs in $LOG)"
    printf '| %-22s | %-8s | %14s | %14s | %-7s |\n' test size perftest jdat ratio
    printf '| %-22s | %-8s | %14s | %14s | %-7s |\n' --- --- --- --- ---
    for k in send write read bw; do
        for size in 64 1048576; do
            p=${PT[$k-$size]:-}; j=${JD[$k-$size]:-}
            case $k in send) t="ib_send_lat (us)" ;; write) t="ib_write_lat (us)" ;; read) t="ib_read_lat (us)" ;;
                bw) t="ib_write_bw (MB/s)" ;; esac
            r=$(awk -v p="$p" -v j="$j" 'BEGIN { if (p > 0 && j > 0) printf "%.2f", j / p; else print "n/a" }')
            printf '| %-22s | %-8s | %14s | %14s | %-7s |\n' "$t" "$size" "${p:-n/a}" "${j:-n/a}" "$r"
        done
    done
done
