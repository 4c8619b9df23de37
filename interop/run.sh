#!/usr/bin/env bash
# Interop tests of the tcp provider against the Linux kernel's soft-iWARP (siw) in a qemu guest
# (../shared/interop/siw-vm): jdat rping against the real rping, both ways, CRC off and on, 64 B to 64 KiB.
#
#   interop/run.sh            builds the VM image once (cached in $SIW_VM_CACHE), boots it, runs every case,
#                             stops it, prints "N passed, N failed"; exit 1 when a case failed
#   interop/run.sh --keep     leaves the VM running (instance "jdat-interop") for a look afterwards
#
# Skipped (exit 0, one line saying why) only when the VM cannot be built here: not root, or no Debian
# package archive reachable and no cached image. Anything else that goes wrong is a failure.
# Environment: SIW_VM (the siw-vm tool), SIW_VM_CACHE, INTEROP_COUNT (pings per case, default 5),
# INTEROP_LOG (the log directory, default target/interop).
set -uo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$ROOT"
SIW_VM=${SIW_VM:-$(readlink -f "$ROOT/../shared/interop/siw-vm/siw-vm" 2>/dev/null || true)}
export SIW_VM_NAME=jdat-interop
COUNT=${INTEROP_COUNT:-5}
LOG=${INTEROP_LOG:-$ROOT/target/interop}
KEEP=0
[ "${1:-}" = --keep ] && KEEP=1
mkdir -p "$LOG"
T0=$(date +%s)

say() { echo "interop: $*"; }
skip() { say "skipped: $*"; echo "0 passed, 0 failed, 1 skipped"; exit 0; }

# ---- the VM ------------------------------------------------------------------------------------------
[ -n "$SIW_VM" ] && [ -x "$SIW_VM" ] || skip "no siw-vm tool (looked for ../shared/interop/siw-vm/siw-vm)"
[ "$(id -u)" = 0 ] || skip "building and booting the siw VM needs root"
CACHE=${SIW_VM_CACHE:-/var/cache/siw-vm}
if ! command -v qemu-system-x86_64 >/dev/null || ! command -v debootstrap >/dev/null || ! command -v socat >/dev/null; then
    "$SIW_VM" deps > "$LOG/deps.log" 2>&1 || skip "cannot install qemu/debootstrap from the package archive (log: $LOG/deps.log)"
fi
# DAPL's packages for the guest come from the host's archive (the guest has no network); fetching them is
# also the check that the archive is reachable at all.
DEBS=$CACHE/debs
mkdir -p "$DEBS"
if ! ls "$DEBS"/libdapl2_*.deb >/dev/null 2>&1; then
    (cd "$DEBS" && apt-get download libdapl2 dapl2-utils) > "$LOG/apt-download.log" 2>&1 \
        || { apt-get update -qq > /dev/null 2>&1 && (cd "$DEBS" && apt-get download libdapl2 dapl2-utils) \
               >> "$LOG/apt-download.log" 2>&1; } \
        || { [ -e "$CACHE/.stage-image" ] || skip "no Debian package archive reachable and no cached siw VM image"; }
fi
if [ ! -e "$CACHE/.stage-image" ]; then
    say "building the siw VM image (once, cached in $CACHE)"
    nice -n 10 "$SIW_VM" build > "$LOG/build.log" 2>&1 || {
        tail -5 "$LOG/build.log"
        grep -qiE 'debootstrap.*(fail|couldn.t download)|Temporary failure resolving|Could not resolve|Failed to fetch' \
            "$LOG/build.log" "$CACHE"/build-*.log 2>/dev/null && skip "the VM build could not reach the package archive"
        say "the VM build failed (log: $LOG/build.log)"; echo "0 passed, 1 failed"; exit 1; }
fi

