// swift-tools-version:6.0
import PackageDescription

// Courier's benchmark suite. It depends on the root package by path, so every benchmark
// crosses a module boundary exactly as an application would. Build and run in release mode:
//
//     swift run -c release --package-path Benchmarks courier-bench promises
//     swift run -c release --package-path Benchmarks courier-bench requests
//     swift run -c release --package-path Benchmarks courier-bench traffic
//
// `Package.resolved` and `.build/` are kept out of git.
let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        // The worked example of plugging another HTTP engine into Courier (Docs/Requests.md,
        // "Transports"); kept here so the root package gains no dependency.
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Counts heap allocations by defining malloc/calloc/realloc/free (Linux only; elsewhere
        // the counters stay zero and the allocation rows say "n/a").
        .target(name: "CMallocCounter"),
        // An `HTTPTransport` over AsyncHTTPClient's `HTTPClient`.
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "CMallocCounter",
                "CourierAsyncHTTPClient",
                .product(name: "Promises", package: "Courier"),
                .product(name: "Courier", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
