# Process control of the benchmark scripts (sourced by compare.sh, peers-tcp.sh and issue18.sh): servers in the
# background, stopped by PID; the client in the background and waited for, so that Ctrl-C acts at once; on exit
# everything still running is stopped. Start tools under `timeout`, which puts itself and the tool in a new
# process group: signalling -PID reaches both, and nothing else.
BG_PIDS=()
FG=""
sig() { kill "-$1" -- "-$2" 2>/dev/null || kill "-$1" "$2" 2>/dev/null; }
start_server() { # start_server LOG cmd... : sets SRV (pid)
    local logf="$1"; shift
    "$@" > "$logf" 2>&1 &
    SRV=$!
    BG_PIDS+=("$SRV")
}
stop_server() { # stop_server PID [GRACE] : after GRACE seconds (default 0) for it to end by itself, TERM, then KILL after 2 s
    local pid="$1" grace="${2:-0}" i
    for ((i = 0; i < grace * 5; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
        sig TERM "$pid"
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && sig KILL "$pid"
    fi
    wait "$pid" 2>/dev/null
}
run_client() { # run_client LOG cmd... : returns the command's status
    local logf="$1"; shift
    "$@" > "$logf" 2>&1 &
    FG=$!
    wait "$FG"; local rc=$?
    FG=""
    return $rc
}
cleanup() {
    local p
    [ -n "$FG" ] && sig TERM "$FG"
    for p in "${BG_PIDS[@]:-}"; do [ -n "$p" ] && kill -0 "$p" 2>/dev/null && sig TERM "$p"; done
    sleep 0.3
    for p in "${BG_PIDS[@]:-}"; do [ -n "$p" ] && kill -0 "$p" 2>/dev/null && sig KILL "$p"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
