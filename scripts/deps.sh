#!/usr/bin/env bash
# Installs the Debian packages bsh needs to build and test, if missing.
# Usage: scripts/deps.sh [build|test]   (default: test, which is a superset)
set -euo pipefail

build_pkgs=(gcc make cmake ninja-build pkg-config libpcre2-dev libjansson-dev libseccomp-dev libvterm-dev)
test_pkgs=(clang clang-format clang-tidy cppcheck strace valgrind libclang-rt-14-dev nodejs npm
    python3 procps util-linux curl vim-tiny gdb git binutils)

want=("${build_pkgs[@]}")
[ "${1:-test}" = test ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$p")
done
# npm may come from outside Debian's packages (e.g. bundled with node).
if command -v npm >/dev/null && command -v node >/dev/null; then
    tmp=()
    for p in "${missing[@]}"; do
        case $p in nodejs | npm) ;; *) tmp+=("$p") ;; esac
    done
    missing=("${tmp[@]+"${tmp[@]}"}")
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
