import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Many threads issue requests while another toggles pause/resume: nothing is lost or settled twice.
final class TrafficStressTests: XCTestCase {
    /// Counts completions per request index; any index completed twice is recorded.
    final class Ledger: @unchecked Sendable {
        // @unchecked: every field is touched only under `lock`.
        private let lock = NSLock()
        private var completions: [Int]
        private(set) var outcomes: [String: Int] = [:]
        let allDone = DispatchSemaphore(value: 0)
        private var remaining: Int

        init(count: Int) {
            completions = Array(repeating: 0, count: count)
            remaining = count
        }

        func record(_ index: Int, _ outcome: String) {
            let finished = lock.withLock { () -> Bool in
                completions[index] += 1
                outcomes[outcome, default: 0] += 1
                remaining -= 1
                return remaining == 0
            }
            if finished { allDone.signal() }
        }

        var settledTwice: Int { lock.withLock { completions.filter { $0 > 1 }.count } }
        var neverSettled: Int { lock.withLock { completions.filter { $0 == 0 }.count } }
        var summary: [String: Int] { lock.withLock { outcomes } }
    }

    func test_given8ThreadsIssuing10000Requests_whenAnotherTogglesPause_thenEachSettlesExactlyOnce() {
        let threads = 8, perThread = 1_250, total = threads * perThread
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().body(json: #"{"ok":true}"#).recording(into: recorder).makeClient()
        let ledger = Ledger(count: total)
        let issuing = DispatchGroup()
        let stopToggling = CancelFlag()
        let toggler = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var toggles = 0
            while !stopToggling.isSet || toggles < 100 {
                client.pause()
                client.resume()
                toggles += 1
            }
            toggler.signal()
        }
        for thread in 0..<threads {
            issuing.enter()
            Thread.detachNewThread {
                for i in 0..<perThread {
                    let index = thread * perThread + i
                    let task = client.request(StubJSONEndpoint(path: "item/\(index)")) { result in
                        switch result {
                        case .success: ledger.record(index, "ok")
                        case .failure(let error): ledger.record(index, error.shortName)
                        }
                    }
                    if index % 97 == 0 { task.cancel() }
                }
                issuing.leave()
            }
        }
        XCTAssertEqual(issuing.wait(timeout: .now() + 60), .success)
        stopToggling.set()
        XCTAssertEqual(toggler.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(client.isPaused, "balanced pause/resume must leave the client running")
        XCTAssertEqual(ledger.allDone.wait(timeout: .now() + 60), .success, "lost requests: \(ledger.neverSettled)")
        XCTAssertEqual(ledger.settledTwice, 0)
        let summary = ledger.summary
        XCTAssertEqual(summary.values.reduce(0, +), total)
        XCTAssertEqual(Set(summary.keys).subtracting(["ok", "cancelled"]), [], "\(summary)")
        XCTAssertGreaterThanOrEqual(recorder.count, summary["ok"] ?? 0, "a success that never reached the transport")
        XCTAssertLessThanOrEqual(recorder.count, total, "a request reached the transport twice")
        XCTAssertGreaterThanOrEqual(summary["cancelled"] ?? 0, 1)
    }
}
