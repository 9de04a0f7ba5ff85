# Sourced by the package tests: counted checks and the closing line.
# pass WHAT / fail WHAT print one line each (with "($who)" when the caller
# sets who); finish prints "NAME: N failure(s)" and returns 0 only for none.
failures=0
fail() { echo "FAIL${who:+ ($who)}: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok${who:+ ($who)}: $*"; }
finish() {
    echo "$(basename "$0"): $failures failure(s)${1:+ $1}"
    [ $failures = 0 ]
}
