import Foundation

extension NSCondition {
    /// Takes the lock and waits until `predicate` holds (checked under the lock each time the
    /// condition is signalled) or `timeout` real seconds pass; returns the predicate's last value.
    ///
    /// The timeout is bounded to a year: Foundation on Linux traps on a deadline it cannot
    /// express in nanoseconds (`.infinity`, or about 300 years and more). NaN counts as zero.
    func waitUntil(_ predicate: () -> Bool, timeout: TimeInterval) -> Bool {
        let seconds = timeout.isNaN ? 0 : min(max(0, timeout), 365 * 86_400)
        let deadline = Date(timeIntervalSinceNow: seconds)
        lock()
        defer { unlock() }
        while !predicate() {
            if !wait(until: deadline) { return predicate() }
        }
        return true
    }
}
