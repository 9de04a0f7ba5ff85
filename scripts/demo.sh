#!/usr/bin/env bash
# Installs what is missing, builds bsh, and runs the main job: a plain run
# and the same run as a JSON stream.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBSH_TESTS=OFF >/dev/null
cmake --build build/release >/dev/null
bsh=build/release/cli/bsh
set -x
"$bsh" run 'ls -la'
"$bsh" run --json 'echo out; echo err >&2; exit 3' || true
"$bsh" run -t 500 'echo started; sleep 5' || true
"$bsh" check 'rm -rf /' || true
