#!/usr/bin/env bash
# The command policy through the CLI, exact bytes and exit statuses: where
# policies come from (--policy, BSH_POLICY, the user's files and their
# ownership, the project's file and trust), bad files, bsh check and bsh
# run with --json, policy explain --file/--each-line, policy check's
# output and warnings, a session's aliases and functions honoured through
# --session (and a refused run leaving the session file as it was), the
# read-only profile as this user and as nobody, and nothing started by a
# refused run (no process, no cgroup).
# Usage: cli_policy.sh PATH/TO/bsh
set -uo pipefail
BSH=${1:?usage: cli_policy.sh PATH/TO/bsh}
. "$(dirname "$0")/../cli/tap.sh"
DEV=$(cd "$(dirname "$0")" && pwd)/dev.rules
cd "$T"

# ---- rule files and where they come from ----
printf 'prefix_rule(pattern = ["ls"], decision = "allow")\nprefix_rule(pattern = ["rm"], decision = "forbidden", justification = "no")\n' >base.rules
expect "policy check: rules and examples counted" 0 "$T/base.rules: 2 rules, 0 examples\n" "" -- \
    policy check "$T/base.rules"
printf 'prefix_rule(pattern = ["x"])\nnetwork_rule(host = "h", protocol = "https", decision = "allow")\n' >warn.rules
expect "policy check: warnings for no decision and network_rule, still 0" 0 \
    "$T/warn.rules: 1 rules, 0 examples\n" \
    "bsh: policy: $T/warn.rules:1:1: warning: prefix_rule without decision: it allows (codex's default); write decision = \"allow\"\nbsh: policy: $T/warn.rules:2:1: warning: network_rule ignored: bsh does not apply network rules\n" -- \
    policy check "$T/warn.rules"
printf 'prefix_rule(pattern = ["x"], decision = "maybe")\n' >bad.rules
expect "policy check: a bad file, exit 2 and FILE:LINE:COL" 2 "" \
    "bsh: policy: $T/bad.rules:1:41: decision must be \"allow\", \"prompt\" or \"forbidden\", not \"maybe\"\n" -- \
    policy check "$T/bad.rules"
expect "check with a bad file: 2" 2 "" \
    "bsh: policy: $T/bad.rules:1:41: decision must be \"allow\", \"prompt\" or \"forbidden\", not \"maybe\"\n" -- \
    check --policy "$T/bad.rules" ls
expect "run with a bad file: 125, nothing run" 125 "" \
    "bsh: policy: $T/bad.rules:1:41: decision must be \"allow\", \"prompt\" or \"forbidden\", not \"maybe\"\n" -- \
    run --policy "$T/bad.rules" "touch $T/ran"
[ ! -e "$T/ran" ]
ok $? "a bad policy file ran nothing"
expect "a missing file" 125 "" "bsh: policy: $T/none.rules: cannot read: No such file or directory\n" -- \
    run --policy "$T/none.rules" true

expect "check: allow, exit 0, nothing printed" 0 "" "" -- check --policy "$T/base.rules" 'ls -l'
expect "check: deny, exit 1, the message on stdout" 1 "policy: denied: rm x ($T/base.rules:2: no)\n" "" -- \
    check --policy "$T/base.rules" 'ls; rm x'
expect "check: ask, exit 3" 3 "policy: approval needed: cat x (default)\n" "" -- \
    check --policy "$T/base.rules" 'cat x'
expect "check --json: ask" 3 \
    "{\"allowed\":false,\"decision\":\"ask\",\"error\":\"policy: approval needed: cat x (default)\",\"stage\":\"policy\"}\n" "" -- \
    check --json --policy "$T/base.rules" 'cat x'
expect "check --json: allow" 0 "{\"allowed\":true,\"decision\":\"allow\"}\n" "" -- \
    check --json --policy "$T/base.rules" 'ls'
expect "check --json: a guard, stage guard" 1 \
    "{\"allowed\":false,\"decision\":\"deny\",\"error\":\"absolute command not allowed, use relative path\",\"stage\":\"guard\"}\n" "" -- \
    check --json --policy "$T/base.rules" '/bin/ls'
