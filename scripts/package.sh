#!/usr/bin/env bash
# Makes bsh's packages under dist/, each with one command:
#   scripts/package.sh deb|oci|npm|wheel|server-json|all
# deb: the dynamic build for Debian (bsh, libbsh.so/.a, header, bsh.pc,
# man page). oci, npm and wheel carry the static binary (BSH_STATIC=ON).
# The version is the one in CMakeLists.txt; a tree with uncommitted
# changes is refused, since its packages would carry a version that does
# not say what is in them (BSH_ALLOW_DIRTY=1 allows it, for development).
# On any failure nothing of that target is left in dist/.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
top=$PWD
targets=(deb oci npm wheel server-json)
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
needs_static=(cmake ninja gcc strip)
needs_oci=("${needs_static[@]}" podman dpkg /bin/bash-static /bin/busybox)
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

build_static() { # the binary for oci, npm and wheel: no shared library at all, stripped once
    [ -n "${static_bin:-}" ] && return
    logged cmake --preset static
    logged cmake --build --preset static
    static_bin=$top/build/static/bsh-stripped
    strip --strip-all -o "$static_bin" build/static/cli/bsh
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
make_oci() {
    build_static
    local ctx=$1/context root=$1/context/root arch applet tag
    mkdir -p "$root/bin" "$root/tmp" "$ctx/work" "$root/etc" "$root/usr/share/doc"
    chmod 1777 "$root/tmp"
    install -m 755 "$static_bin" "$root/bin/bsh"
    install -m 755 /bin/bash-static "$root/bin/bash"
    ln -s bash "$root/bin/sh"
    install -m 755 /bin/busybox "$root/bin/busybox"
    for applet in $(grep -v '^#' packaging/oci/applets.txt); do
        ln -s busybox "$root/bin/$applet"
    done
    printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/work:/bin/bash\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    install -D -m 644 LICENSE "$root/usr/share/doc/bsh/copyright"
    install -D -m 644 packaging/THIRD_PARTY_NOTICES "$root/usr/share/doc/bsh/THIRD_PARTY_NOTICES"
    install -D -m 644 /usr/share/doc/bash-static/copyright "$root/usr/share/doc/bash-static/copyright"
    install -D -m 644 /usr/share/doc/busybox-static/copyright "$root/usr/share/doc/busybox-static/copyright"
    sources_note >"$root/usr/share/doc/SOURCES"
    cp packaging/oci/Containerfile "$ctx/"
    arch=$(dpkg --print-architecture)
    tag=$OCI_NAME:$VERSION
    logged podman build -q --no-cache --layers=false --build-arg BSH_VERSION="$VERSION" \
        --build-arg MCP_NAME="$MCP_NAME" --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
        --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -t "$tag" "$ctx"
    mkdir -p "$1/out"
    logged podman save -q --format oci-archive -o "$1/out/bsh-$VERSION-oci-$arch.tar" "$tag"
    logged podman rmi -f "$tag"
}

sources_note() { # where the sources of the image's GPL programs are
    local p
    echo "bash and busybox in this image are Debian's binary packages, unchanged:"
    for p in bash-static busybox-static; do
        echo "  $(dpkg-query -W -f='${Package} ${Version} (source package ${source:Package} ${source:Version})' "$p")"
    done
    echo "Their complete sources are in Debian's archive (apt-get source bash busybox,"
    echo "or https://snapshot.debian.org/); their licences are beside this file."
}

# ---- npm ------------------------------------------------------------------
npm_platform() { # this machine's npm platform name: linux-x64, linux-arm64
    case $(uname -m) in
    x86_64) echo linux-x64 ;;
    aarch64) echo linux-arm64 ;;
    *) die "no npm platform for $(uname -m)" ;;
    esac
}


make_npm() {
    build_static
    local platform main=$1/main plat
    platform=$(npm_platform)
    plat=$1/$platform
    mkdir -p "$plat/bin" "$main" "$1/out"
    fill packaging/npm/platform/package.json.in NPM_NAME="$NPM_NAME" VERSION="$VERSION" \
        PLATFORM="$platform" CPU="${platform#linux-}" >"$plat/package.json"
    install -m 755 "$static_bin" "$plat/bin/bsh"
    cp LICENSE packaging/THIRD_PARTY_NOTICES "$plat/"
    cp -r packaging/npm/bsh-mcp/bin packaging/npm/bsh-mcp/lib packaging/npm/bsh-mcp/README.md LICENSE \
        packaging/THIRD_PARTY_NOTICES "$main/"
    # Only the platforms built here are listed; the launcher knows them all.
    fill packaging/npm/bsh-mcp/package.json.in NPM_NAME="$NPM_NAME" VERSION="$VERSION" \
        MCP_NAME="$MCP_NAME" \
        OPTIONAL_DEPENDENCIES="    \"$NPM_NAME-$platform\": \"$VERSION\"" >"$main/package.json"
    node -e 'JSON.parse(require("fs").readFileSync(process.argv[1]))' "$main/package.json" 2>/dev/null ||
        die "the package.json made is not JSON"
    (cd "$plat" && logged npm pack --pack-destination ../out)
    (cd "$main" && logged npm pack --pack-destination ../out)
}

# ---- wheel ----------------------------------------------------------------
make_wheel() {
    build_static
    local tree=$1/python
    mkdir -p "$tree" "$1/out"
    cp -r packaging/python/src packaging/python/setup.py LICENSE "$tree/"
    fill packaging/python/pyproject.toml.in PYPI_NAME="$PYPI_NAME" VERSION="$VERSION" >"$tree/pyproject.toml"
    fill packaging/python/README.md.in PYPI_NAME="$PYPI_NAME" MCP_NAME="$MCP_NAME" >"$tree/README.md"
    install -D -m 755 "$static_bin" "$tree/src/bsh/_bin/bsh"
    install -m 644 packaging/THIRD_PARTY_NOTICES "$tree/src/bsh/_bin/THIRD_PARTY_NOTICES"
    (cd "$tree" && logged /usr/bin/python3 -m build --wheel --no-isolation --outdir ../out)
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

[ $# -ge 1 ] || die "usage: scripts/package.sh deb|oci|npm|wheel|server-json|all"
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
