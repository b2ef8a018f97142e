#!/usr/bin/env bash
# Fails when a public (or open) declaration of the Courier or Promises module has no `///` doc
# comment of its own, and lists every such declaration with its file and line.
#
# How: the symbol graphs of the modules are extracted from the already-built .swiftmodule files
# (swift-symbolgraph-extract, no rebuild and no extra compiler flags), and every public symbol
# whose `docComment` is missing, empty, or only inherited from another module (e.g. a
# `description` that shows the standard library's text) is reported. Symbols the compiler
# synthesises (memberwise Equatable, Codable witnesses, protocol-extension members) have no
# source location in our tree and are not reported.
#
# Limits: only code compiled for this platform is seen (a declaration inside `#if os(macOS)` is
# not checked on Linux).
#
# Usage: scripts/check-public-docs.sh [Module ...]     (default: Courier Promises)
# Needs a debug build first (`swift build`); COURIER_MODULES_DIR overrides where the modules are.
set -euo pipefail

cd "$(dirname "$0")/.."

modules=("$@")
if [[ ${#modules[@]} -eq 0 ]]; then
    modules=(Courier Promises)
fi

bin_path="$(swift build --show-bin-path)"
modules_dir="${COURIER_MODULES_DIR:-$bin_path/Modules}"
if [[ ! -d "$modules_dir" ]]; then
    echo "check-public-docs: no modules in $modules_dir; run 'swift build' first" >&2
    exit 2
fi
triple="$(basename "$(dirname "$bin_path")")"
sdk_flags=()
if [[ "$(uname)" == "Darwin" ]]; then
    sdk_flags=(-sdk "$(xcrun --sdk macosx --show-sdk-path)")
    triple="$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for module in "${modules[@]}"; do
    if [[ ! -e "$modules_dir/$module.swiftmodule" ]]; then
        echo "check-public-docs: $modules_dir/$module.swiftmodule is missing; run 'swift build' first" >&2
        exit 2
    fi
    mkdir -p "$work/$module"
    swift-symbolgraph-extract \
        -module-name "$module" \
        -I "$modules_dir" \
        -target "$triple" \
        ${sdk_flags[@]+"${sdk_flags[@]}"} \
        -minimum-access-level public \
        -skip-synthesized-members \
        -skip-inherited-docs \
        -output-dir "$work/$module"
done

python3 - "$PWD" "$work" "${modules[@]}" <<'PY'
import glob
import json
import os
import sys

root, work, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
missing = []
checked = 0
for module in modules:
    for graph_file in sorted(glob.glob(os.path.join(work, module, "*.symbols.json"))):
        with open(graph_file, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            location = symbol.get("location")
            if not location:
                continue  # synthesised by the compiler: nothing to document in our sources
            path = location.get("uri", "")
            if path.startswith("file://"):
                path = path[len("file://"):]
            path = os.path.relpath(path, root)
            if path.startswith(".."):
                continue  # declared outside this package
            checked += 1
            doc = symbol.get("docComment") or {}
            text = "".join(line.get("text", "") for line in doc.get("lines", [])).strip()
            inherited = doc.get("module") not in (None, module)
            if text and not inherited:
                continue
            line = location.get("position", {}).get("line", 0) + 1
            kind = symbol.get("kind", {}).get("displayName", "symbol").lower()
            name = ".".join(symbol.get("pathComponents", []))
            missing.append((path, line, kind, name))

for path, line, kind, name in sorted(set(missing)):
    print(f"{path}:{line}: undocumented public {kind} {name}")
if missing:
    print(f"check-public-docs: {len(set(missing))} of {checked} public declarations lack a /// doc comment",
          file=sys.stderr)
    sys.exit(1)
print(f"check-public-docs: all {checked} public declarations in {', '.join(modules)} are documented")
PY
