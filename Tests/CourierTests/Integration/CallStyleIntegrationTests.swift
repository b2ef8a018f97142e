import Courier
import Foundation
import Promises
import XCTest

/// The three call styles (promise, async, completion) against a real server, and where each one
/// delivers.
final class CallStyleIntegrationTests: IntegrationTestCase {
    private static let queueKey = DispatchSpecificKey<String>()

    func test_givenThePromiseStyle_thenTheEchoArrives() throws {
        let client = try makeClient()
        let echo = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "anything/promise")))
        XCTAssertEqual(echo.path, "/anything/promise")
    }

    func test_givenTheAsyncStyle_thenTheEchoArrives() async throws {
        let client = try makeClient()
        let echo = try await client.send(LiveEndpoint<ServerEcho>(path: "anything/async"))
        XCTAssertEqual(echo.path, "/anything/async")
    }

    func test_givenTheAsyncStyle_whenTheServerFails_thenItThrowsANetworkError() async throws {
        let client = try makeClient()
        do {
            _ = try await client.send(LiveJSONEndpoint(path: "status/404"))
            XCTFail("a 404 must throw")
        } catch {
            XCTAssertEqual(errorKind(error), "clientError(404)")
            XCTAssertEqual((error as? NetworkError)?.metadata?.message, "not found")
        }
    }

    func test_givenTheCompletionStyle_thenItRunsOnTheConfiguredCallbackQueue() throws {
        let queue = DispatchQueue(label: "courier.tests.callbacks")
        queue.setSpecific(key: Self.queueKey, value: "callbacks")
        let client = try makeClient { $0.callbackQueue = queue }
        let done = expectation(description: "completion")
        let seen = ResultSlot<String>()
        client.request(LiveEndpoint<ServerEcho>(path: "anything/completion")) { result in
            let onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == "callbacks"
            seen.put(result.map { "\($0.path) onQueue=\(onQueue)" }.mapError { $0 as any Error })
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try seen.take(within: 0)?.get(), "/anything/completion onQueue=true")
    }

    func test_givenTheCompletionStyle_whenTheServerFails_thenTheErrorArrivesOnTheCallbackQueue() throws {
        let queue = DispatchQueue(label: "courier.tests.callbacks.failure")
        queue.setSpecific(key: Self.queueKey, value: "failure")
        let client = try makeClient { $0.callbackQueue = queue }
        let done = expectation(description: "completion")
        let seen = ResultSlot<String>()
        client.request(LiveJSONEndpoint(path: "status/503")) { result in
            let onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == "failure"
            switch result {
            case .success: seen.put(.success("unexpected success"))
            case .failure(let error): seen.put(.success("\(errorKind(error)) onQueue=\(onQueue)"))
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try seen.take(within: 0)?.get(), "serverError(503) onQueue=true")
    }

    func test_givenTheDefaultCallbackQueue_thenCompletionNeverRunsOnTheMainThread() throws {
        let client = try makeClient()
        let done = expectation(description: "completion")
        let onMain = ResultSlot<Bool>()
        client.request(LiveJSONEndpoint(path: "anything")) { _ in
            onMain.put(.success(Thread.isMainThread))
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(try onMain.take(within: 0)?.get(), false)
    }

    func test_givenPromiseHandlersWithoutAQueue_thenTheyNeverRunOnTheMainThread() throws {
        let client = try makeClient()
        let onMain = try value(of: client.request(LiveJSONEndpoint(path: "anything")).map { _ in Thread.isMainThread })
        XCTAssertFalse(onMain)
    }

    func test_givenPromiseHandlersOnAQueue_thenTheyRunThere() throws {
        let queue = DispatchQueue(label: "courier.tests.handlers")
        queue.setSpecific(key: Self.queueKey, value: "handlers")
        let client = try makeClient()
        let promise = client.request(LiveJSONEndpoint(path: "anything"))
            .map(on: queue) { _ in DispatchQueue.getSpecific(key: Self.queueKey) }
        XCTAssertEqual(try value(of: promise), "handlers")
    }

    func test_givenAllThreeStyles_thenTheyAgreeOnTheSameAnswer() async throws {
        let client = try makeClient()
        let endpoint = LiveJSONEndpoint(path: "anything/same", query: [.init(name: "k", value: "v")])
        let viaAsync = try await client.send(endpoint)
        let viaPromise = try await client.request(endpoint).value
        let viaCompletion: JSON = try await withCheckedThrowingContinuation { continuation in
            client.request(endpoint) { continuation.resume(with: $0) }
        }
        for json in [viaAsync, viaPromise, viaCompletion] {
            XCTAssertEqual(json["path"].string, "/anything/same")
            XCTAssertEqual(json["query"]["k"].string, "v")
        }
    }
}
