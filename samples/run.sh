#!/usr/bin/env bash
# Runs one of the jdat samples (jdat-samples/src/main/java/io/jdat/samples, docs/samples.md):
#
#   samples/run.sh hello.Hello [mem|shm|tcp]
#   samples/run.sh clientserver.Server PROVIDER [CLIENTS]     then, elsewhere:
#   samples/run.sh clientserver.Client PROVIDER ADDRESS QUALIFIER WORD...
#   samples/run.sh kv.KvServer PROVIDER [CLIENTS]             then, elsewhere:
#   samples/run.sh kv.KvClient PROVIDER ADDRESS QUALIFIER KEY...
#
# Builds the library and the samples first when they are missing or older than a source (quietly, tests
# skipped), then runs java --enable-native-access=ALL-UNNAMED -cp LIBRARY:SAMPLES io.jdat.samples.NAME ARGS.
set -euo pipefail
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
# shellcheck source=../bin/jdk25.sh
. "$ROOT/bin/jdk25.sh"

if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit $(( $# < 1 ? 2 : 0 ))
fi
name=$1
shift
stamp="$ROOT/jdat-samples/target/classes/io/jdat/samples"
if [ ! -d "$stamp" ] || [ -n "$(find "$ROOT/jdat/src/main" "$ROOT/jdat-samples/src/main" -newer "$stamp" -type f -print -quit)" ]; then
    echo "samples/run.sh: building jdat and jdat-samples (tests skipped) ..." >&2
    (cd "$ROOT" && ./mvnw -B -ntp -q -Dmaven.test.skip=true -pl jdat-samples -am package)
    touch "$stamp"
fi
lib=$(ls "$ROOT"/jdat/target/jdat-*.jar | grep -v -e sources -e javadoc | head -1)
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$lib:$ROOT/jdat-samples/target/classes" \
    "io.jdat.samples.$name" "$@"
