#!/usr/bin/env python3
"""A differential oracle for the policy's parser, against bash itself.

For every command of the corpus (tests/data/*.tsv and the decision table),
bash runs it for real, with `bsh run --sandbox` in a private temporary
directory, under a BASH_ENV that empties PATH and logs, through
command_not_found_handle, the name of every program bash tried to run.
Every name bash tried must be a command word the parser found (at any
nesting: bash -c, eval, wrappers...), unless the parser called the line
opaque. A miss is a bypass. Lines a guard rejects never run, and are left
out. Prints TAP. Usage: oracle.py PATH/TO/bsh"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
bsh = sys.argv[1]
count = failed = skipped = 0


def check(cond, what, detail=""):
    global count, failed
    count += 1
    print(("ok" if cond else "not ok") + f" {count} - {what}")
    if not cond:
        failed += 1
        for line in detail.splitlines():
            print(f"#   {line}")


def corpus():
    lines = []
    for name in ("benign.tsv", "dangerous.tsv", "escape_techniques.tsv"):
        with open(os.path.join(DATA, name), encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line and not line.startswith("#") and "\t" in line:
                    lines.append(line.split("\t", 1)[1])
    with open(os.path.join(HERE, "decisions.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                cmd = line.split("\t")[0]
                lines.append(cmd.replace("<NL>", "\n").replace("<TAB>", "\t").replace("<CR>", "\r"))
    return lines


def found_names(verdict):
    names = set()
    for c in verdict["commands"]:
        if c["words"] and not c["dynamic"][0] and c["words"][0] != ">":
            names.add(c["words"][0])
            names.add(os.path.basename(c["words"][0]))
    return names


def tried_names(cmd, work):
    """What bash tried to run, by name, with PATH empty."""
    env_file = os.path.join(work, "oracle.env")
    log = os.path.join(work, "tried.log")
    empty = os.path.join(work, "empty-path")
    os.makedirs(empty, exist_ok=True)
    with open(env_file, "w") as f:
        f.write(f"PATH={empty}\n"
                "command_not_found_handle() { printf '%s\\n' \"$1\" >> " + log + "; return 127; }\n"
                "export -f command_not_found_handle 2>/dev/null\n")
    p = subprocess.run([bsh, "run", "--sandbox", "-C", work, "-t", "3000", "-l", "pids=64",
                        "-e", f"BASH_ENV={env_file}", "--", cmd],
                       capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    if p.returncode == 126 and p.stderr.startswith(b"bsh: "):
        return None  # a guard: never runs
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            return {line.rstrip("\n") for line in f if line.strip()}
    except FileNotFoundError:
        return set()


def main():
    global skipped
    empty_policy = os.path.join(tempfile.mkdtemp(prefix="bsh-oracle-"), "empty.rules")
    open(empty_policy, "w").close()
    for cmd in corpus():
        p = subprocess.run([bsh, "policy", "explain", "--json", "--policy", empty_policy, "--", cmd],
                           capture_output=True, text=True, timeout=30)
        try:
            v = json.loads(p.stdout.splitlines()[0])
        except (ValueError, IndexError):
            check(False, f"explain {cmd!r}", p.stdout + p.stderr)
            continue
        if v["guard"] is not None or any(c["reason"] for c in v["commands"]):
            skipped += 1
            continue
        with tempfile.TemporaryDirectory(prefix="bsh-oracle-") as work:
            tried = tried_names(cmd, work)
        if tried is None:
            skipped += 1
            continue
        missed = sorted(n for n in tried if n not in found_names(v))
        check(not missed, f"bash ran nothing the parser missed: {cmd!r}",
              f"missed {missed}; found {sorted(found_names(v))}")
    print(f"1..{count}")
    print(f"# {skipped} lines left out (a guard, or the parser called them opaque)")
    if failed:
        print(f"# failed {failed} of {count}")
    return 1 if failed else 0


sys.exit(main())
