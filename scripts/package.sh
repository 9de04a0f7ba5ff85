#!/usr/bin/env bash
# Makes bsh's packages under dist/, each with one command:
#   scripts/package.sh deb|binaries|oci|npm|wheel|server-json|all
# deb: the dynamic build for Debian (bsh, libbsh.so/.a, header, bsh.pc,
# man page). binaries: the four static binaries (x86_64 and aarch64, each
# with static glibc and with musl; cmake --preset static, static-aarch64,
# static-musl, static-musl-aarch64) and their SHA256SUMS. npm and wheel
# carry them, one package per platform; oci, the glibc ones for amd64 and
# arm64 under one multi-architecture index.
# The version is the one in CMakeLists.txt; a tree with uncommitted
# changes is refused, since its packages would carry a version that does
# not say what is in them (BSH_ALLOW_DIRTY=1 allows it, for development).
# On any failure nothing of that target is left in dist/.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
top=$PWD
targets=(deb binaries oci npm wheel server-json)
# The static binaries: npm's platform name, the CMake preset, the strip.
platforms=(linux-x64 linux-arm64 linux-x64-musl linux-arm64-musl)
declare -A preset_of=([linux-x64]=static [linux-arm64]=static-aarch64
    [linux-x64-musl]=static-musl [linux-arm64-musl]=static-musl-aarch64)
declare -A strip_of=([linux-x64]=strip [linux-arm64]=aarch64-linux-gnu-strip
    [linux-x64-musl]=strip [linux-arm64-musl]=aarch64-linux-gnu-strip)
logs=$top/build/package-logs
target= # the one being made, for the messages

died=$(mktemp) # empty until the one line that says why has been written
rm -f "$died"

die() { # one line, however many subshells the failure passes through
    if [ ! -e "$died" ]; then
        echo "package.sh: ${target:+$target: }$*" >&2
        : >"$died"
    fi
    exit 1
}

# Any command that fails ends the script with one line naming it; its own
# output is in the target's log.
trap 'die "\"$BASH_COMMAND\" failed (its output: $logs/${target:-package}.log)"' ERR

logged() { # logged COMMAND...: runs it with its output in the target's log
    "$@" >>"$logs/$target.log" 2>&1 || die "'${*:1:3}' failed (its output: $logs/$target.log)"
}

version() { # the one version, from project(bsh VERSION x.y.z) in CMakeLists.txt
    sed -n 's/^project(bsh VERSION \([0-9][0-9.]*\) .*/\1/p' CMakeLists.txt
}

# What each target needs, checked for all the targets asked for before any
# is made. A "python:" entry is a module of Debian's python3.
needs_deb=(cmake ninja gcc dpkg dpkg-deb dpkg-architecture dpkg-shlibdeps strip lintian gzip md5sum)
needs_static=(cmake ninja gcc strip aarch64-linux-gnu-gcc aarch64-linux-gnu-strip)
needs_binaries=("${needs_static[@]}" sha256sum)
needs_oci=("${needs_static[@]}" podman dpkg /bin/bash-static /bin/busybox)
# (oci's arm64 bash and busybox: Debian's, fetched by scripts/vm_deps.sh)
needs_npm=("${needs_static[@]}" npm node)
needs_wheel=("${needs_static[@]}" /usr/bin/python3 python:build python:setuptools python:wheel)
needs_server_json=(/usr/bin/python3 python:jsonschema)

