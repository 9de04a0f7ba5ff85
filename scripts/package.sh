#!/usr/bin/env bash
# Makes bsh's packages under dist/, each with one command:
#   scripts/package.sh deb|oci|npm|wheel|server-json|all
# deb: the dynamic build for Debian (bsh, libbsh.so/.a, header, bsh.pc,
# man page). oci, npm and wheel carry the static binary (BSH_STATIC=ON).
# The version is the one in CMakeLists.txt; a tree with uncommitted
# changes is refused, since its packages would carry a version that does
# not say what is in them (BSH_ALLOW_DIRTY=1 allows it, for development).
# On any failure nothing of that target is left in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
targets=(deb oci npm wheel server-json)

die() { echo "package.sh: $*" >&2; exit 1; }

version() { # the one version, from project(bsh VERSION x.y.z) in CMakeLists.txt
    sed -n 's/^project(bsh VERSION \([0-9][0-9.]*\) .*/\1/p' CMakeLists.txt
}

need() { # need TARGET TOOL...: each tool is on PATH
    local target=$1 tool
    shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null ||
            die "$target needs '$tool', which is missing (scripts/deps.sh package installs it)"
    done
}

check_clean() {
    [ "${BSH_ALLOW_DIRTY:-0}" = 1 ] && return
    [ -z "$(git status --porcelain --untracked-files=normal -- . ':!dist' 2>/dev/null)" ] ||
        die "the tree has uncommitted changes, so version $VERSION would not say what is in the packages; commit them (or set BSH_ALLOW_DIRTY=1)"
}

build_static() { # the binary for oci, npm and wheel: no shared library at all
    [ -n "${static_bin:-}" ] && return
    cmake --preset static >/dev/null && cmake --build --preset static >/dev/null
    static_bin=$top/build/static/cli/bsh
}

# ---- deb ------------------------------------------------------------------
make_deb() {
    need deb dpkg-deb dpkg-shlibdeps strip lintian gzip
    local build=build/package-deb arch stage=$1/root libdir
    arch=$(dpkg --print-architecture)
    libdir=lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBSH_TESTS=OFF \
        -DBSH_BENCH=OFF -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR="$libdir" >/dev/null
    cmake --build $build >/dev/null
    DESTDIR=$stage cmake --install $build >/dev/null
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/bsh" \
        "$stage/usr/$libdir"/libbsh.so.*.*.*
    strip --strip-debug --remove-section=.comment "$stage/usr/$libdir/libbsh.a"
    gzip -9n "$stage/usr/share/man/man1/bsh.1"
    install -D -m 644 packaging/deb/copyright "$stage/usr/share/doc/bsh/copyright"
    changelog_debian >"$stage/usr/share/doc/bsh/changelog" # a native package's
    gzip -9n "$stage/usr/share/doc/bsh/changelog"
    mkdir -p "$stage/DEBIAN" "$1/debian"
    install -m 644 packaging/deb/triggers "$stage/DEBIAN/triggers"
    printf 'libbsh %s bsh (>= %s)\n' "${VERSION%%.*}" "$VERSION" >"$stage/DEBIAN/shlibs"
    # dpkg-shlibdeps reads debian/control from where it runs.
    printf 'Source: bsh\n\nPackage: bsh\nArchitecture: any\n' >"$1/debian/control"
    local depends
    depends=$(cd "$1" && dpkg-shlibdeps -O -e"root/usr/bin/bsh" -e"root/usr/$libdir/libbsh.so.$VERSION" \
        -l"root/usr/$libdir" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
    [ -n "$depends" ] || die "deb: dpkg-shlibdeps found no dependencies"
    (cd "$stage" && find usr -type f -exec md5sum {} + | sort -k2) >"$stage/DEBIAN/md5sums"
    sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
        -e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$stage" | cut -f1)/" \
        packaging/deb/control.in >"$stage/DEBIAN/control"
    local deb=$1/out/bsh_${VERSION}_$arch.deb
    mkdir -p "$1/out"
    dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
    lintian --fail-on error "$deb" 2>&1 | grep -v "^running with root" >&2
    [ "${PIPESTATUS[0]}" = 0 ] ||
        die "deb: lintian reports errors"
}

changelog_debian() { # a Debian changelog entry for this version
    printf 'bsh (%s) unstable; urgency=medium\n\n  * Release %s; see CHANGELOG.md in the sources.\n\n -- The bsh authors <bsh@users.noreply.github.com>  %s\n' \
        "$VERSION" "$VERSION" "$(date -R -d @"$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
}

# ---- oci ------------------------------------------------------------------
make_oci() {
    need oci podman strip
    [ -x /bin/bash-static ] && [ -x /bin/busybox ] ||
        die "oci needs Debian's bash-static and busybox-static (scripts/deps.sh package installs them)"
    build_static
    local ctx=$1/context root=$1/context/root arch applet tag
    mkdir -p "$root/bin" "$root/tmp" "$ctx/work" "$root/etc" "$root/usr/share/doc"
    chmod 1777 "$root/tmp"
    install -m 755 "$static_bin" "$root/bin/bsh"
    strip --strip-all "$root/bin/bsh"
    install -m 755 /bin/bash-static "$root/bin/bash"
    ln -s bash "$root/bin/sh"
    install -m 755 /bin/busybox "$root/bin/busybox"
    for applet in $(grep -v '^#' packaging/oci/applets.txt); do
        ln -s busybox "$root/bin/$applet"
    done
    printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/work:/bin/bash\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    install -D -m 644 LICENSE "$root/usr/share/doc/bsh/copyright"
    install -D -m 644 /usr/share/doc/bash-static/copyright "$root/usr/share/doc/bash-static/copyright"
    install -D -m 644 /usr/share/doc/busybox-static/copyright "$root/usr/share/doc/busybox-static/copyright"
    cp packaging/oci/Containerfile "$ctx/"
    arch=$(dpkg --print-architecture)
    tag=$OCI_NAME:$VERSION
    podman build -q --no-cache --layers=false --build-arg BSH_VERSION="$VERSION" \
        --build-arg MCP_NAME="$MCP_NAME" --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
        --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -t "$tag" "$ctx" >/dev/null
    mkdir -p "$1/out"
    podman save -q --format oci-archive -o "$1/out/bsh-$VERSION-oci-$arch.tar" "$tag"
    podman rmi -f "$tag" >/dev/null
}

# ---- npm ------------------------------------------------------------------
npm_platform() { # this machine's npm platform name: linux-x64, linux-arm64
    case $(uname -m) in
    x86_64) echo linux-x64 ;;
    aarch64) echo linux-arm64 ;;
    *) die "npm: no npm platform for $(uname -m)" ;;
    esac
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

