// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "Promises", targets: ["Promises"]),
        .library(name: "Courier", targets: ["Courier"]),
        .executable(name: "courier-demo", targets: ["courier-demo"]),
    ],
    targets: [
        .target(name: "Promises"),
        .target(name: "Courier", dependencies: ["Promises"]),
        .executableTarget(name: "courier-demo", dependencies: ["Courier", "Promises"]),
        .testTarget(name: "PromisesTests", dependencies: ["Promises"]),
        .testTarget(
            name: "CourierTests",
            dependencies: ["Courier", "Promises"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
