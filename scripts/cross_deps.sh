#!/usr/bin/env bash
# Builds what a static binary for another architecture or C library links
# (cmake --preset static-aarch64, static-musl, static-musl-aarch64): the
# static archives of libseccomp, jansson, libvterm, libmicrohttpd (no
# HTTPS) and PCRE2 (for the tests' oracle), and for the musl targets musl
# itself with its musl-gcc wrapper, from Debian bookworm's own source
# packages with Debian's patches applied. Each source is checked against
# its sha256 below; nothing else is fetched. Debian's own static archives
# cannot serve: they are built for glibc with _FORTIFY_SOURCE (they call
# glibc's __*_chk functions) and for this machine's architecture.
# Into build/third_party/TARGET: lib/*.a, include/, lib/pkgconfig/*.pc
# (relocatable: prefix=${pcfiledir}/../..), and for the musl targets
# musl/ (bin/musl-gcc, lib/musl-gcc.specs, include/ with the Linux UAPI
# headers copied in). Idempotent: a finished library is kept.
# Usage: scripts/cross_deps.sh TARGET...   (scripts/deps.sh package|test
#        runs it for all three)
#   TARGET: aarch64-linux-gnu (static glibc, cross) | x86_64-linux-musl |
#           aarch64-linux-musl
# Needs: gcc, make, cmake, ninja, curl, patch, gperf (libseccomp: Debian's
# patch changes its syscall table, which is generated again), and for
# the aarch64 targets gcc-aarch64-linux-gnu with libc6-dev-arm64-cross.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 1 ]; then
    for t in "$@"; do "$0" "$t"; done
    exit 0
fi

target=${1:-}
case $target in
    aarch64-linux-gnu) cross=aarch64-linux-gnu- musl=0 ;;
    x86_64-linux-musl) cross= musl=1 ;;
    aarch64-linux-musl) cross=aarch64-linux-gnu- musl=1 ;;
    *) echo "usage: $0 TARGET... (aarch64-linux-gnu, x86_64-linux-musl, aarch64-linux-musl)" >&2
       exit 2 ;;
esac

DEB=http://deb.debian.org/debian/pool/main
# name  sha256  pool directory
SOURCES="
musl_1.2.3.orig.tar.gz 7d5b0b6062521e4627e099e4c9dc8248d32a30285e959b7eecaa780cf8cfd4a4 $DEB/m/musl
musl_1.2.3-1.debian.tar.xz 8f12cc808dbec030179a25ce2645a4c0b622ee8011c2afcec53b87ec5867a8cc $DEB/m/musl
libseccomp_2.5.4.orig.tar.gz d82902400405cf0068574ef3dc1fe5f5926207543ba1ae6f8e7a1576351dcbdb $DEB/libs/libseccomp
libseccomp_2.5.4-1+deb12u1.debian.tar.xz 665fc6ad1b9887207b0af1a293a2d7975e2df503a2618d1808b970081f9672f6 $DEB/libs/libseccomp
jansson_2.14.orig.tar.gz c739578bf6b764aa0752db9a2fdadcfe921c78f1228c7ec0bb47fa804c55d17b $DEB/j/jansson
jansson_2.14-2.debian.tar.xz e89fe4fd8221f6934ddb50f2e7f8404311928d0e23e49a5599f3d3d14ee8cb88 $DEB/j/jansson
libvterm_0.1.4.orig.tar.gz bc70349e95559c667672fc8c55b9527d9db9ada0fb80a3beda533418d782d3dd $DEB/libv/libvterm
libvterm_0.1.4-1.debian.tar.xz e259458deecc2fb57e1b5e5adc422e141fc1a15981596c13590df88378be8fd4 $DEB/libv/libvterm
libmicrohttpd_0.9.75.orig.tar.xz 796e7e217a4802679fcac667a4e98501c53185dcf50ca0583870e84192620131 $DEB/libm/libmicrohttpd
libmicrohttpd_0.9.75-6.debian.tar.xz 566c247bfbf67e20858705ae695f58db747d50ed8512f2bc46a28bef9086e5af $DEB/libm/libmicrohttpd
pcre2_10.42.orig.tar.gz c33b418e3b936ee3153de2c61cc638e7e4fe3156022a5c77d0711bcbb9d64f1f $DEB/p/pcre2
pcre2_10.42-1.diff.gz 8267c3acacb04e8a077235f676187393e295443fc16ff46ddbe5f6476879c8cb $DEB/p/pcre2
"

top=$PWD/build/third_party
srcdir=$top/src
out=$top/$target
jobs=${JOBS:-$(nproc)}
mkdir -p "$srcdir" "$out"

