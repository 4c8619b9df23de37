#!/usr/bin/env bash
# jdat launcher: builds with the Maven wrapper on a JDK 25+ (found by bin/jdk25.sh) and runs things.
#
#   ./jdat.sh test [maven args]   the whole unit test suite: ./mvnw -B -ntp verify, then one total line
#   ./jdat.sh build [maven args]  build and install every module, tests skipped, quietly
#   ./jdat.sh bench [JMH args]    build jdat-bench and run its JMH uber-jar, e.g.
#                                 ./jdat.sh bench 'io.jdat.bench.baseline.*' -f 1 -wi 1 -i 1 -w 1s -r 1s
#   ./jdat.sh tx [args]           the transaction test, `jdat test` (also ./jdat.sh test --ia NAME ...: a
#                                 first argument that is a jdat test option and no Maven one selects it:
#                                 --ia --op --eps --iterations --server --client --conn-qual --poll
#                                 --wait --accept-timeout --json -t -w -i -P)
#   ./jdat.sh <anything else>     the jdat tools (./jdat.sh perf ..., ./jdat.sh info ...): rebuilds
#                                 jdat-tools/target/jdat-tools.jar when a source is newer, then runs
#                                 java --enable-native-access=ALL-UNNAMED -jar jdat-tools.jar <args>
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$SELF")" && pwd)
# shellcheck source=bin/jdk25.sh
. "$ROOT/bin/jdk25.sh"

# JVM flags for the launched programs (JMH passes the host's flags on to its forks).
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)

mvnw() { (cd "$ROOT" && ./mvnw "$@"); }

usage() { sed -n '2,14s/^# \{0,1\}//p' "$SELF"; }

# Sums the per-module Surefire summaries ("Tests run: N, Failures: N, Errors: N, Skipped: N") of a
# Maven log into one line "tests: P passed, F failed, S skipped" (F counts failures and errors).
test_total() {
    awk '
        /Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+[[:space:]]*$/ {
            line = $0; sub(/.*Tests run: /, "", line); gsub(/[^0-9]+/, " ", line)
            split(line, n, " "); run += n[1]; fail += n[2] + n[3]; skip += n[4]; seen = 1
        }
        END { if (seen) printf "tests: %d passed, %d failed, %d skipped\n", run - fail - skip, fail, skip }
    ' "$1"
}

# True when the tools jar is missing or older than a source file or pom it is built from.
tools_jar_stale() {
    local jar="$ROOT/jdat-tools/target/jdat-tools.jar"
    [ -f "$jar" ] || return 0
    [ -n "$(find "$ROOT/jdat/src/main" "$ROOT/jdat-tools/src/main" \
                 "$ROOT/pom.xml" "$ROOT/jdat/pom.xml" "$ROOT/jdat-tools/pom.xml" \
                 -newer "$jar" -type f -print -quit 2>/dev/null)" ]
}

case "${1:-}" in
    ""|-h|--help)
        usage
        ;;
    test)
        shift
        case "${1:-}" in
            --ia|--ia=*|--op|--op=*|--eps|--eps=*|--iterations|--iterations=*|--server|--client|--client=*\
            |--conn-qual|--conn-qual=*|--poll|--wait|--wait=*|--accept-timeout|--accept-timeout=*|--json|-t|-w|-i|-P)
                exec "$SELF" tx "$@" ;;
        esac
        mkdir -p "$ROOT/target"
        log="$ROOT/target/jdat-test.log"
        rc=0
        mvnw -B -ntp verify "$@" 2>&1 | tee "$log" || rc=$?
        test_total "$log"
        exit "$rc"
        ;;
    build)
        shift
        mvnw -B -ntp -q -DskipTests install "$@"
        echo "jdat: built; tools: jdat-tools/target/jdat-tools.jar, benchmarks: jdat-bench/target/benchmarks.jar"
        ;;
    bench)
        shift
        mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-bench -am package
        exec "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -jar "$ROOT/jdat-bench/target/benchmarks.jar" "$@"
        ;;
    *)
        if tools_jar_stale; then
            mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-tools -am package
        fi
        exec "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -jar "$ROOT/jdat-tools/target/jdat-tools.jar" "$@"
        ;;
esac
