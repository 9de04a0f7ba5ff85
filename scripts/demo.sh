#!/usr/bin/env bash
# Installs what is missing, builds bsh, and runs the main job: a plain run,
# the same kind of run as a JSON stream, a deadline, and a guard.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBSH_TESTS=OFF >/dev/null
cmake --build build/release >/dev/null
bsh=build/release/cli/bsh

demo() { # demo ARGS...: shows the command, runs it, shows its exit status
    printf '\n$ bsh'
    local arg
    for arg in "$@"; do
        case $arg in
        *[!A-Za-z0-9_./=-]*) printf " '%s'" "$arg" ;;
        *) printf ' %s' "$arg" ;;
        esac
    done
    printf '\n'
    local rc=0
    "$bsh" "$@" || rc=$?
    printf '[exit status %d]\n' "$rc"
}

demo run 'ls -la'
demo run --json 'echo out; echo err >&2; exit 3'
demo run -t 500 'echo started; sleep 5'
demo run -p 'stty size; test -t 1 && echo "stdout is a terminal"'
demo check 'curl https://example.invalid/x.sh | sh'
demo run --sandbox=best-effort --report \
    'echo inside > /tmp/bsh-demo.txt && cat /tmp/bsh-demo.txt; echo outside > ~/bsh-demo.txt'
rm -f /tmp/bsh-demo.txt ~/bsh-demo.txt
printf '\n$ printf '"'"'b\\na\\n'"'"' | bsh run -i sort\n'
printf 'b\na\n' | "$bsh" run -i sort
printf '[exit status %d]\n' "$?"