log() { echo "cross_deps[$target] ${SECONDS}s: $*" >&2; }

fetch() { # NAME: into $srcdir, checked against its sum in SOURCES
    local name=$1 sum dir file=$srcdir/$1
    read -r _ sum dir < <(echo "$SOURCES" | grep "^$name ") ||
        { log "no sum for $name"; exit 1; }
    if [ ! -f "$file" ] || ! echo "$sum  $file" | sha256sum -c --quiet - 2>/dev/null; then
        log "fetching $name"
        curl -fsSL --retry 3 -o "$file.part" "$dir/$name"
        mv "$file.part" "$file"
    fi
    echo "$sum  $file" | sha256sum -c --quiet - ||
        { log "$name does not match its sha256"; rm -f "$file"; exit 1; }
}

work=$(mktemp -d "$top/build.$target.XXXXXX")
trap 'rm -rf "$work"' EXIT

unpack() { # ORIG DEBIAN DIR: unpacks into $work, applies Debian's patches, cds in
    local orig=$1 debian=$2 dir=$3
    fetch "$orig"
    fetch "$debian"
    tar -xf "$srcdir/$orig" -C "$work"
    cd "$work/$dir"
    case $debian in
    *.diff.gz) zcat "$srcdir/$debian" | patch -p1 -s ;; # format 1.0
    *) tar -xJf "$srcdir/$debian" ;;
    esac
    if [ -f debian/patches/series ]; then
        grep -v '^#' debian/patches/series | while read -r p _; do
            if [ -n "$p" ]; then patch -p1 -s <"debian/patches/$p"; fi
        done
    fi
    return 0
}

run() { # LOGNAME CMD...: quiet, the log's tail on failure
    local name=$1; shift
    "$@" >"$work/$name.log" 2>&1 || { tail -30 "$work/$name.log" >&2; log "$name failed"; exit 1; }
}

# The toolchain. -O2, no debug info, no _FORTIFY_SOURCE (the binary must
# reference no __*_chk, which musl lacks), no PIC requirement.
export CFLAGS="-O2 -g0"
export CPPFLAGS="-U_FORTIFY_SOURCE"
export AR=${cross}ar RANLIB=${cross}ranlib
build=$(gcc -dumpmachine)

if [ "$musl" = 1 ]; then
    # musl 1.2.3, static only, with its gcc wrapper (REALGCC baked in);
    # the Linux UAPI headers of the build machine's linux-libc-dev (or its
    # arm64 cross package) are copied in, since musl-gcc's specs drop
    # /usr/include and libseccomp (and bsh) need linux/*.h and asm/*.h.
    stamp=$out/.built-musl-1.2.3-1
    if [ ! -f "$stamp" ]; then
        unpack musl_1.2.3.orig.tar.gz musl_1.2.3-1.debian.tar.xz musl-1.2.3
        log "building musl 1.2.3 into $out/musl"
        rm -rf "$out/musl"
        run musl-configure ./configure --prefix="$out/musl" --disable-shared --enable-wrapper=gcc \
            CROSS_COMPILE="$cross" CC="${cross}gcc" CFLAGS="-O2 -g0"
        run musl-make make -j"$jobs" WRAPCC_GCC="${cross}gcc"
        run musl-install make install WRAPCC_GCC="${cross}gcc"
        if [ -n "$cross" ]; then
            uapi=/usr/${cross%-}/include asm=$uapi/asm
        else
            uapi=/usr/include asm=/usr/include/$build/asm
        fi
        for d in linux asm-generic mtd; do
            [ -d "$uapi/$d" ] && cp -a "$uapi/$d" "$out/musl/include/"
        done
        cp -a "$asm" "$out/musl/include/asm"
        cd "$top"
        touch "$stamp"
    fi
    export CC="$out/musl/bin/musl-gcc"
    # configure's test programs link statically: there is no libc.so.
    export LDFLAGS="-static"
else
    export CC="${cross}gcc"
    export LDFLAGS=""
fi
host=$target
# --build as well, so configure never runs a test program, even for
# x86_64-linux-musl on x86_64.
conf=(--host="$host" --build="$build" --prefix="$out" --enable-static --disable-shared)

pcfix() { # make each .pc relocatable: prefix from the file's own place
    sed -i -e 's|^prefix=.*|prefix=${pcfiledir}/../..|' \
        -e 's|^exec_prefix=.*|exec_prefix=${prefix}|' \
        -e 's|^libdir=.*|libdir=${prefix}/lib|' \
        -e 's|^includedir=.*|includedir=${prefix}/include|' "$@"
}

