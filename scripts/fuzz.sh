#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS
# (default 30) over its committed corpus and dictionary. A crash leaves
# its input as fuzz/crash-* and fails the script.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
CC=clang cmake -S . -B build/fuzz -G Ninja -DBSH_FUZZ=ON -DBSH_TESTS=OFF \
    -DBSH_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/fuzz >/dev/null
for t in guard env_name cli_args mcp http reduce policy_rules policy_decide; do
    work=$(mktemp -d)
    cp fuzz/corpus/$t/* "$work/"
    echo "fuzz_$t: ${secs}s"
    build/fuzz/fuzz/fuzz_$t -max_total_time="$secs" -max_len=2048 \
        -dict=fuzz/$t.dict -artifact_prefix=fuzz/crash-$t- "$work" 2>&1 |
        grep -E '^#[0-9]+[[:space:]]+DONE|ERROR|SUMMARY' || true
    rm -rf "$work"
done
! ls fuzz/crash-* >/dev/null 2>&1
