#!/usr/bin/env bash
# Type-checks the Swift code in the project's Markdown guides against the built modules.
#
# Convention (what every guide follows): all ```swift blocks of one Markdown file, taken in
# order, form ONE Swift file with top-level code allowed (like a main.swift). Later blocks may
# use names declared in earlier blocks of the same file; names must not be declared twice.
# Nothing is added in front of it: the first block imports what the code needs (Foundation,
# FoundationNetworking behind `#if canImport(FoundationNetworking)`, Promises, Courier), so a
# reader who copies the code gets the imports too.
# Blocks fenced with any other language (```text, ```sh, ```console) are not compiled.
#
# Usage: scripts/check-docs.sh [file.md ...]     (default: README.md and Docs/*.md)
# Needs a debug build of the package first (`swift build`); set COURIER_MODULES_DIR to use
# another directory of .swiftmodule files.
set -euo pipefail

cd "$(dirname "$0")/.."

modules_dir="${COURIER_MODULES_DIR:-$(swift build --show-bin-path)/Modules}"
if [[ ! -d "$modules_dir" ]]; then
    echo "check-docs: no modules in $modules_dir; run 'swift build' first" >&2
    exit 2
fi

if [[ $# -gt 0 ]]; then
    files=("$@")
else
    files=(README.md Docs/*.md)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

failed=0
checked=0
for doc in "${files[@]}"; do
    [[ -f "$doc" ]] || continue
    name="$(basename "$doc" .md)"
    out="$work/$name/main.swift"
    mkdir -p "$work/$name"
    {
        # Copy the body of every ```swift fence; a `// file:line` marker before each block
        # lets a compiler error be traced back to the Markdown line.
        awk -v doc="$doc" '
            /^```swift[[:space:]]*$/ { inside = 1; printf "// %s:%d\n", doc, NR + 1; next }
            /^```/ && inside { inside = 0; next }
            inside { print }
        ' "$doc"
    } > "$out"
    if ! grep -q -v -e '^// ' "$out"; then
        continue   # no Swift code in this file
    fi
    checked=$((checked + 1))
    if swiftc -typecheck -swift-version 6 -warnings-as-errors -I "$modules_dir" "$out" 2> "$work/$name/errors.txt"; then
        echo "ok      $doc"
    else
        failed=$((failed + 1))
        echo "FAILED  $doc  (the Swift file: $out)"
        # Map compiler line numbers back to the Markdown file.
        awk -v file="$out" '
            BEGIN { while ((getline line < file) > 0) { n++; if (line ~ /^\/\/ .*\.md:[0-9]+$/) { split(substr(line, 4), p, ":"); md = p[1]; base = p[2]; start = n } ; map_md[n] = md; map_line[n] = (start ? base + n - start - 1 : 0) } }
            { if (match($0, /main\.swift:[0-9]+:/)) { ln = substr($0, RSTART + 11, RLENGTH - 12) + 0; if (map_md[ln] != "") { print map_md[ln] ":" map_line[ln] ": " $0; next } } print }
        ' "$work/$name/errors.txt" | head -40
        trap - EXIT   # keep the work directory for inspection
    fi
done

echo "check-docs: $checked file(s) checked, $failed failed"
[[ $failed -eq 0 ]]
