import Foundation
import XCTest
import Courier
import Promises

/// What the handlers showed: state isolated to the main actor, as a screen's would be.
@MainActor private enum Shown {
    static var entries: [String] = []
    static var offMainThread = 0

    static func add(_ entry: String) {
        if !Thread.isMainThread { offMainThread += 1 }
        entries.append(entry)
    }
}

/// `callbackQueue: .mainActor` and `ProgressHandler(queue: .mainActor)`: completion handlers and
/// progress reports that update main-actor state directly.
final class MainActorCallbackTests: XCTestCase {
    override func setUp() {
        super.setUp()
        MainActor.assumeIsolated { Shown.entries = []; Shown.offMainThread = 0 }
    }

    private var shown: [String] {
        MainActor.assumeIsolated {
            XCTAssertEqual(Shown.offMainThread, 0, "every handler ran on the main thread")
            return Shown.entries
        }
    }

    func test_givenTheMainActor_whenACompletionAndProgressAreGiven_thenBothRunThereReportsFirst() {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        let client = NetworkClient.stubbing().body(json: #"{"name":"Ada"}"#).makeClient()
        let finished = expectation(description: "completion")
        let progress = ProgressHandler(queue: .mainActor) { report in
            Shown.add("progress \(report.bytesReceived)")
        }
        client.request(Request<JSON>("me"), callbackQueue: .mainActor, progress: progress) { result in
            Shown.add("completion \((try? result.get())?["name"].string ?? "failed")")
            finished.fulfill()
        }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(shown, ["progress 14", "completion Ada"])
    }

    func test_givenTheMainActor_whenTheRequestCannotBeBuilt_thenTheErrorArrivesThere() {
        let client = NetworkClient.stubbing().makeClient()
        let finished = expectation(description: "completion")
        var unbuildable = Request<JSON>("me")
        unbuildable.idleTimeout = 0
        client.request(unbuildable, callbackQueue: .mainActor) { result in
            if case .failure(.invalidRequest) = result { Shown.add("invalidRequest") }
            finished.fulfill()
        }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(shown, ["invalidRequest"])
    }

    func test_givenAnActivityPluginOnTheMainActor_whenARequestRuns_thenBusyAndIdleAreShownThere() {
        let busy = expectation(description: "busy reported")
        let idle = expectation(description: "idle reported")
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [NetworkActivityPlugin(queue: .mainActor) { isActive in
            Shown.add("active \(isActive)")
            (isActive ? busy : idle).fulfill()
        }]
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(1).body(json: "{}").clock(clock).makeClient(configuration: configuration)
        let finished = expectation(description: "completion")
        client.request(Request<JSON>("me"), callbackQueue: .mainActor) { _ in finished.fulfill() }
        wait(for: [busy], timeout: 10)
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the deadline and the stub's delay")
        clock.advance(by: 1)
        wait(for: [finished, idle], timeout: 10)
        XCTAssertEqual(shown, ["active true", "active false"])
    }
}
