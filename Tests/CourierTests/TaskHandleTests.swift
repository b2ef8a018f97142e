import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `TaskHandle`: what a request's cancel reaches when the transport replaced its task (a 307 or
/// 308 followed with its body on Linux). The tasks are never resumed, so nothing is sent.
final class TaskHandleTests: XCTestCase {
    private let session = URLSession(configuration: .ephemeral)
    private let url = URL(string: "http://127.0.0.1:9/never-sent")!

    override func tearDown() {
        session.invalidateAndCancel()
    }

    func test_givenAReplacedTask_whenCancelled_thenTheNewTaskIsCancelledAndTheOldOneIsNot() {
        let first = session.dataTask(with: url)
        let second = session.dataTask(with: url)
        let handle = TaskHandle(task: first)

        XCTAssertTrue(handle.replace(with: second))
        handle.cancel()

        XCTAssertNotEqual(second.state, .suspended, "the current task is cancelled")
        XCTAssertEqual(first.state, .suspended, "the replaced task is left alone")
    }

    func test_givenACancelledHandle_whenReplaced_thenItRefusesAndTheCallerMustCancelTheNewTask() {
        let first = session.dataTask(with: url)
        let second = session.dataTask(with: url)
        let handle = TaskHandle(task: first)

        handle.cancel()

        XCTAssertFalse(handle.replace(with: second))
        XCTAssertEqual(second.state, .suspended, "the refused task is not touched by the handle")
        XCTAssertNotEqual(first.state, .suspended)
    }

    func test_givenCancelAndReplaceRacingOnManyThreads_thenTheLastTaskIsAlwaysCancelled() {
        for _ in 0..<200 {
            let handle = TaskHandle(task: session.dataTask(with: url))
            let next = session.dataTask(with: url)
            let replaced = SharedValue(false)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { handle.cancel() } else { replaced.withLock { $0 = handle.replace(with: next) } }
            }
            if !replaced.withLock({ $0 }) { next.cancel() }   // what the transport does when refused
            XCTAssertNotEqual(next.state, .suspended, "a cancel racing a replace must reach the new task")
        }
    }
}

