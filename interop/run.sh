#!/usr/bin/env bash
# Interop tests of the tcp provider against the Linux kernel's soft-iWARP (siw) in a qemu guest
# (../shared/interop/siw-vm): jdat rping against the real rping, both ways, CRC off and on, 64 B to 64 KiB; and
# jdat dtest against DAPL's own dtest (uDAPL 2.1, Debian's dapl2-utils, its rdma_cm provider on siw0), both ways.
#
#   interop/run.sh            builds the VM image once (cached in $SIW_VM_CACHE), boots it, runs every case,
#                             stops it, prints "N passed, N failed"; exit 1 when a case failed
#   interop/run.sh --keep     leaves the VM running (instance $SIW_VM_NAME, default "jdat-interop") for a look
#
# Skipped (exit 0, one line saying why) only when the VM cannot be built here: not root, or no Debian
# package archive reachable and no cached image. Anything else that goes wrong is a failure.
# Environment: SIW_VM (the siw-vm tool), SIW_VM_CACHE, INTEROP_COUNT (pings per case, default 5),
# INTEROP_LOG (the log directory, default target/interop), INTEROP_CASES (an extended regex: only the cases whose
# name matches run, e.g. 'dtest -h -> DAPL.*65536'), INTEROP_REPEAT (runs the case list that many times, default 1).
set -uo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$ROOT"
SIW_VM=${SIW_VM:-$(readlink -f "$ROOT/../shared/interop/siw-vm/siw-vm" 2>/dev/null || true)}
export SIW_VM_NAME=${SIW_VM_NAME:-jdat-interop} # one instance per engineer: SIW_VM_NAME=NAME interop/run.sh
COUNT=${INTEROP_COUNT:-5}
CASES=${INTEROP_CASES:-}
REPEAT=${INTEROP_REPEAT:-1}
LOG=${INTEROP_LOG:-$ROOT/target/interop}
BASE_LOG=$LOG
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

# Free host ports for the forwards: guest 7174 (rping -s), 45248 (dtest -s) and 15828 (dtest's server info) are
# reached from the host; the guest reaches the host's jdat servers at 10.0.2.100:9999 (rping), :45248 and :15828
# (dtest: its client has no port options).
free_port() { local p q; for p in $(seq "$1" $(( $1 + 200 ))); do
    for q in "${TAKEN[@]}"; do [ "$p" = "$q" ] && continue 2; done
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }; done; }
TAKEN=()
H_RPING=$(free_port 17174); TAKEN+=("$H_RPING"); H_DTEST=$(free_port 17248); TAKEN+=("$H_DTEST")
H_INFO=$(free_port 17828); TAKEN+=("$H_INFO"); J_RPING=$(free_port 19999); TAKEN+=("$J_RPING")
J_DTEST=$(free_port 19248); TAKEN+=("$J_DTEST"); J_INFO=$(free_port 19828)
"$SIW_VM" stop > /dev/null 2>&1 || true
say "starting the siw VM"
if ! nice -n 10 "$SIW_VM" start --siw -f "$H_RPING:7174" -f "$H_DTEST:45248" -f "$H_INFO:15828" \
        -g "9999:$J_RPING" -g "45248:$J_DTEST" -g "15828:$J_INFO" > "$LOG/start.log" 2>&1; then
    tail -5 "$LOG/start.log"; say "the VM did not start (log: $LOG/start.log)"; echo "0 passed, 1 failed"; exit 1
fi
cleanup() { [ $KEEP = 1 ] || "$SIW_VM" stop > /dev/null 2>&1 || true; }
trap cleanup EXIT
g() { "$SIW_VM" exec -- "$@"; }

# DAPL in the guest: the host's copies of libdapl2 and dapl2-utils (the guest has no network), and a dat.conf
# whose one entry is DAPL's rdma_cm provider (libdaplofa) on eth0, i.e. on siw0. dtest's client opens the entry
# its server names; jdat's server names this one.
DAPL_OK=0
for deb in "$DEBS"/libdapl2_*.deb "$DEBS"/dapl2-utils_*.deb; do
    [ -f "$deb" ] && "$SIW_VM" push "$deb" "/tmp/$(basename "$deb")" >> "$LOG/dapl-install.log" 2>&1
