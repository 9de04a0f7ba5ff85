#!/usr/bin/env bash
# Builds what the static binary (cmake --preset static) links that Debian
# ships only in a form a static binary cannot use: libmicrohttpd, whose
# Debian archive needs GnuTLS (and p11-kit, which has no archive). bsh
# serves plain HTTP (TLS ends at the gateway), so it is built from
# Debian's own source of the version the dynamic build uses, with Debian's
# patches, without HTTPS. The sources are checked against the sums below;
# nothing else is fetched. Idempotent: a finished build is kept.
# Usage: scripts/static_deps.sh   (run by scripts/deps.sh package|test)
set -euo pipefail
cd "$(dirname "$0")/.."

MHD_VERSION=0.9.75
MHD_DEBIAN=6
POOL=http://deb.debian.org/debian/pool/main/libm/libmicrohttpd
ORIG=libmicrohttpd_${MHD_VERSION}.orig.tar.xz
ORIG_SHA256=796e7e217a4802679fcac667a4e98501c53185dcf50ca0583870e84192620131
DEBIAN=libmicrohttpd_${MHD_VERSION}-${MHD_DEBIAN}.debian.tar.xz
DEBIAN_SHA256=566c247bfbf67e20858705ae695f58db747d50ed8512f2bc46a28bef9086e5af

top=$PWD/build/third_party
prefix=$top/mhd
stamp=$prefix/.built-$MHD_VERSION-$MHD_DEBIAN
[ -f "$stamp" ] && exit 0

fetch() { # NAME SHA256: into $top/src, checked
    local name=$1 sum=$2 file=$top/src/$1
    if [ ! -f "$file" ] || ! echo "$sum  $file" | sha256sum -c --quiet - 2>/dev/null; then
        echo "static_deps: fetching $name" >&2
        curl -fsSL --retry 3 -o "$file.part" "$POOL/$name"
        mv "$file.part" "$file"
    fi
    echo "$sum  $file" | sha256sum -c --quiet - ||
        { echo "static_deps: $name does not match its sha256" >&2; rm -f "$file"; exit 1; }
}

mkdir -p "$top/src"
fetch "$ORIG" "$ORIG_SHA256"
fetch "$DEBIAN" "$DEBIAN_SHA256"
work=$(mktemp -d "$top/src/mhd.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -xJf "$top/src/$ORIG" -C "$work"
tar -xJf "$top/src/$DEBIAN" -C "$work/libmicrohttpd-$MHD_VERSION"
cd "$work/libmicrohttpd-$MHD_VERSION"
if [ -f debian/patches/series ]; then
    grep -v '^#' debian/patches/series | while read -r p _; do
        [ -n "$p" ] && patch -p1 -s <"debian/patches/$p"
    done
fi
echo "static_deps: building libmicrohttpd $MHD_VERSION (no HTTPS) into $prefix" >&2
./configure --quiet --prefix="$prefix" --enable-static --disable-shared \
    --disable-https --without-gnutls --disable-curl --disable-doc --disable-examples \
    --disable-tools --disable-dauth --disable-bauth --disable-postprocessor \
    CFLAGS="-O2 -g0" >"$work/configure.log" 2>&1 ||
    { tail -20 "$work/configure.log" >&2; exit 1; }
make -s -j"$(nproc)" -C src/microhttpd >"$work/make.log" 2>&1 ||
    { tail -20 "$work/make.log" >&2; exit 1; }
rm -rf "$prefix"
make -s -C src/microhttpd install >/dev/null
make -s -C src/include install >/dev/null
mkdir -p "$prefix/lib/pkgconfig"
cp libmicrohttpd.pc "$prefix/lib/pkgconfig/"
touch "$stamp"