preflight() { # preflight TARGET...: every tool and module each needs is there
    local t need list what
    for t in "$@"; do
        list="needs_${t//-/_}[@]"
        for need in "${!list}"; do
            case $need in
            python:*) /usr/bin/python3 -c "import ${need#python:}" 2>/dev/null ;;
            /*) [ -x "$need" ] ;;
            *) command -v "$need" >/dev/null ;;
            esac && continue
            what=$need
            [[ $need == python:* ]] && what="Python's module ${need#python:}"
            target=$t
            die "needs $what, which is missing (scripts/deps.sh package installs it)"
        done
    done
}

check_clean() {
    [ "${BSH_ALLOW_DIRTY:-0}" = 1 ] && return
    git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        die "not a git checkout, so nothing says the tree is what version $VERSION is (set BSH_ALLOW_DIRTY=1 to package it anyway)"
    [ -z "$(git status --porcelain --untracked-files=normal -- . ':!dist')" ] ||
        die "the tree has uncommitted changes, so version $VERSION would not say what is in the packages; commit them (or set BSH_ALLOW_DIRTY=1)"
}

declare -A static_bin=()
build_static() { # PLATFORM: its binary (no shared library at all), built and stripped once
    local p=$1 preset
    [ -n "${static_bin[$p]:-}" ] && return
    preset=${preset_of[$p]}
    [ "$p" = linux-x64 ] || [ -f "build/third_party/$(triple "$p")/lib/pkgconfig/libseccomp.pc" ] ||
        die "the $p binary needs its libraries: scripts/deps.sh package builds them"
    logged cmake --preset "$preset"
    logged cmake --build --preset "$preset" --target bsh_cli
    static_bin[$p]=$top/build/$preset/bsh-stripped
    "${strip_of[$p]}" --strip-all -o "${static_bin[$p]}" "build/$preset/cli/bsh"
}

triple() { # PLATFORM: its GNU triple (scripts/cross_deps.sh's names)
    case $1 in
    linux-x64) echo x86_64-linux-gnu ;;
    linux-arm64) echo aarch64-linux-gnu ;;
    linux-x64-musl) echo x86_64-linux-musl ;;
    linux-arm64-musl) echo aarch64-linux-musl ;;
    esac
}

# ---- binaries -------------------------------------------------------------
make_binaries() {
    local p
    mkdir -p "$1/out"
    for p in "${platforms[@]}"; do
        build_static "$p"
        install -m 755 "${static_bin[$p]}" "$1/out/bsh-$VERSION-$p"
    done
    (cd "$1/out" && sha256sum bsh-"$VERSION"-linux-* >"bsh-$VERSION-SHA256SUMS")
}

fill() { # fill TEMPLATE KEY=VALUE...: @KEY@ replaced by VALUE
    local text
    text=$(cat "$1")
    shift
    for kv in "$@"; do
        text=${text//@${kv%%=*}@/${kv#*=}}
    done
    printf '%s\n' "$text"
}

# ---- deb ------------------------------------------------------------------
make_deb() {
    local build=build/package-deb arch stage=$1/root libdir doc
    arch=$(dpkg --print-architecture)
    libdir=lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    doc=$stage/usr/share/doc/$DEB_NAME
    logged cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBSH_TESTS=OFF \
        -DBSH_BENCH=OFF -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="$libdir"
    logged cmake --build $build
    DESTDIR=$stage logged cmake --install $build
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/bsh" \
        "$stage/usr/$libdir"/libbsh.so.*.*.*
    strip --strip-debug --remove-section=.comment "$stage/usr/$libdir/libbsh.a"
    gzip -9n "$stage/usr/share/man/man1/bsh.1"
    install -D -m 644 packaging/deb/copyright "$doc/copyright"
    install -D -m 644 packaging/THIRD_PARTY_NOTICES "$doc/THIRD_PARTY_NOTICES"
    changelog_debian >"$doc/changelog" # a native package's
    gzip -9n "$doc/changelog"
    mkdir -p "$stage/DEBIAN" "$1/debian"
    install -m 644 packaging/deb/triggers "$stage/DEBIAN/triggers"
    printf 'libbsh %s %s (>= %s)\n' "${VERSION%%.*}" "$DEB_NAME" "$VERSION" >"$stage/DEBIAN/shlibs"
    # dpkg-shlibdeps reads debian/control from where it runs.
    printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$DEB_NAME" "$DEB_NAME" >"$1/debian/control"
    local depends
    depends=$(cd "$1" && dpkg-shlibdeps -O -e"root/usr/bin/bsh" -e"root/usr/$libdir/libbsh.so.$VERSION" \
        -l"root/usr/$libdir" 2>>"$logs/$target.log" | sed -n 's/^shlibs:Depends=//p')
    [ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"
    (cd "$stage" && find usr -type f -exec md5sum {} + | sort -k2) >"$stage/DEBIAN/md5sums"
    fill packaging/deb/control.in NAME="$DEB_NAME" VERSION="$VERSION" ARCH="$arch" DEPENDS="$depends" \
        SIZE="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)" >"$stage/DEBIAN/control"
    local deb=$1/out/${DEB_NAME}_${VERSION}_$arch.deb
    mkdir -p "$1/out"
    logged dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb"
    lintian --fail-on error "$deb" >"$1/lintian.log" 2>&1 ||
        die "lintian reports errors: $(grep -m1 '^E:' "$1/lintian.log" || tail -1 "$1/lintian.log")"
    cat "$1/lintian.log" >>"$logs/$target.log"
}

changelog_debian() { # a Debian changelog entry for this version
    printf '%s (%s) unstable; urgency=medium\n\n  * Release %s; see CHANGELOG.md in the sources.\n\n -- The bsh authors <bsh@users.noreply.github.com>  %s\n' \
        "$DEB_NAME" "$VERSION" "$VERSION" "$(date -R -d @"$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
}

# ---- oci ------------------------------------------------------------------
make_oci() { # an image per architecture (amd64, arm64), one index over both
    local arch tag list=$OCI_NAME:$VERSION
    mkdir -p "$1/out"
    for arch in amd64 arm64; do
        oci_image "$1/$arch" "$arch"
    done
    podman manifest rm "$list" >/dev/null 2>&1 || true
    logged podman manifest create "$list"
    for arch in amd64 arm64; do
        logged podman manifest add "$list" "containers-storage:$list-$arch"
    done
    logged podman manifest push -q --all "$list" "oci-archive:$1/out/bsh-$VERSION-oci.tar"
    logged podman manifest rm "$list"
    for arch in amd64 arm64; do logged podman rmi -f "$list-$arch"; done
}

oci_image() { # DIR ARCH: the image of ARCH (static bsh, bash, busybox), tagged NAME:VERSION-ARCH
    local ctx=$1/context root=$1/context/root arch=$2 applet bash busybox doc platform=linux-x64
    if [ "$arch" = arm64 ]; then # Debian's arm64 packages, as scripts/vm_deps.sh fetched them
        platform=linux-arm64 doc=$top/build/third_party/arm64-vm
        bash=$doc/bash/bin/bash-static busybox=$doc/busybox/bin/busybox
        [ -x "$bash" ] && [ -x "$busybox" ] ||
            die "the arm64 image needs Debian's arm64 bash-static and busybox-static: scripts/vm_deps.sh fetches them"
    else
        bash=/bin/bash-static busybox=/bin/busybox doc=
    fi
    build_static "$platform"
    mkdir -p "$root/bin" "$root/tmp" "$ctx/work" "$root/etc" "$root/usr/share/doc"
    chmod 1777 "$root/tmp"
    install -m 755 "${static_bin[$platform]}" "$root/bin/bsh"
    install -m 755 "$bash" "$root/bin/bash"
    ln -s bash "$root/bin/sh"
    install -m 755 "$busybox" "$root/bin/busybox"
    for applet in $(grep -v '^#' packaging/oci/applets.txt); do
        ln -s busybox "$root/bin/$applet"
    done
    printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/work:/bin/bash\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    install -D -m 644 LICENSE "$root/usr/share/doc/bsh/copyright"
    install -D -m 644 packaging/THIRD_PARTY_NOTICES "$root/usr/share/doc/bsh/THIRD_PARTY_NOTICES"
    install -D -m 644 "${doc:+$doc/bash}/usr/share/doc/bash-static/copyright" "$root/usr/share/doc/bash-static/copyright"
    install -D -m 644 "${doc:+$doc/busybox}/usr/share/doc/busybox-static/copyright" \
        "$root/usr/share/doc/busybox-static/copyright"
    sources_note "$arch" >"$root/usr/share/doc/SOURCES"
    cp packaging/oci/Containerfile "$ctx/"
    # FROM scratch and COPY alone: an arm64 image is built here without emulation.
    logged podman build -q --no-cache --layers=false --platform "linux/$arch" \
        --build-arg BSH_VERSION="$VERSION" --build-arg MCP_NAME="$MCP_NAME" \
        --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
        --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -t "$OCI_NAME:$VERSION-$arch" "$ctx"
}

sources_note() { # ARCH: where the sources of the image's GPL programs are
    local p
    echo "bash and busybox in this image are Debian's binary packages, unchanged:"
    if [ "$1" = arm64 ]; then
        # NAME PACKAGE VERSION SOURCE SOURCE-VERSION (scripts/vm_deps.sh)
        awk '$1 == "bash" || $1 == "busybox" { printf "  %s %s (arm64; source package %s %s)\n", $2, $3, $4, $5 }' \
            "$top/build/third_party/arm64-vm/VERSIONS"
    else
        for p in bash-static busybox-static; do
            echo "  $(dpkg-query -W -f='${Package} ${Version} (source package ${source:Package} ${source:Version})' "$p")"
        done
    fi
    echo "Their complete sources are in Debian's archive (apt-get source bash busybox,"
    echo "or https://snapshot.debian.org/); their licences are beside this file."
}

# ---- npm ------------------------------------------------------------------
make_npm() { # one package per platform, and the launcher that depends on them all
    local p main=$1/main plat deps=()
    mkdir -p "$main" "$1/out"
    for p in "${platforms[@]}"; do
        build_static "$p"
        plat=$1/$p
        mkdir -p "$plat/bin"
        local cpu=${p#linux-} libc=glibc
        [[ $p == *-musl ]] && libc=musl
        fill packaging/npm/platform/package.json.in NPM_NAME="$NPM_NAME" VERSION="$VERSION" \
            PLATFORM="$p" CPU="${cpu%-musl}" LIBC="$libc" >"$plat/package.json"
        install -m 755 "${static_bin[$p]}" "$plat/bin/bsh"
        cp LICENSE packaging/THIRD_PARTY_NOTICES "$plat/"
        (cd "$plat" && logged npm pack --pack-destination ../out)
        deps+=("    \"$NPM_NAME-$p\": \"$VERSION\"")
    done
    cp -r packaging/npm/bsh-mcp/bin packaging/npm/bsh-mcp/lib packaging/npm/bsh-mcp/README.md LICENSE \
        packaging/THIRD_PARTY_NOTICES "$main/"
    fill packaging/npm/bsh-mcp/package.json.in NPM_NAME="$NPM_NAME" VERSION="$VERSION" \
        MCP_NAME="$MCP_NAME" OPTIONAL_DEPENDENCIES="$(IFS=$'\n'; sed '$!s/$/,/' <<<"${deps[*]}")" \
        >"$main/package.json"
    node -e 'JSON.parse(require("fs").readFileSync(process.argv[1]))' "$main/package.json" 2>/dev/null ||
        die "the package.json made is not JSON"
    (cd "$main" && logged npm pack --pack-destination ../out)
}

# ---- wheel ----------------------------------------------------------------
make_wheel() { # one wheel per platform, tagged for it (setup.py)
    local p tree
    mkdir -p "$1/out"
    for p in "${platforms[@]}"; do
        build_static "$p"
        tree=$1/$p
        mkdir -p "$tree"
        cp -r packaging/python/src packaging/python/setup.py LICENSE "$tree/"
        fill packaging/python/pyproject.toml.in PYPI_NAME="$PYPI_NAME" VERSION="$VERSION" >"$tree/pyproject.toml"
        fill packaging/python/README.md.in PYPI_NAME="$PYPI_NAME" MCP_NAME="$MCP_NAME" >"$tree/README.md"
        install -D -m 755 "${static_bin[$p]}" "$tree/src/bsh/_bin/bsh"
        install -m 644 packaging/THIRD_PARTY_NOTICES "$tree/src/bsh/_bin/THIRD_PARTY_NOTICES"
        (cd "$tree" && BSH_WHEEL_PLATFORM=$p logged /usr/bin/python3 -m build --wheel --no-isolation --outdir ../out)
    done
}

# ---- server.json ----------------------------------------------------------
make_server_json() { # for the MCP registry: the npm, PyPI and OCI packages
    mkdir -p "$1/out"
    fill packaging/server.json.in MCP_NAME="$MCP_NAME" VERSION="$VERSION" NPM_NAME="$NPM_NAME" \
        PYPI_NAME="$PYPI_NAME" OCI_NAME="$OCI_NAME" >"$1/out/server.json"
    /usr/bin/python3 tests/package/validate_server_json.py packaging/server.schema.json \
        "$1/out/server.json" >>"$logs/$target.log" 2>&1 ||
        die "server.json does not follow the registry's schema: $(grep -m1 '^server.json: ' "$logs/$target.log")"
}

# ---- main -----------------------------------------------------------------
make_target() { # make_target NAME STAGING: makes it into STAGING/out
    target=$1
    : >"$logs/$target.log"
    mkdir -p "$2"
    "make_${target//-/_}" "$2"
    target=
}

[ $# -ge 1 ] || die "usage: scripts/package.sh deb|binaries|oci|npm|wheel|server-json|all"
want=()
for arg in "$@"; do
    case " ${targets[*]} all " in
    *" $arg "*) ;;
    *) die "unknown target '$arg' (one of: ${targets[*]} all)" ;;
    esac
    if [ "$arg" = all ]; then want+=("${targets[@]}"); else want+=("$arg"); fi
done
VERSION=$(version)
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "no x.y.z version in CMakeLists.txt (found '$VERSION')"
. packaging/names.env
check_clean
preflight "${want[@]}"
mkdir -p dist "$logs"
# Every target is made in one staging folder; only when all are made do
# their files move into dist/, so a failure leaves dist/ as it was.
staging=$(mktemp -d "$top/dist/.staging.XXXXXX")
trap 'rm -rf "$staging" "$died"' EXIT
for t in "${want[@]}"; do
    make_target "$t" "$staging/$t"
done
for t in "${want[@]}"; do
    mv "$staging/$t"/out/* dist/
done
echo "package.sh: made ${want[*]}; in dist/: $(cd dist && ls -A | grep -v '^\.staging' | tr '\n' ' ')"
