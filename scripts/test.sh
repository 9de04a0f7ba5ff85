#!/usr/bin/env bash
# Installs what is missing, builds bsh and runs every test: format,
# cppcheck and clang-tidy, the normal build (warnings as errors), an
# ASan+UBSan build with gcc and one with
# clang, valgrind memcheck over the unit and integration tests, every
# package made and installed as its users would (tests/package/, as root),
# the static binaries for musl and aarch64 under qemu-user and in an arm64
# virtual machine (tests/cross/),
# and a short libFuzzer run of each fuzz target (BSH_FUZZ_SECONDS, default 30).
# Ends with one summary line: "bsh: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test || exit 1

passed=0 failed=0
step() { # step NAME COMMAND...: runs one step, counts it, times it
    local name=$1 t0=$SECONDS
    shift
    echo "=== $name"
    "$@"
    local rc=$?
    if [ $rc = 0 ]; then
        passed=$((passed + 1))
        echo "=== $name: passed in $((SECONDS - t0)) s"
    elif [ $rc = 77 ]; then # it said why; neither passed nor failed
        echo "=== $name: SKIPPED"
    else
        failed=$((failed + 1))
        echo "=== $name: FAILED in $((SECONDS - t0)) s"
    fi
}

configure_build() { # configure_build DIR CC [cmake args...]
    local dir=$1 cc=$2
    shift 2
    CC=$cc cmake -S . -B "$dir" -G Ninja -DBSH_WERROR=ON "$@" >/dev/null &&
        cmake --build "$dir"
}

run_ctest() { # run_ctest DIR [ctest args...]
    local dir=$1
    shift
    ctest --test-dir "$dir" --output-on-failure -j2 "$@"
}

format_check() {
    clang-format --dry-run -Werror $(git ls-files '*.c' '*.h' 2>/dev/null ||
        find lib cli tests bench include -name '*.[ch]')
}

asan=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DBSH_SANITIZE=address,undefined)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1

npm_install() { # the official MCP SDK for the MCP tests, and the Kubernetes
    # models for the deploy/ check, pinned by their package-lock.json
    (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error) &&
        (cd tests/deploy && npm ci --no-audit --no-fund --loglevel=error)
}

static_analysis() { # cppcheck over the sources; any finding fails
    cppcheck --enable=warning,style,performance,portability --inline-suppr \
        --suppress=missingIncludeSystem --error-exitcode=1 -q --std=c11 \
        -I include -I lib -I policy -I mcp -I cli -I base -I front -I linre lib policy cli mcp base front linre
}

ablation_applies() { # bench/README's ablation builds stay reproducible
    git apply --check bench/ablation.patch
}

clang_tidy() { # .clang-tidy's checks over the sources, on the dev build's commands
    clang-tidy -p build/dev --quiet lib/*.c policy/*.c cli/*.c mcp/*.c front/*.c linre/*.c
}

step "format" format_check
step "cppcheck" static_analysis
step "bench/ablation.patch applies" ablation_applies
step "npm ci (MCP SDK client, Kubernetes models)" npm_install
# The dev build parses with Debian's libtree-sitter; the sanitizer builds
# with the runtime compiled in (the default, and the static binary's).
step "build (gcc, -Werror)" configure_build build/dev gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBSH_VALGRIND=ON \
    -DBSH_SYSTEM_TREE_SITTER=ON
step "glibc symbol versions (<= 2.34)" scripts/check_glibc.sh build/dev
step "clang-tidy" clang_tidy
step "tests" run_ctest build/dev -LE valgrind
step "build asan+ubsan (gcc)" configure_build build/asan-gcc gcc "${asan[@]}"
step "tests asan+ubsan (gcc)" run_ctest build/asan-gcc
step "build asan+ubsan (clang)" configure_build build/asan-clang clang "${asan[@]}"
step "tests asan+ubsan (clang)" run_ctest build/asan-clang
step "valgrind memcheck" run_ctest build/dev -L valgrind
step "packages (package.sh all, each installed as its users do)" tests/package/test_packages.sh
step "cross: static musl and aarch64 (qemu-user, an arm64 VM)" tests/cross/test_cross.sh
step "fuzz smoke (clang, ${BSH_FUZZ_SECONDS:-30} s per target)" scripts/fuzz.sh "${BSH_FUZZ_SECONDS:-30}"

echo "bsh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
