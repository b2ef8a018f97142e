import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetworkClient.cancelAll(where:)`: every unsettled request ends with `.cancelled`, wherever it is.
final class CancelAllTests: XCTestCase {
    func test_givenHeldRequests_whenCancelledAll_thenEachEndsCancelledAndLaterRequestsRun() {
        let client = NetworkClient.stubbing().body(json: "{}").makeClient()
        client.pause()
        let held = (0..<3).map { client.request(Request("items/\($0)")) }
        XCTAssertEqual(client.cancelAll(), 3)
        XCTAssertEqual(held.map { outcomeName(settle($0)) }, ["cancelled", "cancelled", "cancelled"])
        client.resume()
        XCTAssertEqual(outcomeName(settle(client.request(Request("after")))), "ok")
        XCTAssertEqual(client.cancelAll(), 0, "settled requests are not counted")
    }

    func test_givenRequestsInFlight_whenCancelledAll_thenTheyEndAtOnceAndTheirTransportWorkIsDropped() async throws {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(30).body(json: "{}").clock(clock).makeClient()
        let promise = client.request(Request("slow"))
        let completed = expectation(description: "completion")
        let completion = SharedValue<String>("pending")
        client.request(Request("slow")) { result in
            completion.withLock { $0 = outcomeName(result.mapError { $0 as any Error }) }
            completed.fulfill()
        }
        let task = Task { try await client.send(Request("slow")) }
        XCTAssertTrue(clock.waitUntilPending(atLeast: 6), "three deadlines and three stub delays")
        XCTAssertEqual(client.cancelAll(), 3)
        XCTAssertEqual(outcomeName(settle(promise)), "cancelled")
        await fulfillment(of: [completed], timeout: 5)
        XCTAssertEqual(completion.withLock { $0 }, "cancelled")
        do {
            _ = try await task.value
            XCTFail("send should throw")
        } catch let error as NetworkError {
            XCTAssertEqual(error.shortName, "cancelled")
        }
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "deadlines and stub delays are cancelled with the requests")
    }

    func test_givenARequestBetweenRetries_whenCancelledAll_thenCancelledAndNoRetryIsLeft() {
        let clock = VirtualClock()
        let attempts = SharedValue(0)
        let client = NetworkClient.stubbing().clock(clock).respond { _ in
            attempts.withLock { $0 += 1 }
            return StubResponse(status: 503)
        }.makeClient()
        var request = Request<JSON>("flaky")
        request.retryPolicy = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(20), jitter: 0)
        let promise = client.request(request)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 20), "the retry was never scheduled")
        XCTAssertEqual(client.cancelAll(), 1)
        XCTAssertEqual(outcomeName(settle(promise)), "cancelled")
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "the retry timer and the deadline are cancelled")
        clock.advance(by: 200)
        XCTAssertEqual(attempts.withLock { $0 }, 1)
    }

    func test_givenAFilter_whenCancelledAll_thenOnlyTheChosenEndpointsAreCancelled() {
        let client = NetworkClient.stubbing().body(json: "{}").makeClient()
        client.pause()
        let search = client.request(Request("search/books"))
        let profile = client.request(Request("me"))
        let typed = client.request(Request<HTTPResponse>("search/films"))
        XCTAssertEqual(client.cancelAll { $0.path.hasPrefix("search") }, 2)
        client.resume()
        XCTAssertEqual(outcomeName(settle(search)), "cancelled")
        XCTAssertEqual(outcomeName(settle(typed)), "cancelled")
        XCTAssertEqual(outcomeName(settle(profile)), "ok")
    }

    func test_givenAnotherClient_whenCancelledAll_thenItsRequestsAreUntouched() {
        let first = NetworkClient.stubbing().body(json: "{}").makeClient()
        let second = NetworkClient.stubbing().body(json: "{}").makeClient()
        second.pause()
        let other = second.request(Request("x"))
        XCTAssertEqual(first.cancelAll(), 0)
        second.resume()
        XCTAssertEqual(outcomeName(settle(other)), "ok")
    }

    func test_givenManyThreadsRequestingAndCancelling_whenAllSettle_thenEachSettlesOnceAndCountsAgree() {
        // Each answer takes 20 ms, so every `cancelAll` finds requests to cancel.
        let client = NetworkClient.stubbing().delay(0.02).body(json: "{}").makeClient()
        let threads = 8, perThread = 250
        let settled = SharedValue<[String: Int]>([:])
        let cancelledByCalls = SharedValue(0)
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            DispatchQueue.global().async {
                for index in 0..<perThread {
                    group.enter()
                    client.request(Request<JSON>("t\(thread)/\(index)")) { result in
                        let name = outcomeName(result.mapError { $0 as any Error })
                        settled.withLock { $0[name, default: 0] += 1 }
                        group.leave()
                    }
                    if index % 25 == 0 {
                        let count = client.cancelAll()
                        cancelledByCalls.withLock { $0 += count }
                    }
                }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "a request never settled")
        let outcomes = settled.withLock { $0 }
        XCTAssertEqual(outcomes.values.reduce(0, +), threads * perThread, "each request settles exactly once")
        XCTAssertEqual(Set(outcomes.keys).subtracting(["ok", "cancelled"]), [])
        XCTAssertEqual(outcomes["cancelled", default: 0], cancelledByCalls.withLock { $0 })
        XCTAssertGreaterThan(outcomes["cancelled", default: 0], 0, "no request was in flight when cancelAll ran")
    }

    // MARK: Streams and event sources

    /// A stream whose head arrived has settled its request; `cancelAll` still ends its body.
    func test_givenABodyStreaming_whenCancelledAll_thenTheReadEndsCancelledAndTheTransferStops() async throws {
        let transport = RecordingTransport(.manual)
        let client = exampleClient(transport)
        let streamed = Task { try await client.stream(Request<EmptyResponse>("feed")) }
        let arrived = await transport.sends(1)
        XCTAssertTrue(arrived)
        let stream = try XCTUnwrap(transport.contexts[0].bodyStream)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200, url: transport.requests[0].url)))
        let response = try await bounded { try await streamed.value }
        stream.yield(Data("first".utf8))
        let reading = Task { () -> (pieces: Int, error: (any Error)?) in
            var pieces = 0
            do {
                for try await _ in response { pieces += 1 }
            } catch {
                return (pieces, error)
            }
            return (pieces, nil)
        }

        XCTAssertEqual(client.cancelAll { $0.path == "other" }, 0, "the filter sees the stream's endpoint")
        XCTAssertEqual(client.cancelAll(), 1)
        let outcome = try await bounded { await reading.value }
        XCTAssertEqual((outcome.error as? NetworkError)?.shortName, "cancelled", "\(String(describing: outcome.error))")
        XCTAssertEqual(transport.cancelledIndices, [0], "the transfer is cancelled")
        XCTAssertEqual(client.cancelAll(), 0, "an ended stream is not counted again")
    }

    /// An event source waiting to reconnect is a request about to be made: `cancelAll` ends it.
    func test_givenAnEventSourceWaitingToReconnect_whenCancelledAll_thenItEndsCancelledWithoutReconnecting() async throws {
        let scheduler = ShortWorkScheduler()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.scheduler = scheduler
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().stub(.get, "feed", sequence: [.events([ServerSentEvent(data: "a")], every: 0)])
            .recording(into: recorder).makeClient(configuration: configuration)
        let source = client.events(Request<EmptyResponse>("feed"), reconnection: EventReconnection(delay: 40))
        let reading = readingAll(source)

        XCTAssertTrue(scheduler.waitForHeldWork(delay: 40), "the loop is waiting to reconnect")
        XCTAssertEqual(client.cancelAll(), 1)
        let outcome = try await bounded { await reading.value }
        XCTAssertEqual(outcome.events, ["a"])
        XCTAssertEqual((outcome.error as? NetworkError)?.shortName, "cancelled", "\(String(describing: outcome.error))")
        XCTAssertEqual(scheduler.cancelledDelays.filter { $0 == 40 }, [40], "the wait does not stay scheduled")
        XCTAssertEqual(recorder.count, 1, "no reconnection")
    }

    /// A connected event source counts once (its connection's body is not listed on its own)
    /// and ends with `.cancelled` without reconnecting.
    func test_givenAnEventSourceReading_whenCancelledAll_thenItCountsOnceAndEndsWithoutReconnecting() async throws {
        let clock = VirtualClock()
        let recorder = StubRecorder()
        // One event a virtual second: after the first, the connection stays open for the second.
        let client = NetworkClient.stubbing()
            .stub(.get, "feed", sequence: [.events([ServerSentEvent(data: "a"), ServerSentEvent(data: "b")], every: 1)])
            .clock(clock).recording(into: recorder).makeClient()
        let source = client.events(Request<EmptyResponse>("feed"))
        let firstArrived = expectation(description: "the first event")
        let reading = Task { () -> (first: String?, error: (any Error)?) in
            var events = source.makeAsyncIterator()
            let first = try? await events.next()
            firstArrived.fulfill()
            do {
                _ = try await events.next()
                return (first?.data, nil)
            } catch {
                return (first?.data, error)
            }
        }
        XCTAssertTrue(clock.waitUntilPending(dueAt: 1), "the first event is scheduled")
        clock.advance(by: 1)
        await fulfillment(of: [firstArrived], timeout: 5)

        XCTAssertEqual(client.cancelAll(), 1)
        let outcome = try await bounded { await reading.value }
        XCTAssertEqual(outcome.first, "a")
        XCTAssertEqual((outcome.error as? NetworkError)?.shortName, "cancelled", "\(String(describing: outcome.error))")
        XCTAssertEqual(recorder.count, 1, "no reconnection")
        XCTAssertEqual(client.cancelAll(), 0)
    }

    /// Event sources that reconnect without end (each connection brings three events a
    /// millisecond apart, then a millisecond's wait) can only end by cancellation: a loop that
    /// `cancelAll` missed would keep running, and the bounded wait would fail. Every round
    /// cancels eight running loops at whatever phase each is in (mostly reading or waiting; the
    /// short moments between phases are pinned by `EventSourceControlTests`), also under TSan.
    func test_givenEventSourcesCyclingThroughTheirPhases_whenCancelledAll_thenEveryLoopEnds() async throws {
        let events = (1...3).map { ServerSentEvent(data: "\($0)") }
        let client = NetworkClient.stubbing().stub(.get, "feed", .events(events, every: 0.001)).makeClient()
        for round in 1...30 {
            let started = (0..<8).map { _ in expectation(description: "round \(round): a loop started") }
            let loops = started.map { signal in
                Task { () -> (any Error)? in
                    let source = client.events(Request<EmptyResponse>("feed"), reconnection: EventReconnection(delay: 0.001))
                    var first = true
                    do {
                        for try await _ in source where first {
                            first = false
                            signal.fulfill()
                        }
                    } catch {
                        return error
                    }
                    return nil
                }
            }
            await fulfillment(of: started, timeout: 10)
            XCTAssertGreaterThan(client.cancelAll(), 0, "round \(round)")
            for loop in loops {
                let error = try await bounded(10) { await loop.value }
                XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled", "round \(round): \(String(describing: error))")
            }
        }
    }
}
