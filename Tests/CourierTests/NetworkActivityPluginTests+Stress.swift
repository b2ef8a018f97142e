import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The busy/idle form under races: reports alternate, never overlap, and end idle.
final class NetworkActivityPluginStressTests: XCTestCase {
    /// Checks what a busy/idle report sequence promises: it alternates, starting busy and, once
    /// everything ended, ending idle.
    private func assertAlternatesAndEndsIdle(_ reports: [Bool], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reports.first ?? true, true, "the first report is busy", file: file, line: line)
        XCTAssertEqual(reports.last ?? false, false, "the last report is idle", file: file, line: line)
        let repeats = zip(reports, reports.dropFirst()).filter { $0 == $1 }.count
        XCTAssertEqual(repeats, 0, "two equal reports in a row", file: file, line: line)
    }

    func test_givenManyThreadsBeginningAndEnding_whenReportsRunOnAConcurrentQueue_thenTheyNeverOverlapAndEndIdle() {
        let queue = DispatchQueue(label: "activity-concurrent", attributes: .concurrent)
        let reports = SharedValue<[Bool]>([])
        let inside = SharedValue(0)
        let overlaps = SharedValue(0)
        let counter = ActivityCounter(queue: queue) { active in
            if inside.withLock({ value -> Int in value += 1; return value }) > 1 { overlaps.withLock { $0 += 1 } }
            reports.withLock { $0.append(active) }
            for _ in 0..<20 { sched_yield() }   // widens the window in which a second report could start
            inside.withLock { $0 -= 1 }
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<5_000 {
                counter.apply(.began)
                if (index + thread) % 3 == 0 { counter.apply(.began); counter.apply(.ended) }
                // Now and then let the queue's threads run, so reports happen among the changes
                // (without it, an optimised build may finish every change before any report).
                if index % 100 == 0 { for _ in 0..<10 { sched_yield() } }
                counter.apply(.ended)
            }
        }
        // A delivery that made its batch of reports queues itself again, possibly behind a
        // barrier: wait on the queue until no delivery is left.
        let flush = { repeat { queue.sync(flags: .barrier) {} } while counter.hasDeliveryPending }
        flush()
        // Changes that cancel out before the queue runs report nothing, so the stress alone may
        // report nothing; one more busy period proves the counter still reports after it.
        counter.apply(.began)
        flush()
        counter.apply(.ended)
        flush()
        let seen = reports.withLock { $0 }
        XCTAssertEqual(overlaps.withLock { $0 }, 0, "two reports ran at once")
        XCTAssertGreaterThanOrEqual(seen.count, 2, "the last busy period was reported")
        assertAlternatesAndEndsIdle(seen)
    }

    func test_givenRacingCancelsTimeoutsRetriesAndPauses_thenTheClientEndsIdleAndEveryBeganEnded() {
        let reports = ActivityReports()
        let busy = NetworkActivityPlugin(queue: reports.queue) { reports.append($0) }
        let began = SharedValue(0)
        let ended = SharedValue(0)
        let allEnded = NSCondition()
        let perAttempt = NetworkActivityPlugin { change, _ in
            allEnded.withLock {
                if change == .began { began.withLock { $0 += 1 } } else { ended.withLock { $0 += 1 } }
                allEnded.broadcast()
            }
        }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        // The busy form first: once the per-attempt form has seen an attempt end, so has it.
        configuration.plugins = [busy, perAttempt]
        let (client, _) = RacingTraffic.makeClient(configuration: configuration)
        let threads = 8, perThread = 100
        XCTAssertTrue(RacingTraffic.run(client, threads: threads, perThread: perThread), "every request settled")
        // A cancelled request settles at once; its attempt's start (when the cancel came as it
        // was being sent) and end may come just after. Once the busy form has said idle, every
        // attempt has ended, and the two forms must agree.
        XCTAssertTrue(reports.waitUntilIdle(), "the busy form came back to idle")
        let paired = allEnded.waitUntil({ began.withLock { $0 } == ended.withLock { $0 } }, timeout: 10)
        XCTAssertTrue(paired, "began \(began.withLock { $0 }), ended \(ended.withLock { $0 })")
        XCTAssertGreaterThan(began.withLock { $0 }, threads * perThread / 2, "most requests went out")
        let seen = reports.flushed()
        XCTAssertGreaterThan(seen.count, 0)
        assertAlternatesAndEndsIdle(seen)
    }
}
