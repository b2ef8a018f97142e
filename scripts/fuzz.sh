#!/usr/bin/env bash
# Builds the libFuzzer target in Fuzz/ (address sanitizer on) and runs it for a bounded time over a
# scratch copy of the committed seed corpus, so Fuzz/Corpus is never polluted.
#
#   scripts/fuzz.sh                    # 60 s
#   FUZZ_SECONDS=600 scripts/fuzz.sh   # longer
#   FUZZ_JOBS=2 scripts/fuzz.sh        # parallel fuzzing processes (default 1)
#   scripts/fuzz.sh path/to/crash-...  # replay one input (e.g. a finding) and exit
#
# Exit status: 0 when no crash was found, 1 when libFuzzer reported one (the input is copied to
# Fuzz/Findings/, which git ignores), 2 when the build failed.
# Needs the swift.org toolchain on Linux (Xcode's toolchain has no libFuzzer).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ="$ROOT/Fuzz"
SECONDS_BUDGET="${FUZZ_SECONDS:-60}"
JOBS="${FUZZ_JOBS:-1}"
BINARY="$FUZZ/.build/debug/FuzzResponse"
RSS_LIMIT_MB="${FUZZ_RSS_LIMIT_MB:-2048}"
BUILD_LOG="$(mktemp "${TMPDIR:-/tmp}/courier-fuzz-build.XXXXXX")"

echo "fuzz: building FuzzResponse (debug, -sanitize=fuzzer,address)…"
if ! swift build --package-path "$FUZZ" -c debug --product FuzzResponse \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$BUILD_LOG" 2>&1; then
    grep -v "Cannot export local symbol" "$BUILD_LOG" | tail -40
    echo "fuzz: BUILD FAILED"
    exit 2
fi

if [[ $# -gt 0 ]]; then
    rm -f "$BUILD_LOG"
    exec "$BINARY" -rss_limit_mb="$RSS_LIMIT_MB" "$@"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/courier-fuzz.XXXXXX")"
trap 'rm -rf "$WORK" "$BUILD_LOG"' EXIT
cp -R "$FUZZ/Corpus/seeds" "$WORK/corpus"
mkdir -p "$WORK/artifacts"
LOG="$WORK/fuzz.log"

echo "fuzz: running for ${SECONDS_BUDGET}s over $(ls "$WORK/corpus" | wc -l) seeds (jobs: $JOBS)…"
PARALLEL=()
if [[ "$JOBS" -gt 1 ]]; then PARALLEL=(-jobs="$JOBS" -workers="$JOBS"); fi
START=$(date +%s)
# Run inside $WORK: with -jobs, libFuzzer writes each worker's fuzz-<n>.log to the current directory.
(cd "$WORK" && "$BINARY" "$WORK/corpus" \
    -max_total_time="$SECONDS_BUDGET" -rss_limit_mb="$RSS_LIMIT_MB" -max_len=32768 -timeout=10 \
    -dict="$FUZZ/courier.dict" -artifact_prefix="$WORK/artifacts/" \
    -print_final_stats=1 "${PARALLEL[@]}" >"$LOG" 2>&1)
STATUS=$?
ELAPSED=$(( $(date +%s) - START ))
for worker_log in "$WORK"/fuzz-*.log; do
    [[ -f "$worker_log" ]] && cat "$worker_log" >>"$LOG"
done

RUNS=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$LOG" | awk '{s += $2} END {print s + 0}')
COVERAGE=$(grep -Eo 'cov: [0-9]+' "$LOG" | tail -1 | awk '{print $2}')
CORPUS=$(ls "$WORK/corpus" | wc -l)
CRASHES=$(ls "$WORK/artifacts" | wc -l)

if [[ $CRASHES -gt 0 || $STATUS -ne 0 ]]; then
    mkdir -p "$FUZZ/Findings"
    cp "$WORK/artifacts/"* "$FUZZ/Findings/" 2>/dev/null || true
    grep -E "invariant broken|ERROR: |SUMMARY: |Fatal error" "$LOG" | head -20
    echo "fuzz: FAILED after ${ELAPSED}s — ${RUNS} inputs, coverage ${COVERAGE:-?}, ${CRASHES} finding(s) copied to Fuzz/Findings/ (exit $STATUS)"
    echo "fuzz: replay one with: scripts/fuzz.sh Fuzz/Findings/<file>"
    exit 1
fi
echo "fuzz: OK — ${RUNS} inputs in ${ELAPSED}s, coverage ${COVERAGE:-?} edges, corpus ${CORPUS} inputs, 0 crashes"
