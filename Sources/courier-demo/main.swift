import Courier
import Foundation

// courier-demo: three scenarios on the built-in stub backend, or against a real server.
let options: DemoOptions
do {
    options = try DemoOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("courier-demo: \(error)\n".utf8))
    exit(2)
}
if options.showHelp {
    print(DemoOptions.usage)
    exit(0)
}

let backend: DemoBackend = options.baseURL.map { .server($0) } ?? .stubs
let trace = Trace()
print("Courier demo — backend: \(backend.name)")
for scenario in options.scenarios {
    switch scenario {
    case .chained: ChainedScenario.run(on: backend, trace: trace)
    case .refresh: RefreshScenario.run(on: backend, trace: trace)
    case .timeout: TimeoutScenario.run(on: backend, trace: trace)
    }
}

let failures = trace.failedChecks
print("")
if failures.isEmpty {
    print("All scenarios behaved as described.")
    exit(0)
} else {
    print("\(failures.count) check(s) failed:")
    for failure in failures { print("  ✘ \(failure)") }
    exit(1)
}