make_npm() {
    need npm npm node strip
    build_static
    local platform main=$1/main plat
    platform=$(npm_platform)
    plat=$1/$platform
    mkdir -p "$plat/bin" "$main" "$1/out"
    fill packaging/npm/platform/package.json.in NPM_NAME="$NPM_NAME" VERSION="$VERSION" \
        PLATFORM="$platform" CPU="${platform#linux-}" >"$plat/package.json"
    install -m 755 "$static_bin" "$plat/bin/bsh"
    strip --strip-all "$plat/bin/bsh"
    cp LICENSE "$plat/"
    cp -r packaging/npm/bsh-mcp/bin packaging/npm/bsh-mcp/lib packaging/npm/bsh-mcp/README.md LICENSE "$main/"
    # Only the platforms built here are listed; the launcher knows them all.
    fill packaging/npm/bsh-mcp/package.json.in NPM_NAME="$NPM_NAME" VERSION="$VERSION" \
        MCP_NAME="$MCP_NAME" \
        OPTIONAL_DEPENDENCIES="    \"$NPM_NAME-$platform\": \"$VERSION\"" >"$main/package.json"
    node -e 'JSON.parse(require("fs").readFileSync(process.argv[1]))' "$main/package.json" ||
        die "npm: the package.json made is not JSON"
    (cd "$plat" && npm pack --silent --pack-destination ../out >/dev/null)
    (cd "$main" && npm pack --silent --pack-destination ../out >/dev/null)
}

# ---- wheel ----------------------------------------------------------------
make_wheel() {
    need wheel /usr/bin/python3 strip
    /usr/bin/python3 -c 'import build, setuptools, wheel' 2>/dev/null ||
        die "wheel needs Debian's python3-build, python3-setuptools and python3-wheel (scripts/deps.sh package installs them)"
    build_static
    local tree=$1/python
    mkdir -p "$tree" "$1/out"
    cp -r packaging/python/src packaging/python/setup.py LICENSE "$tree/"
    fill packaging/python/pyproject.toml.in PYPI_NAME="$PYPI_NAME" VERSION="$VERSION" >"$tree/pyproject.toml"
    fill packaging/python/README.md.in PYPI_NAME="$PYPI_NAME" MCP_NAME="$MCP_NAME" >"$tree/README.md"
    install -D -m 755 "$static_bin" "$tree/src/bsh/_bin/bsh"
    strip --strip-all "$tree/src/bsh/_bin/bsh"
    (cd "$tree" && /usr/bin/python3 -m build --wheel --no-isolation --outdir ../out >build.log 2>&1) ||
        die "wheel: python3 -m build failed: $(tail -5 "$tree/build.log")"
}

# ---- server.json ----------------------------------------------------------
make_server_json() { # for the MCP registry: the npm, PyPI and OCI packages
    need server-json /usr/bin/python3
    mkdir -p "$1/out"
    fill packaging/server.json.in MCP_NAME="$MCP_NAME" VERSION="$VERSION" NPM_NAME="$NPM_NAME" \
        PYPI_NAME="$PYPI_NAME" OCI_NAME="$OCI_NAME" >"$1/out/server.json"
    /usr/bin/python3 tests/package/validate_server_json.py packaging/server.schema.json \
        "$1/out/server.json" >&2 || die "server-json: server.json does not follow the registry's schema"
}

# ---- main -----------------------------------------------------------------
run_target() { # run_target NAME: makes it in a staging folder, then moves it into dist/
    local name=$1 staging
    staging=$(mktemp -d "$top/dist/.staging-$name.XXXXXX")
    current_staging=$staging
    "make_${name//-/_}" "$staging"
    mv "$staging"/out/* dist/
    rm -rf "$staging"
    current_staging=
    echo "package.sh: $name done"
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
. packaging/names.env
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "no x.y.z version in CMakeLists.txt (found '$VERSION')"
check_clean
mkdir -p dist
current_staging=
trap '[ -n "$current_staging" ] && rm -rf "$current_staging"' EXIT
for t in "${want[@]}"; do
    run_target "$t"
done
