#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (address sanitizer on) and runs each for a bounded time over
# a scratch copy of the committed seed corpus, so Fuzz/Corpus is never polluted.
#
# Targets:  FuzzResponse  one response through classification, metadata, JSON, decoding,
#                         descriptions, retry delays and redaction (fast: ~500-1500 inputs/s)
#           FuzzClient    one response served by a stubbed NetworkClient through the whole
#                         pipeline; every request must settle within 10 s (~250 inputs/s)
#           FuzzRequest   hostile caller values (path, query items, form fields) through
#                         makeURLRequest (fast: ~1500 inputs/s)
#
#   scripts/fuzz.sh                               # every target, 60 s each
#   FUZZ_SECONDS=600 FUZZ_TARGET=FuzzResponse scripts/fuzz.sh
#   FUZZ_JOBS=2 scripts/fuzz.sh                   # parallel fuzzing processes per target (default 1)
#   FUZZ_TARGET=FuzzClient scripts/fuzz.sh Fuzz/Findings/FuzzClient-crash-...   # replay one input
#
# Exit status: 0 when no target found anything, 1 when libFuzzer reported a crash, timeout or
# out-of-memory (the input is copied to Fuzz/Findings/, which git ignores), 2 when the build failed.
#
# Leak detection is off (-detect_leaks=0 and ASAN_OPTIONS=detect_leaks=0). LeakSanitizer cannot follow Swift's tagged pointers:
# a `Data` of 15 bytes or more keeps its storage reference inside an enum payload with tag bits
# set, so LSan reports it as leaked while it is still held. Six lines reproduce it: a live
# global object holding a 26-byte `Data`, built with -sanitize=address, "leaks" 91 bytes at exit
# (65 + 26, the storage object and its bytes). FuzzClient hit exactly that on the fuzz input's
# body, held by the stub until the next input. Courier's lifetimes are checked by the weak-
# reference tests instead (LeakTests, Tests/CourierTests/Reliability).
# Needs the swift.org toolchain on Linux (Xcode's toolchain has no libFuzzer).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ="$ROOT/Fuzz"
SECONDS_BUDGET="${FUZZ_SECONDS:-60}"
JOBS="${FUZZ_JOBS:-1}"
RSS_LIMIT_MB="${FUZZ_RSS_LIMIT_MB:-2048}"
TARGET="${FUZZ_TARGET:-all}"
BIN_DIR="$FUZZ/.build/debug"
# No leak check at exit either (see "Leak detection is off" above).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

case "$TARGET" in
    all) TARGETS=(FuzzResponse FuzzClient FuzzRequest) ;;
    FuzzResponse|FuzzClient|FuzzRequest) TARGETS=("$TARGET") ;;
    *) echo "fuzz: unknown FUZZ_TARGET '$TARGET' (FuzzResponse, FuzzClient, FuzzRequest or all)"; exit 2 ;;
esac

echo "fuzz: building ${TARGETS[*]} (debug, -sanitize=fuzzer,address)…"
BUILD_LOG="$(mktemp "${TMPDIR:-/tmp}/courier-fuzz-build.XXXXXX")"
if ! swift build --package-path "$FUZZ" -c debug \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$BUILD_LOG" 2>&1; then
    grep -v "Cannot export local symbol" "$BUILD_LOG" | tail -40
    rm -f "$BUILD_LOG"
    echo "fuzz: BUILD FAILED"
    exit 2
fi
rm -f "$BUILD_LOG"

if [[ $# -gt 0 ]]; then
    if [[ "$TARGET" == "all" ]]; then
        echo "fuzz: set FUZZ_TARGET to the target that found the input (its file name starts with it)"
        exit 2
    fi
    exec "$BIN_DIR/$TARGET" -rss_limit_mb="$RSS_LIMIT_MB" "$@"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/courier-fuzz.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
FAILED=0

for name in "${TARGETS[@]}"; do
    mkdir -p "$WORK/$name/artifacts"
    SEEDS="$FUZZ/Corpus/seeds"
    DICT=(-dict="$FUZZ/courier.dict")
    if [[ "$name" == "FuzzRequest" ]]; then SEEDS="$FUZZ/Corpus/request-seeds"; DICT=(); fi
    cp -R "$SEEDS" "$WORK/$name/corpus"
    LOG="$WORK/$name/fuzz.log"
    PARALLEL=()
    if [[ "$JOBS" -gt 1 ]]; then PARALLEL=(-jobs="$JOBS" -workers="$JOBS"); fi
    echo "fuzz: $name for ${SECONDS_BUDGET}s over $(ls "$WORK/$name/corpus" | wc -l) seeds (jobs: $JOBS)…"
    START=$(date +%s)
    # Run inside the work directory: with -jobs, libFuzzer writes fuzz-<n>.log to the current directory.
    (cd "$WORK/$name" && "$BIN_DIR/$name" "$WORK/$name/corpus" \
        -max_total_time="$SECONDS_BUDGET" -rss_limit_mb="$RSS_LIMIT_MB" -max_len=32768 -timeout=30 -detect_leaks=0 \
        "${DICT[@]}" -artifact_prefix="$WORK/$name/artifacts/$name-" \
        -print_final_stats=1 "${PARALLEL[@]}" >"$LOG" 2>&1)
    STATUS=$?
    ELAPSED=$(( $(date +%s) - START ))
    for worker_log in "$WORK/$name"/fuzz-*.log; do
        [[ -f "$worker_log" ]] && cat "$worker_log" >>"$LOG"
    done

    RUNS=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$LOG" | awk '{s += $2} END {print s + 0}')
    COVERAGE=$(grep -Eo 'cov: [0-9]+' "$LOG" | tail -1 | awk '{print $2}')
    CORPUS=$(ls "$WORK/$name/corpus" | wc -l)
    FINDINGS=$(ls "$WORK/$name/artifacts" | wc -l)

    if [[ $FINDINGS -gt 0 || $STATUS -ne 0 ]]; then
        FAILED=1
        mkdir -p "$FUZZ/Findings"
        cp "$WORK/$name/artifacts/"* "$FUZZ/Findings/" 2>/dev/null || true
        grep -E "invariant broken|ERROR: |SUMMARY: |Fatal error" "$LOG" | head -20
        echo "fuzz: $name FAILED after ${ELAPSED}s — ${RUNS} inputs, coverage ${COVERAGE:-?}, ${FINDINGS} finding(s) copied to Fuzz/Findings/ (exit $STATUS)"
        echo "fuzz: replay one with: FUZZ_TARGET=$name scripts/fuzz.sh Fuzz/Findings/<file>"
    else
        echo "fuzz: $name OK — ${RUNS} inputs in ${ELAPSED}s, coverage ${COVERAGE:-?} edges, corpus ${CORPUS} inputs, 0 crashes"
    fi
done
exit $FAILED
