#!/usr/bin/env bash
# Installs the Debian packages bsh needs to build and test, if missing.
# Usage: scripts/deps.sh [build|package|test|grammar]   (default: test,
# which holds the others: build < package < test; every one but grammar
# also fetches the bash grammar the command policy parses with, which
# grammar does alone)
set -euo pipefail

build_pkgs=(gcc make cmake ninja-build pkg-config libpcre2-dev libjansson-dev libseccomp-dev libvterm-dev
    libmicrohttpd-dev libtree-sitter-dev nodejs npm)
test_pkgs=(clang clang-format clang-tidy cppcheck strace valgrind libclang-rt-14-dev
    python3 procps util-linux curl vim-tiny gdb git binutils)

# What scripts/package.sh and its tests (tests/package/) use.
package_pkgs=(dpkg-dev lintian man-db file unzip curl xz-utils patch bash-static busybox-static podman
    python3-build python3-setuptools python3-wheel python3-venv python3-jsonschema
    python3-pytest mypy gperf gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
# What tests/cross/ runs the aarch64 binaries with: qemu-user, and an arm64
# virtual machine whose initramfs cpio packs.
cross_test_pkgs=(qemu-user-static qemu-system-arm cpio)

want=("${build_pkgs[@]}")
case ${1:-test} in
build) ;;
grammar) exec "$(dirname "$0")/grammar_deps.sh" ;;
package) want+=("${package_pkgs[@]}") ;;
test) want+=("${package_pkgs[@]}" "${test_pkgs[@]}" "${cross_test_pkgs[@]}") ;;
*) echo "deps: unknown profile '$1' (build, package, test or grammar)" >&2; exit 2 ;;
esac

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
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}" >&2
    sudo=
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The bash grammar (npm, checked by sha256), for every profile.
"$(dirname "$0")/grammar_deps.sh"
# The static binary's one library Debian has no usable archive of; the
# libraries of the other static binaries (aarch64, musl), from Debian's
# sources; and Debian's arm64 kernels, bash and busybox (the arm64 VM of
# the tests, the arm64 OCI image).
case ${1:-test} in
package | test)
    "$(dirname "$0")/static_deps.sh"
    "$(dirname "$0")/cross_deps.sh" x86_64-linux-musl aarch64-linux-gnu aarch64-linux-musl
    "$(dirname "$0")/vm_deps.sh"
    ;;
esac
