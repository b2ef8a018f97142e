#!/usr/bin/env bash
# Type-checks the Courier module as Apple's SDKs see it on the oldest systems the package
# supports (macOS 12, iOS 15, tvOS 15, watchOS 8), where `JSONDecoder` and `JSONEncoder` are
# not yet `Sendable` (Apple declares them so from macOS 13 / iOS 16 / tvOS 16 / watchOS 9).
#
# Linux's Foundation declares both `Sendable`, so the ordinary build cannot notice Courier
# storing one in a `Sendable` type or capturing one in a `@Sendable` closure; an Apple build
# would warn there (and fail with -warnings-as-errors). This script compiles Courier's
# sources with two stand-ins that shadow Foundation's coders and are NOT `Sendable`: each
# such use becomes an error here. Courier keeps its coders in `SharedCoder` instead.
#
# Usage: scripts/check-apple-sendable.sh      (needs a debug build first: `swift build`)
set -euo pipefail

cd "$(dirname "$0")/.."

modules_dir="${COURIER_MODULES_DIR:-$(swift build --show-bin-path)/Modules}"
if [[ ! -f "$modules_dir/Promises.swiftmodule" ]]; then
    echo "check-apple-sendable: no Promises module in $modules_dir; run 'swift build' first" >&2
    exit 2
fi

# The package name SwiftPM compiled the modules with (the root folder's name, lowercased, as a C
# identifier: `ci-clone` becomes `ci_clone`): Courier uses `package` declarations of Promises
# (its timer heap), visible only under the same name.
package_name="${COURIER_PACKAGE_NAME:-$(grep -o '"-package-name","[^"]*"' .build/debug.yaml 2>/dev/null | head -n 1 | sed 's/.*,"\(.*\)"$/\1/' || true)}"
if [[ -z "$package_name" ]]; then
    package_name="$(basename "$PWD" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9_]/_/g; s/^[0-9]/_&/')"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/AppleCoderStandIns.swift" <<'SWIFT'
import Foundation

// Stand-ins with the members Courier uses, deliberately not `Sendable`.
public final class JSONDecoder {
    let base = Foundation.JSONDecoder()
    public init() {}
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { try base.decode(type, from: data) }
}

public final class JSONEncoder {
    let base = Foundation.JSONEncoder()
    public init() {}
    public func encode<T: Encodable>(_ value: T) throws -> Data { try base.encode(value) }
    public var outputFormatting: Foundation.JSONEncoder.OutputFormatting {
        get { base.outputFormatting }
        set { base.outputFormatting = newValue }
    }
}
SWIFT

mapfile -t sources < <(find Sources/Courier -name '*.swift' | sort)
echo "check-apple-sendable: type-checking ${#sources[@]} Courier sources with non-Sendable coders"
swiftc -typecheck -swift-version 6 -warnings-as-errors -parse-as-library -module-name Courier \
    -package-name "$package_name" -I "$modules_dir" "${sources[@]}" "$work/AppleCoderStandIns.swift"
echo "check-apple-sendable: ok"