expect "check without a policy: unchanged" 0 "{\"allowed\":true}\n" "" -- check --json 'cat x'
expect "--policy-default deny" 1 "policy: denied: cat x (default)\n" "" -- \
    check --policy "$T/base.rules" --policy-default deny 'cat x'
expect "opaque under deny: deny, with its reason" 1 "policy: denied: \$X (opaque: command word is not static)\n" "" -- \
    check --policy "$T/base.rules" --policy-default deny '$X'
BSH_POLICY="$T/base.rules:$T/warn.rules" "$BSH" check 'x y' >out 2>err
ok $? "BSH_POLICY: a :-list of files (x allowed by warn.rules)"
BSH_POLICY="$T/base.rules" "$BSH" check --no-policy 'cat x' >out 2>&1
ok $? "--no-policy: the guards alone"
BSH_POLICY_DEFAULT=maybe "$BSH" check --policy "$T/base.rules" ls >out 2>&1
[ $? -eq 125 ] && grep -q "invalid BSH_POLICY_DEFAULT 'maybe'" out
ok $? "a bad BSH_POLICY_DEFAULT is a usage error"

# the user's own files count only when they are the user's, not writable by others
mkdir -p xdg/bsh/rules
cp base.rules xdg/bsh/policy.rules
printf 'prefix_rule(pattern = ["cat"], decision = "allow")\n' >xdg/bsh/rules/b.rules
chmod 600 xdg/bsh/policy.rules xdg/bsh/rules/b.rules
XDG_CONFIG_HOME=$T/xdg "$BSH" check 'cat x; ls'
ok $? "the user's files: policy.rules and rules/*.rules"
chmod 666 xdg/bsh/rules/b.rules
XDG_CONFIG_HOME=$T/xdg "$BSH" check 'ls' >out 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(cat out)" = "bsh: policy: $T/xdg/bsh/rules/b.rules: writable by group or others: refused" ]
ok $? "a user file others may write is refused (2): $(cat out)"
XDG_CONFIG_HOME=$T/xdg "$BSH" run true >out 2>&1
ok $(($? == 125 ? 0 : 1)) "and bsh run exits 125"
chmod 600 xdg/bsh/rules/b.rules
chmod 777 xdg/bsh/rules
XDG_CONFIG_HOME=$T/xdg "$BSH" check 'ls' >out 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(cat out)" = "bsh: policy: $T/xdg/bsh/rules/b.rules: its directory is another user's or writable by group or others: refused" ]
ok $? "a user file in a directory others may write is refused (2): $(cat out)"
chmod 700 xdg/bsh/rules
BSH_POLICY=: XDG_CONFIG_HOME=$T/xdg "$BSH" check 'cat x; ls'
ok $? "BSH_POLICY with no file in it counts as unset: the user's files apply"
printf 'prefix_rule(pattern = ["rm\\x00"], decision = "forbidden")\n' >nul.rules
"$BSH" policy check nul.rules >out 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(cat out)" = "bsh: policy: nul.rules:1:27: invalid escape '\\x' in string" ]
ok $? "a NUL escape in a string is refused: $(cat out)"

# the project's file: tightens, never loosens, unless trusted
mkdir -p proj/.git proj/sub/.bsh proj/.bsh
printf 'prefix_rule(pattern = ["cat"], decision = "allow")\nprefix_rule(pattern = ["ls"], decision = "forbidden")\n' >proj/.bsh/policy.rules
(cd proj/sub && "$BSH" check --policy "$T/base.rules" --project-policy 'cat x') >out 2>err
rc=$?
[ $rc -eq 3 ] && [ "$(cat err)" = "bsh: policy: $T/proj/.bsh/policy.rules:1:1: allow rule ignored in an untrusted project file" ]
ok $? "--project-policy: found up to .git; its allow rules ignored, with the warning"
(cd proj/sub && "$BSH" check --policy "$T/base.rules" --project-policy 'ls') >out 2>&1
ok $(($? == 1 ? 0 : 1)) "its forbidden rules apply"
(cd proj/sub && "$BSH" check --policy "$T/base.rules" --trust-project-policy 'cat x') >out 2>&1
ok $? "--trust-project-policy: its allow rules apply"

