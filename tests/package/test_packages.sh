#!/usr/bin/env bash
# Every package as its users take it. Runs `scripts/package.sh all`, then:
# the static binary alone in a bare root, the .deb (dpkg), the OCI image
# (its exported root), the npm tarballs (npx and the MCP SDK client), the
# wheel (pip into a fresh venv, pytest, mypy), server.json against the
# registry's schema, one version everywhere; and package.sh's refusals
# (an unknown target, a missing tool, a dirty tree, a failure half-way),
# none of which may leave anything in dist/. Needs root (chroot, dpkg).
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. "$top/tests/package/checks.sh"
section() { echo "--- $*"; }

if [ "$(id -u)" != 0 ]; then
    echo "test_packages.sh: skipped: it needs root (chroot of a bare root, dpkg -i)"
    exit 77
fi

dist_listing() { (cd "$top/dist" 2>/dev/null && ls -A | sort | tr '\n' ' '); }

section "package.sh refuses bad input and leaves dist/ as it was"
before=$(dist_listing)
out=$(scripts/package.sh tarball 2>&1)
rc=$?
[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ $out == *"unknown target 'tarball'"* ]] &&
    pass "an unknown target: exit $rc, '$out'" || fail "an unknown target: exit $rc, '$out'"
nonpm=$(mktemp -d)
for tool in bash git sed cat dirname mktemp rm mkdir cmake ninja gcc strip aarch64-linux-gnu-gcc \
    aarch64-linux-gnu-strip node; do ln -s "$(command -v $tool)" "$nonpm/"; done
out=$(PATH=$nonpm BSH_ALLOW_DIRTY=1 scripts/package.sh npm 2>&1)
rc=$?
[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ $out == *"needs npm, which is missing"* ]] &&
    pass "a missing tool: exit $rc, '$out'" || fail "a missing tool: exit $rc, '$out'"
rm -rf "$nonpm"
clone=$(mktemp -d)
git clone -q "$top" "$clone/bsh" && echo change >>"$clone/bsh/README.md"
# the clone builds with the fetched dependencies (the grammar) of this tree
mkdir -p "$clone/bsh/build/third_party" && cp -r "$top/build/third_party/npm" "$top/build/third_party/mhd" \
    "$clone/bsh/build/third_party/"
out=$("$clone/bsh/scripts/package.sh" deb 2>&1)
rc=$?
left=$(ls -A "$clone/bsh/dist" 2>/dev/null)
[ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ $out == *"uncommitted changes"* ]] && [ -z "$left" ] &&
    pass "a dirty tree: exit $rc, '$out'" || fail "a dirty tree: exit $rc, '$out', dist: $left"
