#!/usr/bin/env bash
# How cost grows with connections (issue 18 item 2): io.jdat.bench.scale.ScaleBench for 1, 16, 256 and 1024
# connections on one IA pair of mem, shm and tcp, in one process; prints a table and writes a CSV.
#
#   jdat-bench/scale.sh [--no-build] [--providers mem,shm,tcp] [--conns 1,16,256,1024] [--idle-seconds 3]
#                       [--rate-seconds 2] [--csv FILE] [--plot FILE.png] [--from-csv FILE] [--phases]
#                       [--perf-ctl FIFO[,ACK]]
#
# Both ends of every connection live in this process: 1024 tcp connections hold 2048 sockets (plus the JVM's
# own descriptors), 1024 shm connections 2048 sockets and their ring files. The soft limit of open files is raised
# to the hard limit (at most 65536) when it is lower than 8192; a limit still too low shows as a failed row with
# the DAT error. --plot FILE.png draws the curve (rate, empty poll, set-up rate and memory per connection against
# N, one line per provider); --from-csv FILE prints and draws the rows of an earlier run without measuring.
# --phases prints the wall clock at each phase's start and end and the rate of every 0.1-s window of the rate
# phase; --perf-ctl FIFO[,ACK] enables a `perf stat -D -1 --control fifo:FIFO[,ACK]` around the timed rate phase
# only (system calls per round trip without matching -I intervals to phases). Besides the rate (rt/s) each row
# has the rate per CPU second of the process (rt/cpu-s) and of its best 0.1-s window (rt/s best): on a shared
# machine the last is the one to compare builds by.
# The CSV has the 1-minute load average when the row ended (load1). See docs/performance.md, "Scale".
set -u
ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
BUILD=1
if [ "${1:-}" = "--no-build" ]; then BUILD=0; shift; fi
case "${1:-}" in -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
. "$ROOT/bin/jdk25.sh"
cd "$ROOT"
if [ "$BUILD" = 1 ]; then
    ./mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-bench -am package || exit 1
fi
soft=$(ulimit -Sn)
hard=$(ulimit -Hn)
if [ "$soft" != unlimited ] && [ "$soft" -lt 8192 ]; then
    want=65536
    if [ "$hard" != unlimited ] && [ "$hard" -lt "$want" ]; then want=$hard; fi
    ulimit -Sn "$want" && echo "scale: open-file soft limit raised from $soft to $want (hard $hard)"
fi
CSV=()
case " $* " in *" --csv "*|*" --from-csv "*) ;; *) CSV=(--csv "/tmp/jdat-scale-$(date +%Y%m%d-%H%M%S).csv") ;; esac
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:+UseParallelGC -Xmx1g \
    -cp jdat-bench/target/benchmarks.jar io.jdat.bench.scale.ScaleBench "$@" "${CSV[@]}"