# ---- bsh run: refusals start nothing ----
expect "run: deny, 126, the message" 126 "" "bsh: policy: denied: rm x ($T/base.rules:2: no)\n" -- \
    run --policy "$T/base.rules" "touch $T/made; rm x"
[ ! -e "$T/made" ]
ok $? "nothing ran (not even the allowed touch)"
expect "run --json: the one line" 126 \
    "{\"error\":\"policy: denied: rm x ($T/base.rules:2: no)\",\"stage\":\"policy\",\"decision\":\"deny\"}\n" "" -- \
    run --json --policy "$T/base.rules" "rm x"
expect "run: ask without a terminal" 126 "" "bsh: policy: approval needed: cat x (default)\n" -- \
    run --policy "$T/base.rules" "cat x"
expect "run --ask allow" 0 "hi\n" "" -- run --policy "$T/base.rules" --ask allow "echo hi | cat"
expect "run --ask allow: deny still refuses" 126 "" "bsh: policy: denied: rm x ($T/base.rules:2: no)\n" -- \
    run --policy "$T/base.rules" --ask allow "rm x"
# the cgroups this bsh would make are named bsh-PID-N (counting every
# bsh cgroup raced with tests running beside this one)
"$BSH" run --containment cgroup --policy "$T/base.rules" 'sleep 5; rm x' >/dev/null 2>&1 &
refused=$!
wait "$refused"
left=$(ls /sys/fs/cgroup/unified 2>/dev/null | grep -c "^bsh-$refused-" || true)
! pgrep -f 'sleep 5; rm x' >/dev/null && [ "$left" = 0 ]
ok $? "a refused run leaves no process and no cgroup"

# ---- explain ----
expect "explain: one line per command, then the decision" 1 \
    "allow\tls\t$T/base.rules:1\ndeny\tbash -c 'rm -rf x'\t$T/base.rules:2: no\ndeny\t[bash -c] rm -rf x\t$T/base.rules:2: no\ndecision: deny\n" "" -- \
    policy explain --policy "$T/base.rules" "ls; bash -c 'rm -rf x'"
printf 'ls\nrm x\ncat y\n' >batch.txt
"$BSH" policy explain --json --policy "$T/base.rules" --file batch.txt --each-line >out 2>err
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <out)" -eq 3 ] &&
    python3 -c 'import json,sys; d=[json.loads(l)["decision"] for l in open(sys.argv[1])]; sys.exit(d!=["allow","deny","ask"])' out
ok $? "explain --file --each-line --json: one object per line; the strictest status"
printf 'ls' | "$BSH" policy explain --policy "$T/base.rules" --file - >out 2>&1
ok $? "explain --file - reads stdin"

# ---- sessions: the policy sees the session's aliases and functions ----
S=$T/s.session
"$BSH" run --session "$S" "alias gs='git status'; st() { ls; }" >/dev/null 2>&1
printf 'prefix_rule(pattern = ["git", "status"], decision = "allow")\nprefix_rule(pattern = ["ls"], decision = "allow")\nprefix_rule(pattern = ["rm"], decision = "forbidden")\n' >s.rules
expect "--session: a session alias is decided by its value" 0 "" "" -- check --policy "$T/s.rules" --session "$S" gs
expect "--session: a session function by its body" 0 "" "" -- check --policy "$T/s.rules" --session "$S" st
expect "without the session they are unknown" 3 "policy: approval needed: gs (default)\n" "" -- \
    check --policy "$T/s.rules" gs
"$BSH" run --policy "$T/s.rules" --ask allow --session "$S" "ls() { rm -rf \"\$@\"; }" >out 2>&1
ok $(($? == 126 ? 0 : 1)) "defining a function whose body is denied is refused"
cp "$S" s.before
"$BSH" run --policy "$T/s.rules" --session "$S" "export A=1; rm x" >out 2>&1
rc=$?
cmp -s "$S" s.before
ok $(($? == 0 && rc == 126 ? 0 : 1)) "a refused run leaves the session file byte for byte"
"$BSH" run --policy "$T/s.rules" --session "$S" "st" >out 2>&1
ok $? "bsh run --session: the function is allowed by its body"

