// swift-tools-version:6.0
// A separate package so the root stays dependency-free and ordinary builds never see the fuzzer.
// Build and run it with scripts/fuzz.sh (Linux, swift.org toolchain).
import PackageDescription

let package = Package(
    name: "CourierFuzz",
    platforms: [.macOS(.v12)],
    dependencies: [
        .package(name: "Courier", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "FuzzResponse",
            dependencies: [.product(name: "Courier", package: "Courier"), "CFuzzerDriver", "FuzzSupport"]
        ),
        .executableTarget(
            name: "FuzzClient",
            dependencies: [.product(name: "Courier", package: "Courier"), "CFuzzerDriver", "FuzzSupport"]
        ),
        .executableTarget(
            name: "FuzzRequest",
            dependencies: [.product(name: "Courier", package: "Courier"), "CFuzzerDriver"]
        ),
        .target(name: "FuzzSupport"),
        .target(name: "CFuzzerDriver"),
    ],
    swiftLanguageModes: [.v6]
)
