import Dispatch
import Foundation
import Promises
import XCTest

/// Thrown by ``Promises/Promise/wait(within:file:line:)`` when the promise is still pending.
struct StillPending: Error, CustomStringConvertible {
    let seconds: TimeInterval
    var description: String { "promise still pending after \(seconds) s" }
}

extension Promise {
    /// `wait()` with a bound, for tests: a promise that never settles fails the test after
    /// `seconds` (and throws ``StillPending``) instead of hanging the whole suite.
    func wait(within seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) throws -> Value {
        let settled = DispatchSemaphore(value: 0)
        _ = tap { _ in settled.signal() }
        guard settled.wait(timeout: .now() + seconds) == .success, let result else {
            XCTFail("promise still pending after \(seconds) s", file: file, line: line)
            throw StillPending(seconds: seconds)
        }
        return try result.get()
    }
}