build_seccomp() {
    unpack libseccomp_2.5.4.orig.tar.gz libseccomp_2.5.4-1+deb12u1.debian.tar.xz libseccomp-2.5.4
    run seccomp-configure ./configure "${conf[@]}" --disable-python
    run seccomp-make make -j"$jobs" -C src libseccomp.la
    run seccomp-install sh -c 'make -C src install-libLTLIBRARIES &&
        make -C include install && make install-pkgconfDATA'
}

build_jansson() {
    # Debian's orig tarball is a git snapshot: configure.ac but no
    # configure (Debian runs dh_autoreconf). Its CMake build needs no
    # autotools and runs no test program (cross-safe).
    unpack jansson_2.14.orig.tar.gz jansson_2.14-2.debian.tar.xz jansson-2.14
    run jansson-configure cmake -S . -B b -G Ninja -DCMAKE_SYSTEM_NAME=Linux \
        -DCMAKE_SYSTEM_PROCESSOR="${target%%-*}" -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_AR="$(command -v "$AR")" -DCMAKE_RANLIB="$(command -v "$RANLIB")" \
        -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$CPPFLAGS $CFLAGS" \
        -DCMAKE_INSTALL_PREFIX="$out" -DJANSSON_BUILD_SHARED_LIBS=OFF \
        -DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON
    run jansson-make cmake --build b -j"$jobs"
    run jansson-install cmake --install b
    rm -rf "$out/lib/cmake/jansson"
    rmdir "$out/lib/cmake" 2>/dev/null || true
}

build_vterm() {
    # A plain Makefile around libtool: compiled here directly instead.
    unpack libvterm_0.1.4.orig.tar.gz libvterm_0.1.4-1.debian.tar.xz libvterm-0.1.4
    ls src/*.c | xargs -P"$jobs" -I{} sh -c \
        '$CC $CPPFLAGS $CFLAGS -std=c99 -Iinclude -c -o "${1%.c}.o" "$1"' _ {} ||
        { log "libvterm failed"; exit 1; }
    $AR rc libvterm.a src/*.o
    $RANLIB libvterm.a
    mkdir -p "$out/lib/pkgconfig" "$out/include"
    install -m644 libvterm.a "$out/lib/"
    install -m644 include/*.h "$out/include/"
    sed -e "s,@PREFIX@,$out," -e "s,@LIBDIR@,$out/lib," -e "s,@VERSION@,0.1.4," \
        vterm.pc.in >"$out/lib/pkgconfig/vterm.pc"
}

build_mhd() {
    # As scripts/static_deps.sh configures it: no HTTPS.
    unpack libmicrohttpd_0.9.75.orig.tar.xz libmicrohttpd_0.9.75-6.debian.tar.xz libmicrohttpd-0.9.75
    run mhd-configure ./configure "${conf[@]}" \
        --disable-https --without-gnutls --disable-curl --disable-doc --disable-examples \
        --disable-tools --disable-dauth --disable-bauth --disable-postprocessor
    run mhd-make make -j"$jobs" -C src/microhttpd
    run mhd-install sh -c 'make -C src/microhttpd install && make -C src/include install'
    mkdir -p "$out/lib/pkgconfig"
    cp libmicrohttpd.pc "$out/lib/pkgconfig/"
}

build_pcre2() {
    unpack pcre2_10.42.orig.tar.gz pcre2_10.42-1.diff.gz pcre2-10.42
    run pcre2-configure ./configure "${conf[@]}" --enable-pcre2-8 --disable-pcre2-16 \
        --disable-pcre2-32 --disable-jit --disable-pcre2grep-jit --disable-pcre2grep-libz \
        --disable-pcre2grep-libbz2 --disable-pcre2test-libedit --disable-pcre2test-libreadline
    run pcre2-make make -j"$jobs" libpcre2-8.la
    run pcre2-install sh -c 'make install-libLTLIBRARIES lib_LTLIBRARIES=libpcre2-8.la &&
        make install-nodist_includeHEADERS && mkdir -p "$0/lib/pkgconfig" &&
        cp libpcre2-8.pc "$0/lib/pkgconfig/"' "$out"
}

libs="seccomp:2.5.4-1+deb12u1 jansson:2.14-2 vterm:0.1.4-1 mhd:0.9.75-6 pcre2:10.42-1"
for l in $libs; do
    name=${l%%:*} stamp=$out/.built-$l
    [ -f "$stamp" ] && continue
    log "building $name ${l#*:}"
    (build_"$name")
    touch "$stamp"
done
rm -f "$out"/lib/*.la
pcfix "$out"/lib/pkgconfig/*.pc
log "done: $out"
