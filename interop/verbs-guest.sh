# Shell functions of the benchmarks in the siw-vm guest (interop/verbs-perf.sh, interop/verbs-floor.sh), sourced
# after each has defined g (a command in the guest).

# Leaves one device on the guest's eth0 ($1: rxe or siw; the other's links go) and sets DEV to its name.
use_device() {
    if [ "$1" = rxe ]; then
        # (rxe0 comes back when an earlier siw run of a reused guest took it away)
        g 'rdma link delete siw0; rdma link delete siw_v0; ip netns exec peer rdma link delete siw_v1
           rdma link show rxe0/1 > /dev/null 2>&1 || rdma link add rxe0 type rxe netdev eth0' > /dev/null 2>&1
        DEV=rxe0
    else
        g 'rdma link delete rxe0; rdma link delete rxe_v0; ip netns exec peer rdma link delete rxe_v1;
           rdma link add siw0 type siw netdev eth0' > /dev/null 2>&1
        DEV=siw0
    fi
}

# The median of the numbers given (n/a when none is).
median() { printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
