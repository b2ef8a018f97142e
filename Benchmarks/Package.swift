// swift-tools-version:6.0
import PackageDescription

// Courier's benchmark suite. It depends on the root package by path, so every benchmark
// crosses a module boundary exactly as an application would. Build and run in release mode:
//
//     swift run -c release --package-path Benchmarks courier-bench promises
//
// `Package.resolved` and `.build/` are kept out of git.
let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Counts heap allocations by defining malloc/calloc/realloc/free (Linux only; elsewhere
        // the counters stay zero and the allocation rows say "n/a").
        .target(name: "CMallocCounter"),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "CMallocCounter",
                .product(name: "Promises", package: "Courier"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
