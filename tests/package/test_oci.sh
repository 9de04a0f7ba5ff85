#!/usr/bin/env bash
# The OCI image as its users take it: loaded with podman, its config
# checked (entry point `bsh mcp`, the OCI labels), its root filesystem
# exported and the smoke run in it with chroot; then `podman run` with an
# MCP call, where this machine's container runtime allows it (the test
# says which it did). Needs root.
# The archive is one index over an amd64 and an arm64 image: podman takes
# this machine's; the arm64 one's root is unpacked and checked for an
# arm64 bsh, bash and busybox, all static.
# Usage: tests/package/test_oci.sh DIST/bsh-VERSION-oci.tar
set -uo pipefail
archive=${1:?usage: test_oci.sh BSH-OCI.tar}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.sh"

work=$(mktemp -d /tmp/bsh-oci-test.XXXXXX)
chmod 755 "$work"
image= container=
cleanup() {
    [ -n "$container" ] && podman rm -f "$container" >/dev/null 2>&1
    [ -n "$image" ] && podman rmi -f "$image" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

python3 - "$archive" "$work/arm64" <<'PY' && pass "one index over amd64 and arm64; arm64's root unpacked" ||
import io, json, os, sys, tarfile
archive, out = sys.argv[1], sys.argv[2]
with tarfile.open(archive) as t:
    blob = lambda d: t.extractfile("blobs/sha256/" + d.split(":")[1]).read()
    top = json.loads(t.extractfile("index.json").read())["manifests"]
    assert len(top) == 1 and top[0]["mediaType"].endswith("image.index.v1+json"), top
    images = {m["platform"]["architecture"]: m for m in json.loads(blob(top[0]["digest"]))["manifests"]}
    assert sorted(images) == ["amd64", "arm64"], sorted(images)
    manifest = json.loads(blob(images["arm64"]["digest"]))
    assert json.loads(blob(manifest["config"]["digest"]))["architecture"] == "arm64"
    os.makedirs(out)
    for layer in manifest["layers"]:
        with tarfile.open(fileobj=io.BytesIO(blob(layer["digest"]))) as lt:
            lt.extractall(out, filter="tar") if hasattr(tarfile, "data_filter") else lt.extractall(out)
PY
    fail "the index: not one over amd64 and arm64"
for f in bsh bash busybox; do
    case $(file -b "$work/arm64/bin/$f" 2>&1) in
    *aarch64*"statically linked"*) pass "the arm64 image's /bin/$f: static, aarch64" ;;
    *) fail "the arm64 image's /bin/$f: $(file -b "$work/arm64/bin/$f" 2>&1)" ;;
    esac
done
out=$(qemu-aarch64-static "$work/arm64/bin/bsh" --version 2>&1)
[[ $out == "bsh "* ]] && pass "the arm64 image's bsh runs (qemu-user): $out" || fail "the arm64 bsh: $out"
grep -q 'busybox-static .*(arm64; source package busybox' "$work/arm64/usr/share/doc/SOURCES" &&
    pass "the arm64 image says where its GPL programs' sources are" || fail "no arm64 SOURCES note"

image=$(podman load -q -i "$archive" 2>&1 | sed -n 's/^Loaded image: //p' | tail -1)
[ -n "$image" ] || { echo "FAIL: podman load of $archive" >&2; exit 1; }
pass "podman load: $image"
config=$(podman image inspect --format '{{json .Config}}' "$image")
python3 - "$config" <<'PY' && pass "entry point, user and labels" || fail "image config: $config"
import json, sys
c = json.loads(sys.argv[1])
assert c["Entrypoint"] == ["/bin/bsh", "mcp"], c["Entrypoint"]
labels = c.get("Labels") or {}
for key in ("title", "description", "version", "licenses", "revision", "created"):
    assert labels.get("org.opencontainers.image." + key), key
assert labels.get("io.modelcontextprotocol.server.name"), "mcp name"
PY

container=$(podman create "$image")
mkdir "$work/root"
podman export "$container" | tar -x -C "$work/root" || fail "podman export"
echo "the image holds: $(cd "$work/root" && find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')"
modes=$(stat -c '%n %a %u' "$work/root/tmp" "$work/root/work" | sed "s|$work/root||")
[ "$modes" = "/tmp 1777 0
/work 755 65534" ] && pass "/tmp is 1777 root's, /work 755 the run user's" || fail "modes: $modes"
bash "$here/smoke_root.sh" "$work/root" /bin/bsh || fail "the smoke in the image's root"
out=$(env -i PATH=/bin "$(command -v chroot)" "$work/root" /bin/bash -c 'cd /work && ls / | tr "\n" " " && echo | sha256sum')
grep -q 'busybox-static .*(source package busybox' "$work/root/usr/share/doc/SOURCES" &&
    pass "the image says where its GPL programs' sources are" || fail "no SOURCES note in the image"
case $out in *bin*tmp*work*' -'*) pass "busybox's commands run in the image" ;;
*) fail "busybox's commands: $out" ;; esac

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo in-the-container"}}}'
out=$( { echo "$init"; sleep 1; echo "$call"; sleep 3; } | timeout 60 podman run --rm -i "$image" 2>&1)
case $out in
*'"id":2'*in-the-container*) pass "podman run: an MCP tools/call answered in the container" ;;
*"setrlimit"*"Operation not permitted"* | *"unshare"*"Operation not permitted"* | *"newuidmap"*)
    echo "note: podman run is not possible on this machine, so only the chroot of the exported root was tested: $(echo "$out" | head -1)" ;;
*) fail "podman run: $out" ;;
esac
finish
