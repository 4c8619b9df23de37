#!/usr/bin/env bash
# jdat launcher: builds with the Maven wrapper on a JDK 25+ (found by bin/jdk25.sh) and runs things.
#
#   ./jdat.sh test [maven args]   the whole unit test suite (what CI runs): ./mvnw -B -ntp verify [maven args],
#                                 then one total line; every argument goes to Maven
#   ./jdat.sh build [maven args]  build and install every module, tests skipped, quietly
#   ./jdat.sh bench [JMH args]    build jdat-bench and run its JMH uber-jar, e.g.
#                                 ./jdat.sh bench 'io.jdat.bench.baseline.*' -f 1 -wi 1 -i 1 -w 1s -r 1s
#   ./jdat.sh COMMAND [args]      a jdat tool: perf, tx (the transaction test), info, rping, dtest or help;
#                                 every argument goes to the tool (./jdat.sh COMMAND --help lists its
#                                 options). Rebuilds jdat-tools/target/jdat-tools.jar first when a source is
#                                 newer (saying so), then runs java [JVM options] -jar jdat-tools.jar COMMAND ...
#   ./jdat.sh -h | --help         this text
#
# Environment:
#   JDAT_JAVA_OPTS  JVM options for the tools and the benchmarks, split at spaces (no quoting), after the
#                   launcher's own (--enable-native-access=ALL-UNNAMED ...), so they can override them; JMH
#                   passes them on to its forks. E.g. a flight recording and a heap size:
#                   JDAT_JAVA_OPTS='-Xmx2g -XX:StartFlightRecording=filename=perf.jfr' ./jdat.sh perf
#   JAVA_HOME       a JDK 25 or newer to use (else bin/jdk25.sh looks in /usr/lib/jvm)
#   JDAT_DEBUG=1    a tool's failure also prints its stack trace
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
ROOT=$(cd "$(dirname "$SELF")" && pwd)
# shellcheck source=bin/jdk25.sh
. "$ROOT/bin/jdk25.sh"

# JVM flags for the launched programs, then the user's (JMH passes the host's flags on to its forks).
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
if [ -n "${JDAT_JAVA_OPTS:-}" ]; then
    read -r -a USER_FLAGS <<< "$JDAT_JAVA_OPTS"
    JVM_FLAGS+=("${USER_FLAGS[@]}")
fi

mvnw() { (cd "$ROOT" && ./mvnw "$@"); }

say() { echo "jdat: $*" >&2; }

# The header comment above, from its second line to the last comment line.
usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$SELF"; }

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

# True when the tools jar is older than a source file or pom it is built from (a missing jar is checked apart).
tools_jar_stale() {
    [ -n "$(find "$ROOT/jdat/src/main" "$ROOT/jdat-tools/src/main" \
                 "$ROOT/pom.xml" "$ROOT/jdat/pom.xml" "$ROOT/jdat-tools/pom.xml" \
                 -newer "$1" -type f -print -quit 2>/dev/null)" ]
}

case "${1:-}" in
    ""|-h|--help)
        usage
        ;;
    test)
        shift
        mkdir -p "$ROOT/target"
        log="$ROOT/target/jdat-test.log"
        rc=0
        mvnw -B -ntp verify "$@" 2>&1 | tee "$log" || rc=$?
        test_total "$log"
        exit "$rc"
        ;;
    build)
        shift
        say "building every module, tests skipped (~1 min the first time)..."
        mvnw -B -ntp -q -DskipTests install "$@"
        say "built; tools: jdat-tools/target/jdat-tools.jar, benchmarks: jdat-bench/target/benchmarks.jar"
        ;;
    bench)
        shift
        say "building the benchmarks (jdat-bench; ~1 min the first time)..."
        mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-bench -am package \
            || { say "building the benchmarks failed (the messages above say why)"; exit 1; }
        exec "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -jar "$ROOT/jdat-bench/target/benchmarks.jar" "$@"
        ;;
    *)
        jar="$ROOT/jdat-tools/target/jdat-tools.jar"
        if [ ! -f "$jar" ]; then
            say "building the tools (first run, ~40 s)..."
        elif tools_jar_stale "$jar"; then
            say "a source changed since the last build: rebuilding the tools (~40 s)..."
        fi
        if [ ! -f "$jar" ] || tools_jar_stale "$jar"; then
            mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-tools -am package \
                || { say "building the tools failed (the messages above say why)"; exit 1; }
        fi
        exec "$JAVA_HOME/bin/java" "${JVM_FLAGS[@]}" -jar "$jar" "$@"
        ;;
esac
