#!/usr/bin/env bash
# The rules of CONTRIBUTING.md that a script can check: every source file
# (or its header) opens with a paragraph that says what it is for; the
# engine (lib/ and its policy/) includes nothing from front/, cli/ or mcp/; no two source
# files of the layers share a name; nothing of ours is named in jansson's
# json_ namespace. Prints each breach; exit 1 when there is one.
set -uo pipefail
cd "$(dirname "$0")/.."
bad=0
breach() { echo "layout: $*"; bad=1; }

for f in lib/*.c policy/*.c cli/*.c mcp/*.c front/*.c linre/*.c; do
    h=${f%.c}.h
    if [[ $(sed -n 2p "$f") != "/*"* ]] && { [ ! -f "$h" ] || [[ $(sed -n 2p "$h") != "/*"* ]]; }; then
        breach "$f: no opening paragraph (in it or in its header)"
    fi
done

for f in lib/*.c lib/*.h policy/*.c policy/*.h; do
    while read -r inc; do
        for dir in front cli mcp; do
            [ -f "$dir/$inc" ] && breach "$f includes $inc from $dir/ (lib/ is below it)"
        done
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

dups=$(ls lib policy cli mcp front base linre | grep '\.c$' | sort | uniq -d)
[ -n "$dups" ] && breach "source files of the same name in two layers: $dups"

if grep -nE '^[a-z][a-z_ ]*[ *]json_[a-z_]+\(' lib/*.[ch] cli/*.[ch] mcp/*.[ch] front/*.[ch] 2>/dev/null; then
    breach "a function of ours in jansson's json_ namespace (above)"
fi
[ $bad -eq 0 ] && echo "layout: ok"
exit $bad
