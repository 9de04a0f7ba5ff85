#!/usr/bin/env bash
# Runs the floor and bsh in pairs, alternating which goes first, over
# workloads W1-W8 in one invocation, and prints the medians and the
# median of the paired ratios bsh/floor as a Markdown table.
# Usage: bench/run.sh [BUILD_DIR] [ROUNDS]   (default build/release, 21)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/release}
ROUNDS=${2:-21}
if [ ! -x "$B/bench/bsh-bench" ] || [ ! -f "$B/bench/libbsh-syscount.so" ]; then
    scripts/deps.sh build
    cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBSH_TESTS=OFF >/dev/null
    cmake --build "$B" >/dev/null
fi
BSH=$B/bench/bsh-bench
FLOOR=$B/bench/bsh-floor

SYSCOUNT=$PWD/$B/bench/libbsh-syscount.so

field() { # field KEY <<< "report": the value of KEY=
    tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# paired GETTER ROUNDS ARGS...: runs `GETTER PROGRAM ARGS...` for the floor
# and for bsh ROUNDS times, in pairs whose order swaps every round (the
# VM's drift would otherwise favour one side). Sets FLOOR_V and BSH_V to
# the medians, and RATIO to the median of the per-round ratios bsh/floor.
paired() {
    local get=$1 rounds=$2
    shift 2
    local f=() b=() r=() fv bv i
    for i in $(seq "$rounds"); do
        if [ $((i % 2)) -eq 1 ]; then
            fv=$("$get" "$FLOOR" "$@")
            bv=$("$get" "$BSH" "$@")
        else
            bv=$("$get" "$BSH" "$@")
            fv=$("$get" "$FLOOR" "$@")
        fi
        f+=("$fv")
        b+=("$bv")
        r+=("$(awk -v a="$bv" -v b="$fv" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')")
    done
    FLOOR_V=$(printf '%s\n' "${f[@]}" | median)
    BSH_V=$(printf '%s\n' "${b[@]}" | median)
    RATIO=$(printf '%s\n' "${r[@]}" | median)
}
report_key() { # report_key PROGRAM ARGS...: the value of $KEY in its report
    "$@" | field "$KEY"
}
per_read() { # per_read PROGRAM ARGS...: syscalls per data read (syscount.c)
    LD_PRELOAD=$SYSCOUNT "$@" 2>&1 >/dev/null | field per_read
}
measure() { # measure KEY ROUNDS ARGS...: paired medians of one report field
    KEY=$1
    shift
    paired report_key "$@"
}
syscalls() { # syscalls ROUNDS ARGS...: paired syscalls per data read
    paired per_read "$@"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
row() { printf '| %s | %s | %s | %s | %s |\n' "$@"; }

echo "| workload | floor | bsh | bsh/floor | target |"
echo "|---|---|---|---|---|"

measure mean_ms "$ROUNDS" --repeat 200 true
W1_FLOOR=$FLOOR_V
row "W1 spawn \`true\` x200, mean ms/run" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.05"
W1_BSH=$BSH_V
measure cpu_ms "$ROUNDS" --repeat 200 true
row "W1 parent CPU for 200 spawns, ms" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.10"
# Containment: the rows above use the default, a cgroup per run where one
# can be made (as root here). The same with the session only, and with the
# end report asked for (its /proc scans and cgroup reads).
measure mean_ms "$ROUNDS" --containment session --repeat 200 true
row "W1, session only (no cgroup), mean ms/run" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"
measure cpu_ms "$ROUNDS" --containment session --repeat 200 true
row "W1, session only (no cgroup), parent CPU ms" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"
measure mean_ms "$ROUNDS" --containment cgroup --repeat 200 true
row "W1, a cgroup per run, mean ms/run" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.15"
measure cpu_ms "$ROUNDS" --containment cgroup --repeat 200 true
row "W1, a cgroup per run, parent CPU ms" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"
measure mean_ms "$ROUNDS" --containment cgroup --report --repeat 200 true
row "W1, a cgroup per run and the end report, mean ms/run" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"

# The sandbox (Landlock ruleset, seccomp filter, no new privileges, made
# per run): against the floor, and against bsh without it in pairs.
measure mean_ms "$ROUNDS" --sandbox --repeat 200 true
row "W1 with --sandbox, mean ms/run" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"
bsh_sandboxed() { "$BSH_PLAIN" --sandbox "$@"; }
BSH_PLAIN=$BSH FLOOR_SAVED=$FLOOR
FLOOR=$BSH BSH=bsh_sandboxed
measure mean_ms "$ROUNDS" --repeat 200 true
row "W1 bsh --sandbox vs bsh, mean ms/run" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"
BSH=$BSH_PLAIN FLOOR=$FLOOR_SAVED
# The same pairing run by run (--pair-sandbox: a plain run and a
# sandboxed one side by side, 300 times), to the status and to the end of
# the clean-up; the median of three.
pairs=()
for i in 1 2 3; do pairs+=("$("$BSH" --pair-sandbox --repeat 300 true)"); done
pair_median() { printf '%s\n' "${pairs[@]}" | while read -r l; do field "$1" <<<"$l"; done | median; }
row "W1 bsh --sandbox vs bsh run by run, ms to the status" "$(pair_median plain_status_ms)" \
    "$(pair_median sandbox_status_ms)" "$(pair_median ratio_status)" "<= 1.3"
row "W1 bsh --sandbox vs bsh run by run, ms to the clean-up's end" "$(pair_median plain_cycle_ms)" \
    "$(pair_median sandbox_cycle_ms)" "$(pair_median ratio_cycle)" "(context)"

# Pipe throughput on 2 cores swings by +-30% from run to run with the
# scheduler's placement of reader and writer: more rounds, and CPU time too.
measure total_ms 9 'head -c 1000000000 /dev/zero'
F_MBS=$(awk -v t="$FLOOR_V" 'BEGIN { printf "%.0f", 1000 / t * 1000 }')
B_MBS=$(awk -v t="$BSH_V" 'BEGIN { printf "%.0f", 1000 / t * 1000 }')
row "W2 1 GB stdout, MB/s" "$F_MBS" "$B_MBS" "$(awk -v r="$RATIO" 'BEGIN { printf "%.3f", 1 / r }')" ">= 0.95"
measure cpu_ms 9 'head -c 1000000000 /dev/zero'
row "W2 1 GB stdout, reader CPU ms" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"

measure total_ms 3 'for i in $(seq 1 100000); do echo out$i; echo err$i >&2; done'
row "W3 100k lines out+err, ms" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.05"
syscalls "$ROUNDS" --parallel 2 'for i in $(seq 1 20000); do echo out$i; echo err$i >&2; done'
row "W3' 2 x 20k lines out+err through the pollable fds: syscalls per data read" "$FLOOR_V" "$BSH_V" "$RATIO" "bsh <= 1.7"
syscalls "$ROUNDS" --parallel 2 'head -c 50000000 /dev/zero'
row "W2' 2 x 50 MB through the pollable fds: syscalls per data read" "$FLOOR_V" "$BSH_V" "$RATIO" "bsh <= 1.7"
syscalls "$ROUNDS" --pollfds --parallel 2 'for i in $(seq 1 20000); do echo out$i; echo err$i >&2; done'
row "W3' the same through the streams' own fds (bsh_stream_pollfds)" "$FLOOR_V" "$BSH_V" "$RATIO" "bsh <= 1.7"

measure last_ms 11 --timeout 50 'sleep 10'
F_LATE=$(awk -v t="$FLOOR_V" 'BEGIN { printf "%.3f", t - 50 }')
B_LATE=$(awk -v t="$BSH_V" 'BEGIN { printf "%.3f", t - 50 }')
row "W4 \`sleep 10\`, 50 ms deadline: final item late by ms" "$F_LATE" "$B_LATE" "-" "bsh <= 1 ms"

measure total_ms 3 --parallel 200 'sleep 0.2'
row "W5 200 x \`sleep 0.2\` parallel, wall ms" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.05"
measure cpu_ms "$ROUNDS" --parallel 200 'sleep 0.2'
row "W5 parent CPU, ms" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.15"
measure cpu_ms "$ROUNDS" --pollfds --parallel 200 'sleep 0.2'
row "W5 parent CPU through the streams' own fds, ms" "$FLOOR_V" "$BSH_V" "$RATIO" "<= 1.15"
measure cpu_ms "$ROUNDS" --pollfds --containment session --parallel 200 'sleep 0.2'
row "W5 parent CPU, own fds, session only (no cgroup), ms" "$FLOOR_V" "$BSH_V" "$RATIO" "(context)"
measure rss_kb 3 --parallel 200 'sleep 0.2'
row "W5 peak RSS KiB" "$FLOOR_V" "$BSH_V" "+$((BSH_V - FLOOR_V)) KiB" "<= +2048 KiB"
measure total_ms 1 --parallel 1000 'sleep 0.2'
row "W5 1000 x \`sleep 0.2\` parallel, wall ms" "$FLOOR_V" "$BSH_V" "$(ratio "$BSH_V" "$FLOOR_V")" "works"

measure mean_ms "$ROUNDS" --pty --repeat 200 true
row "W6 PTY spawn \`true\` x200, mean ms/run" "$FLOOR_V" "$BSH_V" "$(ratio "$BSH_V" "$W1_BSH") vs bsh piped" "<= 1.10 x piped"
measure total_ms 3 --pty 'head -c 200000000 /dev/zero'
F_MBS=$(awk -v t="$FLOOR_V" 'BEGIN { printf "%.0f", 200 / t * 1000 }')
B_MBS=$(awk -v t="$BSH_V" 'BEGIN { printf "%.0f", 200 / t * 1000 }')
row "W6 PTY 200 MB stdout, MB/s" "$F_MBS" "$B_MBS" "$(awk -v r="$RATIO" 'BEGIN { printf "%.3f", 1 / r }')" ">= 0.90"

measure mean_ms "$ROUNDS" --touch-mb 1024 --repeat 200 true
row "1 GiB touched parent: spawn \`true\`, mean ms/run" "$FLOOR_V" "$BSH_V" "$(ratio "$BSH_V" "$W1_BSH") vs small bsh" "~1.0"

G=$("$B/bench/bsh-guard-bench")
NS=$(echo "$G" | head -1 | field ns_per_check)
SPAWN_NS=$(awk -v m="$W1_BSH" 'BEGIN { printf "%.0f", m * 1e6 }')
row "W7 guard check of a typical command, ns" "-" "$NS" "$(awk -v a="$NS" -v b="$SPAWN_NS" 'BEGIN { printf "%.3f%% of W1", a / b * 100 }')" "< 1 %"
W=$(echo "$G" | tail -1)
row "W7 crafted 128 KiB, worst of 20 shapes, ms" "-" "$(echo "$W" | field worst_128k_ms)" "128k/16k = $(echo "$W" | field worst_ratio_128k_16k)" "< 20 ms, <= 10x"
P=$("$B/bench/bsh-policy-bench" tests/policy/dev.rules tests/data)
TYP=$(echo "$P" | grep '^typical')
row "W8 policy: parse and decide a 95-byte command, p50 / p99 us" "-" \
    "$(echo "$TYP" | sed -E 's/.*decide p50=([0-9.]+) us p99=([0-9.]+) us.*/\1 \/ \2/')" "-" "<= 50 (p50)"
row "W8 policy: the corpus, MB/s (guards beside it)" "-" \
    "$(echo "$P" | grep '^corpus' | sed -E 's/.*policy ([0-9.]+) MB\/s, guards ([0-9.]+) MB\/s.*/\1 (\2)/')" "-" ">= 3"
row "W8 bsh_run true with a policy / without, paired" "-" \
    "$(echo "$P" | grep '^bsh_run' | sed -E 's/.*paired ratio ([0-9.]+).*/\1/')" "-" "<= 1.05"
echo
echo "W7 detail (bsh-guard-bench):"
echo '```'
echo "$G"
echo '```'
echo
echo "W8 detail (bsh-policy-bench):"
echo '```'
echo "$P"
echo '```'
