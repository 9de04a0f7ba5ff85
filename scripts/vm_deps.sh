#!/usr/bin/env bash
# Fetches what the arm64 virtual machine of tests/cross/ boots: Debian's
# arm64 cloud kernels (bookworm's 6.1, and bookworm-backports' newer one,
# which has Landlock ABI >= 6), the arm64 busybox-static and bash-static
# the initramfs is made of (and the arm64 OCI image), and armhf's and
# i386's busybox-static, 32-bit programs the sandbox must stop. It takes the versions Debian's
# signed indexes name today (the archive keeps only current kernels), with
# a private apt state, so neither this machine's apt sources nor its dpkg
# architectures change; apt checks every file against the signed index.
# Into build/third_party/arm64-vm/NAME/ (unpacked) and a VERSIONS file
# (a line each: NAME PACKAGE VERSION SOURCE SOURCE-VERSION).
# Idempotent: a finished fetch is kept for a day.
# Usage: scripts/vm_deps.sh   (scripts/deps.sh test runs it)
set -euo pipefail
cd "$(dirname "$0")/.."

top=$PWD/build/third_party/arm64-vm
apt_dir=$top/apt
mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
stamp=$top/.fetched
[ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ] && exit 0

apt_opts=(-o "Dir::State=$apt_dir/state" -o "Dir::State::status=/dev/null"
    -o "Dir::Cache=$apt_dir/cache" -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=/dev/null" -o "APT::Architecture=arm64"
    -o "APT::Architectures::=arm64" -o "APT::Architectures::=armhf" -o "APT::Architectures::=i386"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)")

update() {
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial"
    printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$mirror" bookworm \
        "$keyring" "$mirror" bookworm-backports >"$apt_dir/sources.list"
    apt-get "${apt_opts[@]}" -qq update
}

kernel_of() { # SUITE: the kernel package linux-image-cloud-arm64 of SUITE depends on
    apt-cache "${apt_opts[@]}" show "linux-image-cloud-arm64/$1" |
        sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p' | head -1
}

fetch() { # NAME PACKAGE[/SUITE]: downloads and unpacks into $top/NAME
    local name=$1 pkg=$2 deb
    rm -rf "$top/$name" "$top/debs" && mkdir -p "$top/$name" "$top/debs"
    (cd "$top/debs" && apt-get "${apt_opts[@]}" -qq download "$pkg")
    deb=$(ls "$top/debs"/*.deb)
    dpkg-deb -x "$deb" "$top/$name"
    case $name in linux-*) rm -rf "$top/$name/lib" "$top/$name/usr" ;; esac # the boot/ image alone
    local version source source_version
    version=$(dpkg-deb -f "$deb" Version)
    source=$(dpkg-deb -f "$deb" Source) # "NAME", "NAME (VERSION)" for a binNMU, or none
    source_version=$(sed -n 's/.*(\(.*\))/\1/p' <<<"$source")
    source=${source%% *}
    # NAME PACKAGE VERSION SOURCE SOURCE-VERSION
    echo "$name $(dpkg-deb -f "$deb" Package) $version ${source:-$(dpkg-deb -f "$deb" Package)}" \
        "${source_version:-$version}" >>"$top/VERSIONS.new"
    rm -rf "$top/debs"
}

mkdir -p "$top"
rm -f "$top/VERSIONS.new"
update
old=$(kernel_of bookworm)
new=$(kernel_of bookworm-backports)
[ -n "$old" ] && [ -n "$new" ] || { echo "vm_deps: no arm64 cloud kernel in the index" >&2; exit 1; }
echo "vm_deps: fetching $old, $new, busybox-static and bash-static (arm64)" >&2
fetch linux-old "$old/bookworm"
fetch linux-new "$new/bookworm-backports"
fetch busybox busybox-static/bookworm
fetch bash bash-static/bookworm
# 32-bit programs, which the sandbox must stop: arm32 in the VM, i386 here
fetch busybox-armhf busybox-static:armhf/bookworm
fetch busybox-i386 busybox-static:i386/bookworm
mv "$top/VERSIONS.new" "$top/VERSIONS"
touch "$stamp"
