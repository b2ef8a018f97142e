#!/usr/bin/env bash
# Lints Sources/ and Tests/ with the toolchain's swift-format and the repository's .swift-format.
#
# What fails:
#   - every finding of a swift-format *rule* the configuration enables (e.g. NeverForceUnwrap,
#     NeverUseForceTry, AllPublicDeclarationsHaveDocumentation, UseTripleSlashForDocumentationComments,
#     NoBlockComments, UseShorthandTypeNames, TypeNamesShouldBeCapitalized, ...);
#   - trailing whitespace;
#   - a file swift-format cannot parse.
# What is reported but does not fail (unless LINT_STRICT=1):
#   - the pretty-printer's layout findings (Indentation, AddLines, RemoveLine, Spacing, LineLength,
#     TrailingComma). The code base aligns continuation lines and trailing comments by hand, which
#     swift-format's printer cannot reproduce, and it is not reformatted wholesale. New code should
#     not add to the count; `LINT_VERBOSE=1` lists them.
#
# Rules switched off in .swift-format because the code base deliberately does otherwise
# (JSON has no comments, so the reasons live here):
#   AlwaysUseLowerCamelCase             tests are named test_givenX_whenY_thenZ
#   DoNotUseSemicolons                  short guard bodies such as `{ found = true; break }`
#   OrderedImports                      the FoundationNetworking import sits in an #if after Foundation
#   OneCasePerLine, OneVariableDeclarationPerLine
#                                       `case a, b` and `let (x, y)` groupings of closely related names
#   ReplaceForEachWithForLoop, OnlyOneTrailingClosureArgument, NoAccessLevelOnExtensionDeclaration
#                                       used on purpose in a few tests (private test-helper extensions)
# Rules switched on beyond swift-format's defaults because they are project rules:
#   NeverForceUnwrap, NeverUseForceTry, NeverUseImplicitlyUnwrappedOptionals (not in test files),
#   AllPublicDeclarationsHaveDocumentation, AlwaysUseLiteralForEmptyCollectionInit,
#   NoEmptyLinesOpeningClosingBraces.
#
# Usage: scripts/lint.sh [path ...]      (default: Sources Tests)
# Environment: LINT_STRICT=1  fail on layout findings too (swift format lint --strict)
#              LINT_VERBOSE=1 print every layout finding
set -euo pipefail

cd "$(dirname "$0")/.."

paths=("$@")
if [[ ${#paths[@]} -eq 0 ]]; then
    paths=(Sources Tests)
fi

if swift format --version >/dev/null 2>&1; then
    formatter=(swift format)
elif command -v swift-format >/dev/null 2>&1; then
    formatter=(swift-format)
else
    echo "lint: swift-format not found (it ships with Swift 6 toolchains as 'swift format')" >&2
    exit 2
fi

strict_flag=()
if [[ "${LINT_STRICT:-0}" == "1" ]]; then
    strict_flag=(--strict)
fi

output="$(mktemp)"
trap 'rm -f "$output"' EXIT

status=0
"${formatter[@]}" lint ${strict_flag[@]+"${strict_flag[@]}"} --configuration .swift-format --recursive --parallel "${paths[@]}" \
    > "$output" 2>&1 || status=$?

python3 - "$output" "$status" "${LINT_STRICT:-0}" "${LINT_VERBOSE:-0}" <<'PY'
import collections
import re
import sys

output_file, status, strict, verbose = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1"
layout = {"Indentation", "AddLines", "RemoveLine", "Spacing", "LineLength", "TrailingComma", "EndOfLineComment"}
finding = re.compile(r"^(?P<where>[^:\s][^:]*:\d+:\d+): (?P<severity>warning|error): \[(?P<rule>[A-Za-z]+)\] (?P<text>.*)$")

enforced, advisory, other = [], collections.Counter(), []
advisory_lines = []
with open(output_file, encoding="utf-8", errors="replace") as handle:
    lines = sorted(set(line.rstrip("\n") for line in handle if line.strip()))
for line in lines:
    match = finding.match(line)
    if not match:
        if ": note: " not in line:
            other.append(line)
        continue
    if match["rule"] in layout and not strict:
        advisory[match["rule"]] += 1
        advisory_lines.append(line)
    else:
        enforced.append(line)

for line in enforced + other:
    print(line)
if verbose:
    for line in advisory_lines:
        print(line)
if advisory:
    summary = ", ".join(f"{count} {rule}" for rule, count in sorted(advisory.items()))
    print(f"lint: layout findings (advisory, LINT_VERBOSE=1 lists them): {summary}")
if enforced or other or status != 0:
    print(f"lint: FAILED: {len(enforced)} rule findings, {len(other)} other messages (swift-format exit {status})",
          file=sys.stderr)
    sys.exit(1)
print("lint: ok (no rule findings)")
PY