done
if g 'dpkg -i /tmp/libdapl2_*.deb /tmp/dapl2-utils_*.deb && command -v dtest' >> "$LOG/dapl-install.log" 2>&1 \
        && g "printf '%s\n' 'ofa-v2-iwarp u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"eth0 0\" \"\"' > /etc/dat.conf" \
        >> "$LOG/dapl-install.log" 2>&1; then
    DAPL_OK=1
fi

# ---- jdat ---------------------------------------------------------------------------------------------
. "$ROOT/bin/jdk25.sh"
JAR=$ROOT/jdat-tools/target/jdat-tools.jar
[ -f "$JAR" ] || ./jdat.sh build > "$LOG/jdat-build.log" 2>&1 || { say "jdat build failed"; echo "0 passed, 1 failed"; exit 1; }

PASSED=0 FAILED=0 RETRY=0 RETRIED=0 CRC_MARK=0
pass() { PASSED=$((PASSED + 1)); say "PASS $1${RETRIED_WHY:+ (on the second try: $RETRIED_WHY)}"; }
fail() {
    local why
    if [ $RETRIED = 0 ] && why=$(siw_trailer_bug); then
        RETRY=1; say "RETRY $1: $why"; return
    fi
    FAILED=$((FAILED + 1)); say "FAIL $1: $2"
}

