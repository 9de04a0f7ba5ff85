#!/usr/bin/env bash
# The option table that parses bsh's options also writes --help: every
# option there must be in the man page, and every option the man page
# documents must be one bsh takes. Usage: options_documented.sh BSH MANPAGE
set -uo pipefail
BSH=${1:?usage: options_documented.sh PATH/TO/bsh PATH/TO/bsh.1}
MAN=${2:?usage: options_documented.sh PATH/TO/bsh PATH/TO/bsh.1}
bad=0
help=$("$BSH" --help) || { echo "bsh --help failed"; exit 1; }
in_help=$(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u | grep -vx -- '--version\|--help')
# The man page documents each option on a .B or .BR line, --cwd written
# as \-\-cwd.
in_man=$(grep -E '^\.BR? ' "$MAN" | grep -oE '\\-\\-[a-z]+(\\-[a-z]+)*' |
    sed 's/\\//g' | sort -u | grep -vx -- '--version\|--help')
for o in $in_help; do
    grep -qx -- "$o" <<<"$in_man" || { echo "not in the man page: $o"; bad=1; }
done
for o in $in_man; do
    grep -qx -- "$o" <<<"$in_help" || { echo "in the man page, not in --help: $o"; bad=1; }
done
echo "options: $(wc -w <<<"$in_help") in --help, $(wc -w <<<"$in_man") in the man page"
exit $bad