# ---- the read-only profile, as this user and as nobody ----
mkdir -p ro && chmod 777 ro && chmod 755 "$T" # nobody reaches ro
expect "--sandbox-readonly: the working directory is not writable" 0 "no\n" "" -- \
    run --sandbox-readonly -C "$T/ro" '{ echo x > f; } 2>/dev/null && echo yes || echo no'
expect "--sandbox-readonly: its own TMPDIR is" 0 "ok\n" "" -- \
    run --sandbox-readonly -C "$T/ro" 'echo ok > "$TMPDIR/f" && cat "$TMPDIR/f"'
expect "--sandbox-readonly: /tmp is not" 0 "no\n" "" -- \
    run --sandbox-readonly 'touch /tmp/bsh-ro-probe 2>/dev/null && echo yes || echo no'
expect "--sandbox-readonly with --sandbox-write: a usage error" 125 "" \
    "bsh: run: --sandbox-readonly makes nothing writable and has no network: it does not go with --sandbox-write, --sandbox-socket or --sandbox-net\n" -- \
    run --sandbox-readonly --sandbox-write "$T" true
"$BSH" run --sandbox-readonly --report --json true >out 2>&1
grep -q '"readonly":true}' out
ok $? "the report names the read-only profile"
"$BSH" run --policy "$DEV" --ask sandbox -C "$T/ro" 'git push 2>/dev/null; touch made; echo $?' >out 2>err
[ "$(head -1 err)" = "policy: ran read-only instead of asking: git push ($DEV:9: pushing publishes)" ] &&
    [ ! -e "$T/ro/made" ]
ok $? "--ask sandbox: said on stderr, and nothing written"
if [ "$(id -u)" -eq 0 ]; then
    as_nobody "$BSH" run --sandbox-readonly -C "$T/ro" '{ echo x > f; } 2>/dev/null && echo yes || echo no; echo ok > "$TMPDIR/g" && cat "$TMPDIR/g"' >out 2>&1
    [ "$(cat out)" = "$(printf 'no\nok')" ]
    ok $? "--sandbox-readonly as nobody: the same"
    as_nobody "$BSH" run --sandbox-readonly 'chmod 777 /tmp 2>/dev/null && echo yes || echo no; ln -s /etc/passwd "$TMPDIR/l" && { echo x >> "$TMPDIR/l"; } 2>/dev/null && echo wrote || echo refused' >out 2>&1
    [ "$(cat out)" = "$(printf 'no\nrefused')" ]
    ok $? "--sandbox-readonly as nobody: no chmod outside, no write through a link: $(tr '\n' ' ' <out)"
else
    skip "--sandbox-readonly as nobody" "not root"
    skip "--sandbox-readonly as nobody: chmod and links" "not root"
fi
"$BSH" run --sandbox-readonly 'chmod 777 /tmp 2>/dev/null && echo yes || echo no; ln -s /etc/hosts "$TMPDIR/l"; { echo x >> "$TMPDIR/l"; } 2>/dev/null && echo wrote || echo refused; (exec 3<>/etc/hostname) 2>/dev/null && echo opened || echo closed' >out 2>&1
[ "$(cat out)" = "$(printf 'no\nrefused\nclosed')" ]
ok $? "--sandbox-readonly as $(id -un): no chmod outside, no write through a link, no read-write open: $(tr '\n' ' ' <out)"

