#!/usr/bin/env bash
# Instructions per unit of work, counted by valgrind's callgrind: repeatable whatever else the
# machine is doing, so it complements the wall-clock medians of `courier-bench promises`.
#
#   Benchmarks/Scripts/instructions.sh [workload ...]     (default: a1-courier a1-raw a1-nio a3-courier)
#
# Each workload runs twice under callgrind, with LOW and HIGH repetitions of `courier-bench profile`;
# the difference, divided by the extra units, cancels start-up and one-time costs. With TOP=n set,
# it also prints the n functions that grew most per unit. Needs valgrind and a release build.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
LOW="${LOW:-2}"
HIGH="${HIGH:-6}"
TOP="${TOP:-0}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

swift build -c release --package-path "$here" >/dev/null
# valgrind 3.19 cannot read the DWARF 5 that swiftc emits; function names stay in the symbol table.
strip --strip-debug -o "$work/courier-bench" "$here/.build/release/courier-bench"

workloads=("$@")
if [ "${#workloads[@]}" -eq 0 ]; then workloads=(a1-courier a1-raw a1-nio a3-courier); fi

for workload in "${workloads[@]}"; do
    for reps in "$LOW" "$HIGH"; do
        output="$("$work/courier-bench" profile "$workload" --repetitions "$reps")"
        units="$(echo "$output" | sed -n 's/.* runs of \([0-9]*\) units done/\1/p')"
        valgrind --tool=callgrind --callgrind-out-file="$work/$workload.$reps.out" \
            "$work/courier-bench" profile "$workload" --repetitions "$reps" >/dev/null 2>&1
        callgrind_annotate --threshold=100 "$work/$workload.$reps.out" 2>/dev/null > "$work/$workload.$reps.txt"
    done
    total() { sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$1" | tr -d ,; }
    low="$(total "$work/$workload.$LOW.txt")"
    high="$(total "$work/$workload.$HIGH.txt")"
    extra_units=$(( (HIGH - LOW) * units ))
    echo "$workload: $(( (high - low) / extra_units )) instructions per unit"
    if [ "$TOP" -gt 0 ]; then
        python3 - "$work/$workload.$LOW.txt" "$work/$workload.$HIGH.txt" "$extra_units" "$TOP" <<'PY'
import re, sys
def load(path):
    costs = {}
    for line in open(path):
        m = re.match(r'^\s*([\d,]+) \([^)]*\)\s+(.*?)\s*$', line)
        if m and 'PROGRAM TOTALS' not in line:
            costs[m.group(2)] = costs.get(m.group(2), 0) + int(m.group(1).replace(',', ''))
    return costs
low, high = load(sys.argv[1]), load(sys.argv[2])
units, top = int(sys.argv[3]), int(sys.argv[4])
growth = sorted(((high.get(k, 0) - low.get(k, 0)) / units, k) for k in set(low) | set(high))
for per_unit, name in reversed(growth[-top:]):
    print(f"  {per_unit:8.1f}  {name[:150]}")
PY
    fi
done
