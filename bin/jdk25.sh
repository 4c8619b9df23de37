# shellcheck shell=bash
# Finds a JDK 25 or newer and exports JAVA_HOME and PATH for it. Sourced by ./jdat and .ci/run:
#
#   . "$ROOT/bin/jdk25.sh"
#
# Order: $JAVA_HOME if its java is >= 25; else the newest /usr/lib/jvm/*25* ; else any /usr/lib/jvm/*
# whose java is >= 25 (newest first). If none is found it prints one line saying what is missing and
# exits 1 (it is meant to be sourced by a script, so that exits the script). JDK25_DIRS (space separated
# globs) overrides where it looks.

# Prints the feature version (17, 25, ...) of the java binary $1, or nothing.
jdk25_feature_version() {
    local v
    [ -x "$1" ] || return 1
    v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1)
    v=${v#1.}                       # 1.8 -> 8
    case "$v" in ''|*[!0-9]*) return 1 ;; esac
    printf '%s\n' "$v"
}

jdk25_find() {
    local home ver best="" best_ver=0 pass dir
    if [ -n "${JAVA_HOME:-}" ]; then
        ver=$(jdk25_feature_version "$JAVA_HOME/bin/java") || ver=0
        if [ "${ver:-0}" -ge 25 ]; then printf '%s\n' "$JAVA_HOME"; return 0; fi
    fi
    # Pass 1: directories with 25 in their name; pass 2: every JDK directory. Newest version wins.
    for pass in named any; do
        for dir in ${JDK25_DIRS:-/usr/lib/jvm}; do
            for home in "$dir"/*; do
                [ -d "$home" ] || continue
                if [ "$pass" = named ]; then case "${home##*/}" in *25*) ;; *) continue ;; esac; fi
                ver=$(jdk25_feature_version "$home/bin/java") || continue
                if [ "$ver" -ge 25 ] && [ "$ver" -gt "$best_ver" ]; then best=$home; best_ver=$ver; fi
            done
        done
        if [ -n "$best" ]; then printf '%s\n' "$best"; return 0; fi
    done
    return 1
}

if _jdk25_home=$(jdk25_find); then
    export JAVA_HOME="$_jdk25_home"
    case ":$PATH:" in
        "$JAVA_HOME/bin:"*) ;;
        *) export PATH="$JAVA_HOME/bin:$PATH" ;;
    esac
    unset _jdk25_home
else
    if [ -n "${JAVA_HOME:-}" ]; then
        _jdk25_why="JAVA_HOME=$JAVA_HOME is Java $(jdk25_feature_version "$JAVA_HOME/bin/java" || echo '?')"
    else
        _jdk25_why="JAVA_HOME is not set"
    fi
    echo "jdat: needs a JDK 25 or newer, none found ($_jdk25_why; looked in ${JDK25_DIRS:-/usr/lib/jvm}/*25* and ${JDK25_DIRS:-/usr/lib/jvm}/*): install one and export JAVA_HOME=/path/to/jdk-25" >&2
    exit 1
fi