# The siw of Linux 6.1 misreads an MPA CRC whose 4 bytes arrive split over two socket buffers:
# siw_get_trailer() copies each part to the start of the trailer field, so the first bytes are overwritten
# and the last keeps a byte of the previous FPDU's CRC. siw then logs "siw: crc error. in: X, own Y", where Y
# is the CRC of what it received (the right one) and X the misplaced bytes, and drops the connection. Where
# the guest's TCP segments end is up to qemu's user-mode network, so any FPDU can meet it. Prints the proof
# and succeeds when a crc error logged since the case began has exactly that shape: for a split after k bytes
# (1..3), X's first 4-k bytes are Y's last 4-k bytes and, for k = 3, X's middle bytes are Y's (both read as
# the little-endian words siw prints). Any other crc error is jdat's fault and no retry.
siw_trailer_bug() {
    local line x y k i ok
    while read -r line; do
        [[ $line =~ crc\ error\.\ in:\ ([0-9a-f]{8}),\ own\ ([0-9a-f]{8}) ]] || continue
        x=$((16#${BASH_REMATCH[1]})) y=$((16#${BASH_REMATCH[2]}))
        for k in 1 2 3; do
            ok=1
            for ((i = 0; i < 4 - k; i++)); do
                [ $(( (x >> (8 * i)) & 255 )) = $(( (y >> (8 * (i + k))) & 255 )) ] || ok=0
            done
            for ((i = 4 - k; i < k; i++)); do
                [ $(( (x >> (8 * i)) & 255 )) = $(( (y >> (8 * i)) & 255 )) ] || ok=0
            done
            if [ $ok = 1 ]; then
                echo "siw's split-trailer CRC bug (Linux 6.1 siw_get_trailer), guest log \"${line#*siw: }\":" \
                    "the CRC siw computed is the one jdat sent, its copy of the trailer is that CRC shifted by $k bytes"
                return 0
            fi
        done
    done < <(g "dmesg | grep 'siw: crc error' | tail -n +$((${CRC_MARK:-0} + 1))" 2> /dev/null)
    return 1
}
# Runs one case ("$@": its function and arguments); once more when it failed only by siw_trailer_bug, or (jdat's
# dtest client) when only the guest's dtest did not exit.
run_case() {
    RETRY=0 RETRIED=0 RETRIED_WHY=
    CRC_MARK=$(g "dmesg | grep -c 'siw: crc error'; true" 2> /dev/null | tr -cd 0-9)
    "$@"
    if [ $RETRY = 1 ]; then
        # RETRY back to 0: the second run is a run of its own (dtest_jdat_client_captured checks its capture)
        RETRY=0 RETRIED=1 RETRIED_WHY=${RETRIED_WHY:-"the first met siw's split-trailer CRC bug"}
        "$@"
    fi
    RETRY=0 RETRIED=0 RETRIED_WHY=
}
# Whether the case named $1 is selected by INTEROP_CASES.
selected() { [ -z "$CASES" ] || [[ $1 =~ $CASES ]]; }

# jdat rping client against `rping -s` in the guest. $1 size, $2 jdat IA parameters
rping_jdat_client() {
    local size=$1 params=$2 name="jdat rping -c -> siw rping -s, $1 B, ${2:-defaults}" log
    selected "$name" || return 0
    log="$LOG/rping-c-$size-${params// /_}"
    g "rm -f /tmp/rs.*; (timeout 60 rping -s -a 10.0.2.15 -p 7174 -S $size -v > /tmp/rs.log 2> /tmp/rs.err; echo \$? > /tmp/rs.rc) > /dev/null 2>&1 &"
    sleep 0.3
    timeout 60 env JAVA_TOOL_OPTIONS= "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$JAR" \
        rping -c -a 127.0.0.1 -p "$H_RPING" -C "$COUNT" -S "$size" -V -v --timeout 15 --ia-params "$params" \
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
    selected "$name" || return 0
    log="$LOG/rping-s-$size-${params// /_}"
    timeout 60 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$JAR" \
        rping -s -p "$J_RPING" -C "$COUNT" -S "$size" -V -v --timeout 15 --ia-params "127.0.0.1 $params" \
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

for round in $(seq "$REPEAT"); do
if [ "$REPEAT" != 1 ]; then say "round $round of $REPEAT"; LOG=$BASE_LOG/round-$round; mkdir -p "$LOG"; fi
for size in 64 1000 4096 65535; do
    for params in "crc=off" "crc=on"; do
        run_case rping_jdat_client "$size" "$params"
        run_case rping_jdat_server "$size" "$params"
    done
done
# Ethernet-sized FPDUs from jdat; jdat as the responder to siw with revision 1 asked of nobody (siw asks
# revision 2: the jdat server answers in kind whatever its own setting). The jdat client runs with its
# default peer-to-peer mode only: without an RTR it would meet the siw responder's race (siw-vm README).
run_case rping_jdat_client 65535 "crc=on mulpdu=1442"
run_case rping_jdat_server 65535 "crc=on mulpdu=1442"
run_case rping_jdat_server 4096 "p2p=off rev=1"

# Issue 14 item 11, on the wire: a graceful close delivers everything reported complete and ends with a FIN,
# never a reset. While a jdat dtest client runs against the guest, dumpcap records the host loopback between
# jdat and qemu's port forward ($1: the forwarded port); afterwards jdat's side of that stream must hold a FIN
# and no RST. Needs tshark/dumpcap on the host (.ci/run installs them, best effort): without them the check
# says so and counts as neither passed nor failed.
CAP_PID=
capture_start() {
    CAP_PID=
    command -v dumpcap > /dev/null && command -v tshark > /dev/null || return 0
    dumpcap -q -i lo -f "tcp port $1" -w "$2" > "$2.log" 2>&1 &
    CAP_PID=$!
    for _ in $(seq 50); do [ -s "$2" ] && break; sleep 0.1; done
}
# $1 port, $2 pcap, $3 the case's name
capture_check_close() {
    local port=$1 pcap=$2 name="graceful close on the wire: $3" fins rsts
    if [ -z "$CAP_PID" ]; then say "skipped $name: no tshark/dumpcap on the host"; return; fi
    sleep 1; kill -INT "$CAP_PID" 2> /dev/null; wait "$CAP_PID" 2> /dev/null; CAP_PID=
    fins=$(tshark -r "$pcap" -Y "tcp.dstport == $port && tcp.flags.fin == 1" 2> /dev/null | wc -l)
    rsts=$(tshark -r "$pcap" -Y "tcp.dstport == $port && tcp.flags.reset == 1" 2> /dev/null | wc -l)
    if [ "$fins" -ge 1 ] && [ "$rsts" = 0 ]; then
        pass "$name (jdat sent FIN, no RST)"
    else
        fail "$name" "jdat's side sent $fins FIN and $rsts RST segments (capture: $pcap)"
    fi
}

# What DAPL's dtest read of our buffer's head ($2: "SERVER" or "CLIENT" in its log $1): dtest does not order its
# RDMA Read against our side's rewrite of that head (our read phase writes $3 over what its RDMA Writes left, $4),
# so each byte read is one or the other, and a read that meets the rewrite mid-way mixes them ("cerver RDMA write
# data..."). Succeeds when every byte is the byte of $3 or of $4 at its place, through the closing "...".
read_head_ok() {
    local line got i c ok=1
    line=$(grep -m1 "$2: RCV RDMA read buffer contains: " "$1") || return 1
    got=${line#*contains: }
    [[ $got == *... ]] || return 1
    (( ${#got} >= (${#3} < ${#4} ? ${#3} : ${#4}) && ${#got} <= (${#3} > ${#4} ? ${#3} : ${#4}) )) || return 1
    for ((i = 0; i < ${#got}; i++)); do
        c=${got:i:1}
        [ "$c" = "${3:i:1}" ] || [ "$c" = "${4:i:1}" ] || ok=0
    done
    [ $ok = 1 ]
}

# Both dtests register 2 x 103 buffers: siw counts them against RLIMIT_MEMLOCK (8 MiB), even for root.
# jdat dtest client against DAPL's `dtest -s` in the guest. $1 size, $2 RDMA Writes, $3 jdat IA parameters
dtest_jdat_client() {
    local size=$1 burst=$2 params=$3 name="jdat dtest -h -> DAPL dtest -s, $1 B, $2 writes, ${3:-defaults}" log
    selected "$name" || return 0
    log="$LOG/dtest-c-$size-${params// /_}"
    g "rm -f /tmp/ds.*; ulimit -l unlimited; (timeout 90 dtest -s -P ofa-v2-iwarp -b $size -B $burst -v > /tmp/ds.log 2> /tmp/ds.err; echo \$? > /tmp/ds.rc) > /dev/null 2>&1 &"
    timeout 90 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$JAR" dtest -h 127.0.0.1 \
        --info-port "$H_INFO" --conn-qual "$H_DTEST" -b "$size" -B "$burst" --timeout 30 --ia-params "$params" \
        > "$log.jdat" 2>&1
    local rc=$?
    local grc; grc=$(g "for i in \$(seq 300); do [ -s /tmp/ds.rc ] && break; sleep 0.2; done; cat /tmp/ds.rc 2>/dev/null")
    g "cat /tmp/ds.log /tmp/ds.err" > "$log.dapl" 2>&1
    # DAPL's dtest exits 0 whatever happened: its verdict is the last line, and what it saw of our data
    if [ $rc = 0 ] && grep -q "^jdat dtest client: PASSED" "$log.jdat" && grep -q "DAPL Test Complete. PASSED" "$log.dapl" \
            && grep -q "SERVER: RDMA write buffer contains: client RDMA write data\.\.\.$" "$log.dapl" \
            && read_head_ok "$log.dapl" SERVER "client RDMA read data..." "server RDMA write data..." \
            && grep -q "Message PingPong: (100 x $size)" "$log.dapl"; then
        pass "$name"
    elif [ $RETRIED = 0 ] && [ $rc = 0 ] && [ -z "$grc" ] && grep -q "^jdat dtest client: PASSED" "$log.jdat"; then
        # jdat verified every phase and disconnected, and the guest's dtest had not exited a minute later (seen
        # once in CI, 2026-11-27, after many passing runs; its log ended mid-line in the ping-pong: stdio's
        # buffer). Keep both logs and what the guest can say of it, then run the case once more: it must pass whole.
        cp "$log.jdat" "$log.jdat.first"; cp "$log.dapl" "$log.dapl.first"
        g "p=\$(pgrep -x dtest | head -1); echo pid \$p; cat /proc/\$p/wchan; echo; cat /proc/\$p/stack;
           ls -l /proc/\$p/task; dmesg | tail -30" > "$log.hang" 2>&1
        g "pkill -x dtest; true" > /dev/null 2>&1
        RETRY=1 RETRIED_WHY="the first time the guest's dtest had not exited a minute after jdat's client passed"
        say "RETRY $name: jdat's client passed, the guest's dtest had not exited 60 s later (its state: $log.hang)"
    else
        fail "$name" "jdat exit $rc ($(tail -1 "$log.jdat")), guest dtest exit ${grc:-none}: $(grep -m1 -E 'Test Complete|rror' "$log.dapl") (logs: $log.*)"
        g "pkill -x dtest; true" > /dev/null 2>&1
    fi
}

# DAPL's `dtest -h 10.0.2.100` in the guest against the jdat dtest server. $1 size, $2 RDMA Writes, $3 IA parameters
dtest_jdat_server() {
    local size=$1 burst=$2 params=$3 name="DAPL dtest -h -> jdat dtest -s, $1 B, $2 writes, ${3:-defaults}" log
    selected "$name" || return 0
    log="$LOG/dtest-s-$size-${params// /_}"
    timeout 90 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$JAR" dtest -s \
        --info-port "$J_INFO" --conn-qual "$J_DTEST" --advertise 10.0.2.100 --provider ofa-v2-iwarp \
        -b "$size" -B "$burst" --timeout 30 --ia-params "127.0.0.1 $params" > "$log.jdat" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do grep -q 'listening' "$log.jdat" 2>/dev/null && break; sleep 0.1; done
    g "ulimit -l unlimited; timeout 90 dtest -h 10.0.2.100 -b $size -B $burst -v 2> /tmp/dc.err; r=\$?; cat /tmp/dc.err >&2; exit \$r" > "$log.dapl" 2>&1
    local grc=$?
    wait $pid; local rc=$?
    if [ $rc = 0 ] && [ $grc = 0 ] && grep -q "^jdat dtest server: PASSED" "$log.jdat" \
            && grep -q "DAPL Test Complete. PASSED" "$log.dapl" \
            && grep -q "CLIENT: RDMA write buffer contains: server RDMA write data\.\.\.$" "$log.dapl" \
            && read_head_ok "$log.dapl" CLIENT "server RDMA read data..." "client RDMA write data..." \
            && grep -q "Message PingPong: (100 x $size)" "$log.dapl"; then
        pass "$name"
    else
        fail "$name" "guest dtest exit $grc: $(grep -m1 -E 'Test Complete|rror' "$log.dapl"), jdat exit $rc ($(tail -1 "$log.jdat")) (logs: $log.*)"
    fi
}

# The 64 KiB CRC case while dumpcap records it, then its close checked on the wire; a retried case checks the
# capture of its second run only.
dtest_jdat_client_captured() {
    capture_start "$H_DTEST" "$LOG/dtest-c-65536-close.pcap"
    dtest_jdat_client 65536 20 "crc=on"
    if [ $RETRY = 1 ] && [ -n "$CAP_PID" ]; then
        kill -INT "$CAP_PID" 2> /dev/null; wait "$CAP_PID" 2> /dev/null; CAP_PID=; return
    fi
    capture_check_close "$H_DTEST" "$LOG/dtest-c-65536-close.pcap" "jdat dtest -h, 20 x 64 KiB RDMA Writes then dat_ep_disconnect(GRACEFUL)"
}

if [ $DAPL_OK = 1 ]; then
    # 4 KiB with dtest's 100 writes, 64 KiB (FPDUs split by the MSS) with CRC, and dtest's default 1000 writes of
    # 1000 bytes in Ethernet-sized FPDUs with CRC. Against the jdat server, stock siw (no RTR) speaks first
    # (RFC 5044 §7.1.2); against the siw server, the jdat client's RTR goes first.
    run_case dtest_jdat_client 4096 100 "crc=off"
    run_case dtest_jdat_server 4096 100 "crc=off"
    selected "jdat dtest -h -> DAPL dtest -s, 65536 B, 20 writes, crc=on" && run_case dtest_jdat_client_captured
    run_case dtest_jdat_server 65536 20 "crc=on"
    run_case dtest_jdat_client 1000 1000 "crc=on mulpdu=1442"
    run_case dtest_jdat_server 1000 1000 "crc=on mulpdu=1442"
else
    fail "DAPL dtest" "libdapl2/dapl2-utils did not install in the guest (log: $LOG/dapl-install.log)"
fi
done

say "done in $(( $(date +%s) - T0 )) s (logs: $BASE_LOG)"
echo "$PASSED passed, $FAILED failed"
[ $FAILED = 0 ]
