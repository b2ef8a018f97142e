import Foundation

/// Prints timestamped lines and collects the checks a scenario makes.
///
/// `@unchecked Sendable`: the failure list is only touched under `lock`; printing is line-atomic.
final class Trace: @unchecked Sendable {
    private let start = Date()
    private let lock = NSLock()
    private var failures: [String] = []

    /// Milliseconds since the demo started.
    var elapsedMilliseconds: Int { Int(Date().timeIntervalSince(start) * 1000) }

    func heading(_ title: String) {
        print("\n── \(title) " + String(repeating: "─", count: max(4, 64 - title.count)))
    }

    func log(_ message: String) {
        let stamp = String(repeating: " ", count: max(0, 5 - String(elapsedMilliseconds).count)) + "\(elapsedMilliseconds)"
        lock.withLock { print("[\(stamp) ms] \(message)") }
    }

    /// Records whether `condition` holds; a failed check makes the demo exit non-zero.
    func check(_ condition: Bool, _ what: String) {
        log((condition ? "✔ " : "✘ ") + what)
        if !condition { lock.withLock { failures.append(what) } }
    }

    var failedChecks: [String] { lock.withLock { failures } }
}
