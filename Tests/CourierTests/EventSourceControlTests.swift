import Foundation
import XCTest
@testable import Courier
import Promises

/// `EventSourceControl`: what `cancelAll` does to an event-source loop in each phase,
/// including the moments between phases, where the loop itself must notice.
final class EventSourceControlTests: XCTestCase {
    /// A control listed in a fresh registry, and a way to run `cancelAll`'s stop on it.
    private func listedControl() -> (control: EventSourceControl, cancelAll: () -> Int) {
        let registry = LiveRequests()
        let control = EventSourceControl(list: { stop in
            LiveWork(endpoint: Request<EmptyResponse>("feed"), registry: registry, stop: stop)
        })
        return (control, {
            registry.snapshot().reduce(0) { count, entry in count + (entry.cancelIfPending() ? 1 : 0) }
        })
    }

    /// Between two phases (a body ended, a wait is over): counted, and the next connection or
    /// wait the loop tries is refused.
    func test_givenALoopBetweenPhases_whenCancelled_thenItCountsAndItsNextStepThrows() {
        let (control, cancelAll) = listedControl()
        control.idle()
        XCTAssertEqual(cancelAll(), 1)
        XCTAssertThrowsError(try control.check())
        XCTAssertThrowsError(try control.connecting())
        let (wait, resolver) = Promise<Void>.pending()   // kept: a released resolver rejects the wait
        defer { withExtendedLifetime(resolver) {} }
        XCTAssertThrowsError(try control.waiting(wait))
        XCTAssertTrue(wait.isCancelled, "a wait begun after the cancellation is dropped at once")
        XCTAssertEqual(cancelAll(), 0, "counted once")
    }

    /// Connecting, before the connection's request is built: counted once, the request is
    /// refused when it is built (the caller cancels it before it starts), and a response that
    /// got through anyway is refused too.
    func test_givenALoopConnecting_whenCancelled_thenItCountsAndItsRequestAndResponseAreRefused() throws {
        let (control, cancelAll) = listedControl()
        try control.connecting()
        XCTAssertEqual(cancelAll(), 1)
        XCTAssertFalse(control.connectionBuilt(CountingRequest()), "a request built after cancelAll must not start")
        let response = StreamedResponse(
            head: HTTPResponse(statusCode: 200),
            reader: StreamedBodyReader(ResponseBodyStream(accepting: { _ in true }, limit: 1_000)))
        XCTAssertThrowsError(try control.reading(response))
        var body = response.makeAsyncIterator()
        let read = expectation(description: "read")
        Task {
            do {
                _ = try await body.next()
                XCTFail("the refused connection's body was readable")
            } catch {
                XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled")
            }
            read.fulfill()
        }
        wait(for: [read], timeout: 5)
    }

    /// Connecting, with the request built: `cancelAll` cancels that request through the control,
    /// so the request's own entry, reached later in the same call, does not count it again.
    func test_givenALoopWhoseConnectionIsBuilt_whenCancelled_thenTheRequestIsCancelledOnce() throws {
        let (control, cancelAll) = listedControl()
        try control.connecting()
        let request = CountingRequest()
        XCTAssertTrue(control.connectionBuilt(request))
        XCTAssertEqual(cancelAll(), 1)
        XCTAssertEqual(request.cancellations.withLock { $0 }, 1)
        XCTAssertFalse(request.cancelIfPending(), "already settled by the control")
    }

    func test_givenALoopWaiting_whenCancelled_thenTheWaitIsCancelledAndCounted() throws {
        let (control, cancelAll) = listedControl()
        let (wait, resolver) = Promise<Void>.pending()
        defer { withExtendedLifetime(resolver) {} }
        try control.waiting(wait)
        XCTAssertEqual(cancelAll(), 1)
        XCTAssertTrue(wait.isCancelled)
    }

    func test_givenALoopThatEnded_whenCancelled_thenNothingIsCountedAndItIsNoLongerListed() {
        let registry = LiveRequests()
        let control = EventSourceControl(list: { stop in
            LiveWork(endpoint: Request<EmptyResponse>("feed"), registry: registry, stop: stop)
        })
        XCTAssertEqual(registry.snapshot().count, 1)
        control.ended()
        XCTAssertEqual(registry.snapshot().count, 0, "an ended loop leaves the list at once")
    }

    /// The entry lives as long as the loop's iterator: a registry does not keep it.
    func test_givenTheLoopGoesAway_thenItsEntryLeavesTheList() {
        let registry = LiveRequests()
        var control: EventSourceControl? = EventSourceControl(list: { stop in
            LiveWork(endpoint: Request<EmptyResponse>("feed"), registry: registry, stop: stop)
        })
        XCTAssertEqual(registry.snapshot().count, 1)
        withExtendedLifetime(control) {}
        control = nil
        XCTAssertEqual(registry.snapshot().count, 0)
    }
}

/// A request that records its cancellations; settles on the first.
private final class CountingRequest: LiveRequest {
    let endpoint: any Endpoint = Request<EmptyResponse>("feed")
    let cancellations = SharedValue(0)

    func cancelIfPending() -> Bool {
        cancellations.withLock { count -> Bool in
            count += 1
            return count == 1
        }
    }

    func cancel() { _ = cancelIfPending() }
}
