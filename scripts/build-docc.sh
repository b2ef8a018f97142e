#!/usr/bin/env bash
# Builds the DocC archives of the Promises and Courier modules with the toolchain's own `docc`
# (no package plugin, no dependency), and fails on any DocC warning: a broken ``Symbol`` link
# in a doc comment or in a catalog article, an unknown <doc:Article>, a malformed Topics group.
#
# Steps:
#   1. `swift build` (skipped with --no-build: CI passes it because its modules are already built,
#      and a plain `swift build` after the thread-sanitizer run would rebuild everything);
#   2. symbol graphs extracted from the built .swiftmodule files with swift-symbolgraph-extract
#      (the same compiler front end; no rebuild with extra flags, so the shared debug build is
#      left untouched), extension blocks included so that `DispatchQueue.promises` gets a page;
#   3. `docc convert --warnings-as-errors` per module, both with external link support.
#      Promises is built first and Courier's build gets it as a `--dependency`, so Courier's
#      comments can link to Promises symbols with an absolute link (leading slash):
#      ``/Promises/PromiseError/cancelled``. Without the slash the link is looked up inside
#      Courier and the build fails.
#
# Output: .build/docc/Promises.doccarchive and .build/docc/Courier.doccarchive (static-hosting
# layout; serve the folder with any web server, e.g. `python3 -m http.server -d .build/docc/Courier.doccarchive`).
#
# Usage: scripts/build-docc.sh [--no-build]
set -euo pipefail

cd "$(dirname "$0")/.."

find_tool() {
    local name="$1"
    if command -v "$name" >/dev/null 2>&1; then
        command -v "$name"
        return
    fi
    local swift_bin
    swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
    if [[ -x "$swift_bin/$name" ]]; then
        echo "$swift_bin/$name"
        return
    fi
    if [[ "$(uname)" == "Darwin" ]] && xcrun --find "$name" >/dev/null 2>&1; then
        xcrun --find "$name"
        return
    fi
    echo "build-docc: $name not found (it ships with the Swift toolchain)" >&2
    exit 2
}

docc="$(find_tool docc)"
extract="$(find_tool swift-symbolgraph-extract)"

build=1
for argument in "$@"; do
    case "$argument" in
        --no-build) build=0 ;;
        *) echo "usage: scripts/build-docc.sh [--no-build]" >&2; exit 2 ;;
    esac
done
if [[ $build == 1 ]]; then
    swift build --quiet
fi
bin_path="$(swift build --show-bin-path)"
modules_dir="$bin_path/Modules"
triple="$(basename "$(dirname "$bin_path")")"
if [[ ! -d "$modules_dir" ]]; then
    # Older SwiftPM layouts keep the modules next to the products.
    modules_dir="$bin_path"
fi
for module in Promises Courier; do
    if [[ ! -e "$modules_dir/$module.swiftmodule" ]]; then
        echo "build-docc: $modules_dir/$module.swiftmodule is missing; run 'swift build' first" >&2
        exit 2
    fi
done
sdk_flags=()
if [[ "$(uname)" == "Darwin" ]]; then
    sdk_flags=(-sdk "$(xcrun --sdk macosx --show-sdk-path)")
    triple="$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')"
fi

out=".build/docc"
graphs="$out/symbol-graphs"
rm -rf "$out"
mkdir -p "$graphs"

build_module() {
    local module="$1" catalog="$2"
    shift 2
    mkdir -p "$graphs/$module"
    "$extract" \
        -module-name "$module" \
        -I "$modules_dir" \
        -target "$triple" \
        ${sdk_flags[@]+"${sdk_flags[@]}"} \
        -minimum-access-level public \
        -skip-synthesized-members \
        -emit-extension-block-symbols \
        -output-dir "$graphs/$module"
    echo "==> docc convert $module"
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.courier.$module" \
        --output-path "$out/$module.doccarchive" \
        --warnings-as-errors \
        "$@"
}

build_module Promises Sources/Promises/Promises.docc --enable-experimental-external-link-support
build_module Courier Sources/Courier/Courier.docc --dependency "$out/Promises.doccarchive" \
    --enable-experimental-external-link-support

echo "build-docc: ok ($out/Promises.doccarchive, $out/Courier.doccarchive)"