# Free host ports for the forwards: guest 7174 (rping -s) and 45248 (dtest -s) are reached from the host;
# the guest reaches the host's jdat servers at 10.0.2.100:9999 (rping) and :9998 (dtest).
free_port() { local p; for p in $(seq "$1" $(( $1 + 200 ))); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
H_RPING=$(free_port 17174); H_DTEST=$(free_port 17248); J_RPING=$(free_port 19999); J_DTEST=$(free_port 19998)
"$SIW_VM" stop > /dev/null 2>&1 || true
say "starting the siw VM"
if ! nice -n 10 "$SIW_VM" start --siw -f "$H_RPING:7174" -f "$H_DTEST:45248" -g "9999:$J_RPING" -g "9998:$J_DTEST" \
        > "$LOG/start.log" 2>&1; then
    tail -5 "$LOG/start.log"; say "the VM did not start (log: $LOG/start.log)"; echo "0 passed, 1 failed"; exit 1
fi
cleanup() { [ $KEEP = 1 ] || "$SIW_VM" stop > /dev/null 2>&1 || true; }
trap cleanup EXIT
g() { "$SIW_VM" exec -- "$@"; }

# ---- jdat ---------------------------------------------------------------------------------------------
. "$ROOT/bin/jdk25.sh"
JAR=$ROOT/jdat-tools/target/jdat-tools.jar
[ -f "$JAR" ] || ./jdat.sh build > "$LOG/jdat-build.log" 2>&1 || { say "jdat build failed"; echo "0 passed, 1 failed"; exit 1; }

PASSED=0 FAILED=0
pass() { PASSED=$((PASSED + 1)); say "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); say "FAIL $1: $2"; }

# jdat rping client against `rping -s` in the guest. $1 size, $2 jdat IA parameters
rping_jdat_client() {
    local size=$1 params=$2 name="jdat rping -c -> siw rping -s, $1 B, ${2:-defaults}" log
    log="$LOG/rping-c-$size-${params// /_}"
    g "rm -f /tmp/rs.*; (timeout 60 rping -s -a 10.0.2.15 -p 7174 -S $size -v > /tmp/rs.log 2> /tmp/rs.err; echo \$? > /tmp/rs.rc) > /dev/null 2>&1 &"
    sleep 0.3
    timeout 60 env JAVA_TOOL_OPTIONS= "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$JAR" \
        rping -c -a 127.0.0.1 -p "$H_RPING" -C "$COUNT" -S "$size" -V -v --timeout 15000 --ia-params "$params" \
        > "$log.jdat" 2>&1
    local rc=$?
    local grc; grc=$(g "for i in \$(seq 50); do [ -s /tmp/rs.rc ] && break; sleep 0.2; done; cat /tmp/rs.rc 2>/dev/null")
    g "cat /tmp/rs.log /tmp/rs.err" > "$log.siw" 2>&1
    local served; served=$(grep -c '^server ping data: rdma-ping-' "$log.siw")
    if [ $rc = 0 ] && grep -q "^rping client: $COUNT pings of $size bytes verified" "$log.jdat" && [ "$served" = "$COUNT" ]; then
        pass "$name"
    else
        fail "$name" "jdat exit $rc ($(tail -1 "$log.jdat")), guest rping exit ${grc:-none}, $served pings served (logs: $log.*)"
        g "pkill -x rping; true" > /dev/null 2>&1
    fi
}

# `rping -c` in the guest against the jdat rping server. $1 size, $2 jdat IA parameters
rping_jdat_server() {
    local size=$1 params=$2 name="siw rping -c -> jdat rping -s, $1 B, ${2:-defaults}" log
    log="$LOG/rping-s-$size-${params// /_}"
    timeout 60 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$JAR" \
        rping -s -p "$J_RPING" -C "$COUNT" -S "$size" -V -v --timeout 15000 --ia-params "127.0.0.1 $params" \
        > "$log.jdat" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do grep -q 'listening' "$log.jdat" 2>/dev/null && break; sleep 0.1; done
    g "timeout 60 rping -c -a 10.0.2.100 -p 9999 -C $COUNT -S $size -V -v 2> /tmp/rc.err; r=\$?; cat /tmp/rc.err >&2; exit \$r" > "$log.siw" 2>&1
    local grc=$?
    wait $pid; local rc=$?
    local pinged; pinged=$(grep -c '^ping data: rdma-ping-' "$log.siw")
    if [ $rc = 0 ] && [ $grc = 0 ] && [ "$pinged" = "$COUNT" ] \
            && grep -q "^rping server: $COUNT pings of $size bytes verified" "$log.jdat"; then
        pass "$name"
    else
        fail "$name" "guest rping exit $grc with $pinged pings verified, jdat exit $rc ($(tail -1 "$log.jdat")) (logs: $log.*)"
    fi
}

for size in 64 1000 4096 65535; do
    for params in "crc=off" "crc=on"; do
        rping_jdat_client "$size" "$params"
        rping_jdat_server "$size" "$params"
    done
done
# Ethernet-sized FPDUs from jdat; jdat as the responder to siw with revision 1 asked of nobody (siw asks
# revision 2: the jdat server answers in kind whatever its own setting). The jdat client runs with its
# default peer-to-peer mode only: without an RTR it would meet the siw responder's race (siw-vm README).
rping_jdat_client 65535 "crc=on mulpdu=1442"
rping_jdat_server 65535 "crc=on mulpdu=1442"
rping_jdat_server 4096 "p2p=off rev=1"

say "done in $(( $(date +%s) - T0 )) s (logs: $LOG)"
echo "$PASSED passed, $FAILED failed"
[ $FAILED = 0 ]