# A failure half-way (strip fails once the build is done): nothing of the
# target stays in dist/, no staging folder either.
mkdir "$clone/badbin" && printf '#!/bin/sh\nexit 1\n' >"$clone/badbin/strip" && chmod +x "$clone/badbin/strip"
git -C "$clone/bsh" checkout -q README.md
out=$(cd "$clone/bsh" && PATH=$clone/badbin:$PATH scripts/package.sh deb npm 2>&1)
rc=$?
[ $rc != 0 ] && [ -z "$(ls -A "$clone/bsh/dist" 2>/dev/null)" ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
    [[ $out == "package.sh: deb: "*strip*failed* ]] &&
    pass "a failure half-way leaves dist/ empty: exit $rc, '$out'" ||
    fail "a failure half-way: exit $rc, '$out', dist holds: $(ls -A "$clone/bsh/dist" 2>&1)"
rm -rf "$clone"
[ "$(dist_listing)" = "$before" ] || fail "dist/ changed under the refusals"

section "scripts/package.sh all"
rm -rf dist
if scripts/package.sh all; then pass "package.sh all: $(dist_listing)"; else
    fail "package.sh all"
    exit 1
fi

section "one version everywhere"
version=$(sed -n 's/^project(bsh VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)
versions="cmake=$version"
versions+=" static=$(build/static/cli/bsh --version | cut -d' ' -f2)"
versions+=" deb=$(dpkg-deb -f dist/bsh-engine_*.deb Version)"
versions+=" npm-binary=$(tar -xOzf dist/bsh-mcp-linux-x64-[0-9]*.tgz package/bin/bsh >"$top/build/npm-bsh" && chmod +x "$top/build/npm-bsh" && "$top/build/npm-bsh" --version | cut -d' ' -f2)"
versions+=" wheel-binary=$(unzip -p dist/*manylinux_2_17_x86_64*.whl bsh/_bin/bsh >"$top/build/wheel-bsh" && chmod +x "$top/build/wheel-bsh" && "$top/build/wheel-bsh" --version | cut -d' ' -f2)"
versions+=" npm=$(tar -xOzf dist/bsh-mcp-[0-9]*.tgz package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0)).version')"
versions+=" npm-platform=$(tar -xOzf dist/bsh-mcp-linux-x64-[0-9]*.tgz package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0)).version')"
versions+=" wheel=$(unzip -p dist/*manylinux_2_17_x86_64*.whl '*.dist-info/METADATA' | sed -n 's/^Version: //p')"
for p in linux-x64 linux-x64-musl; do
    versions+=" $p=$(dist/bsh-"$version"-$p --version | cut -d' ' -f2)"
done
for p in linux-arm64 linux-arm64-musl; do # through qemu-user
    versions+=" $p=$(qemu-aarch64-static dist/bsh-"$version"-$p --version | cut -d' ' -f2)"
done
versions+=" server.json=$(python3 -c 'import json; print(json.load(open("dist/server.json"))["version"])')"
for arch in amd64 arm64; do # the label of each image under the archive's index
    versions+=" oci-$arch=$(python3 - dist/bsh-*-oci.tar "$arch" <<'PY'
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    blob = lambda d: json.loads(t.extractfile("blobs/sha256/" + d.split(":")[1]).read())
    index = blob(json.loads(t.extractfile("index.json").read())["manifests"][0]["digest"])
    image = [m for m in index["manifests"] if m["platform"]["architecture"] == sys.argv[2]][0]
    print(blob(blob(image["digest"])["config"]["digest"])["config"]["Labels"]["org.opencontainers.image.version"])
PY
)"
done
echo "$versions"
rm -f build/npm-bsh build/wheel-bsh
[ "$(echo "$versions" | tr ' ' '\n' | cut -d= -f2 | sort -u)" = "$version" ] &&
    pass "every package carries $version" || fail "versions differ: $versions"

section "the four static binaries, the same in every package"
(cd dist && sha256sum -c --quiet bsh-*-SHA256SUMS) && pass "SHA256SUMS" || fail "SHA256SUMS"
for p in linux-x64 linux-arm64 linux-x64-musl linux-arm64-musl; do
    want=$(sha256sum <"dist/bsh-$version-$p")
    arch=x86-64
    [[ $p == linux-arm64* ]] && arch=aarch64
    tag=manylinux_2_17_${arch/x86-64/x86_64}
    [[ $p == *-musl ]] && tag=musllinux_1_2_${arch/x86-64/x86_64}
    npm_bin=$(tar -xOzf "dist/bsh-mcp-$p-$version.tgz" package/bin/bsh | sha256sum)
    wheel_bin=$(unzip -p dist/*-"$tag"*.whl bsh/_bin/bsh | sha256sum)
    [[ $(file -b "dist/bsh-$version-$p") == *"$arch"*"statically linked"* ]] && [ "$npm_bin" = "$want" ] &&
        [ "$wheel_bin" = "$want" ] && pass "$p: static $arch, the npm package and the $tag wheel carry it" ||
        fail "$p: file says '$(file -b "dist/bsh-$version-$p")', npm and wheel binaries the same: $([ "$npm_bin" = "$want" ] && echo yes || echo no) $([ "$wheel_bin" = "$want" ] && echo yes || echo no)"
done
section "the static binary in a bare root"
bash tests/package/bare_root.sh build/static/cli/bsh || fail "bare root"
section ".deb"
bash tests/package/test_deb.sh dist/bsh-engine_*.deb || fail ".deb"
section "OCI image"
bash tests/package/test_oci.sh dist/bsh-*-oci.tar || fail "OCI image"
section "npm"
bash tests/package/test_npm.sh dist || fail "npm"
section "wheel"
bash tests/package/test_wheel.sh dist || fail "wheel"
section "server.json"
python3 tests/package/validate_server_json.py packaging/server.schema.json dist/server.json ||
    fail "server.json"
bad=$(mktemp)
python3 -c 'import json,sys; d=json.load(open("dist/server.json")); d["description"]="x"*101; d["packages"][0]["version"]="9.9.9"; json.dump(d,open(sys.argv[1],"w"))' "$bad"
python3 tests/package/validate_server_json.py packaging/server.schema.json "$bad" >/dev/null &&
    fail "a broken server.json passed the check" || pass "a broken server.json fails the check"
rm -f "$bad"

finish
