#!/usr/bin/env bash
# Fetches the bash parser the command policy uses: the tree-sitter-bash
# grammar (0.23.3, the newest whose generated parser has language ABI 14)
# and the single-file tree-sitter runtime (0.22.4), as npm packages, with
# `npm pack`, into build/third_party/npm. Each archive is checked against
# its sha256 in cmake/tree-sitter.sha256; CMake checks them again and
# unpacks them, and never downloads anything itself. Idempotent.
# Usage: scripts/grammar_deps.sh   (run by scripts/deps.sh, or as
#        scripts/deps.sh grammar)
set -euo pipefail
cd "$(dirname "$0")/.."
sums=$PWD/cmake/tree-sitter.sha256
dir=$PWD/build/third_party/npm
mkdir -p "$dir"
cd "$dir"
while read -r sum file; do
    [ -n "$file" ] || continue
    if [ -f "$file" ] && echo "$sum  $file" | sha256sum -c --quiet - 2>/dev/null; then
        continue
    fi
    spec=${file%.tgz}                       # tree-sitter-bash-0.23.3
    spec="${spec%-*}@${spec##*-}"           # tree-sitter-bash@0.23.3
    echo "grammar: npm pack $spec" >&2
    rm -f "$file"
    npm pack --silent "$spec" >/dev/null
    echo "$sum  $file" | sha256sum -c --quiet - ||
        { echo "grammar: $file does not match its sha256 in cmake/tree-sitter.sha256" >&2
          rm -f "$file"; exit 1; }
done <"$sums"
