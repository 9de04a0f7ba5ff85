#!/usr/bin/env bash
# The dynamic build needs no glibc symbol version newer than GLIBC_2.34,
# so that it builds and runs on Ubuntu 22.04 and RHEL 9: reads the
# dynamic symbols of the CLI and of libbsh.so and fails on a newer one.
# Usage: scripts/check_glibc.sh [BUILD_DIR]   (default build/dev)
set -euo pipefail
dir=${1:-build/dev}
bad=0
for f in "$dir/cli/bsh" "$dir"/lib/libbsh.so.*.*; do
    [ -f "$f" ] || { echo "check_glibc: $f is missing" >&2; exit 1; }
    newer=$(objdump -T "$f" | grep -oE 'GLIBC_[0-9]+\.[0-9]+' | sort -uV |
        awk -F'[_.]' '$2 > 2 || ($2 == 2 && $3 > 34)' || true)
    if [ -n "$newer" ]; then
        echo "check_glibc: $f needs $(echo $newer): newer than GLIBC_2.34" >&2
        objdump -T "$f" | grep -E "$(echo $newer | tr ' ' '|')" >&2 || true
        bad=1
    fi
done
[ "$bad" -eq 0 ] && echo "check_glibc: nothing newer than GLIBC_2.34"
exit "$bad"