# a read-only run saves nothing to its session, so nothing it set reaches
# a later run; a relative target is taken from the run's directory (-C)
RS=$T/ro.session
"$BSH" run --policy "$DEV" --ask sandbox --session "$RS" 'export PATH=/nowhere:$PATH; git push 2>/dev/null; true' >out 2>err
"$BSH" run --session "$RS" 'echo "$PATH"' >out 2>&1
case "$(cat out)" in /nowhere:*) false ;; */bin*) true ;; *) false ;; esac
ok $? "--ask sandbox with --session: the read-only run's PATH is not kept: $(head -c 80 out)"
mkdir -p "$T/etc"
printf 'prefix_rule(pattern = [">", "%s/etc/hosts"], decision = "forbidden")\nprefix_rule(pattern = [">"], decision = "allow")\nprefix_rule(pattern = ["echo"], decision = "allow")\n' "$T" >"$T/w.rules"
"$BSH" run --policy "$T/w.rules" -C "$T/etc" 'echo x >> hosts' >out 2>&1
rc=$?
[ $rc -eq 126 ] && [ ! -e "$T/etc/hosts" ]
ok $? "run -C DIR: a relative target is DIR's file (exit $rc: $(head -1 out))"
(cd "$T/etc" && "$BSH" check --policy "$T/w.rules" 'echo x > sub/../hosts') >out 2>&1
[ $? -eq 1 ]
ok $? "check: a relative target is taken from here, .. folded: $(head -1 out)"

# a session file edited so that its restore runs a command: the policy
# sees it as a source of a file, never allowed
TS=$T/tampered.session
"$BSH" run --session "$TS" 'f() { echo hi; }' >/dev/null 2>&1
python3 - "$TS" "$T/pwned" <<'PY'
import re, sys
path, mark = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
m = re.search(rb'\nf 0 (\d+)\n', data)
start = m.end()
n = int(m.group(1))
text = data[start:start + n] + b'\ntouch ' + mark.encode() + b'\n'
data = data[:m.start()] + b'\nf 0 %d\n' % len(text) + text + data[start + n:]
open(path, 'wb').write(data)
PY
"$BSH" run --policy "$DEV" --ask refuse --session "$TS" 'ls' >out 2>&1
rc=$?
[ $rc -eq 126 ] && [ ! -e "$T/pwned" ] &&
    grep -q "opaque: source of a file" out
ok $? "a session whose restore runs a command: refused (exit $rc: $(head -1 out))"
"$BSH" run --session "$RS" 'g() { ls; }; alias ll="ls -l"' >/dev/null 2>&1
"$BSH" check --policy "$DEV" --session "$RS" 'g; ll' >out 2>&1
ok $? "a session that only defines functions: decided as before: $(head -1 out)"

# history expansion kept on in a session: a `!` in a later command is
# re-read by bash, so it is opaque
HS=$T/history.session
"$BSH" run --session "$HS" 'set -o history -o histexpand' >/dev/null 2>&1
"$BSH" check --policy "$DEV" --session "$HS" 'echo hi!' >out 2>&1
rc=$?
[ $rc -eq 3 ] && [ "$(cat out)" = "policy: approval needed: set -H (opaque: eval of a dynamic string)" ]
ok $? "a session with history expansion on: a ! is opaque (exit $rc: $(cat out))"
"$BSH" check --policy "$DEV" --session "$HS" 'echo hi' >out 2>&1
ok $? "and a command without one is decided as before"

# a session that sends a relative cd elsewhere (cdable_vars) or whose
# directory is gone: the places a write may go are taken as bash takes them
CS=$T/cdable.session
"$BSH" run --session "$CS" 'shopt -s cdable_vars; x=/etc' >/dev/null 2>&1
"$BSH" check --policy "$DEV" --session "$CS" 'cd x; echo hi > hosts' >out 2>&1
rc=$?
[ $rc -eq 3 ]
ok $? "a session with cdable_vars: a relative cd is not followed (exit $rc: $(cat out))"
GS=$T/gone.session
mkdir -p "$T/gone/d"
"$BSH" run -C /etc --session "$GS" true >/dev/null 2>&1
"$BSH" run --session "$GS" "cd $T/gone/d" >/dev/null 2>&1
rmdir "$T/gone/d"
"$BSH" check --policy "$DEV" --session "$GS" 'echo > hosts' >out 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(cat out)" = "policy: denied: '>' hosts ($DEV:24: system files)" ]
ok $? "a session whose directory is gone: the run starts in its base, and so does the policy (exit $rc: $(cat out))"

echo "1..$n"
[ $failed -eq 0 ]
