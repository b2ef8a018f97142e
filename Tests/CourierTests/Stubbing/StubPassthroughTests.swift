import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `StubbingBuilder.passthrough(to:)` and `StubResponse.passthrough`: which requests reach the
/// real transport, with what, and how a delay and a cancellation treat them.
final class StubPassthroughTests: XCTestCase {
    private let real = #"{"from":"real"}"#

    func test_givenPassthrough_whenNoStubMatches_thenTheRealTransportAnswersAndStubbedRoutesDoNot() throws {
        let transport = RecordingTransport.answering(body: real)
        let client = NetworkClient.stubbing()
            .stub(.get, "feed", .json(#"{"from":"stub"}"#))
            .passthrough(to: transport)
            .makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "feed")))?.get()["from"].string, "stub")
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "profile")))?.get()["from"].string, "real")
        XCTAssertEqual(transport.requests.map { $0.url?.path }, ["/profile"], "only the unstubbed request went through")
    }

    func test_givenPassthrough_whenAStatusWasAlsoConfigured_thenTheTransportStillAnswers() throws {
        let transport = RecordingTransport.answering(body: real)
        let client = NetworkClient.stubbing().status(500).passthrough(to: transport).makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "x")))?.get()["from"].string, "real")
    }

    func test_givenASequenceEndingInPassthrough_thenTheFirstIsCannedAndTheRestGoThrough() throws {
        let transport = RecordingTransport.answering(body: real)
        let client = NetworkClient.stubbing()
            .stub(.get, "feed", sequence: [.json(#"{"from":"stub"}"#), .passthrough])
            .passthrough(to: transport)
            .body(json: #"{"from":"default"}"#)
            .makeClient()
        let froms = try (0..<3).map { _ in try settle(client.request(StubJSONEndpoint(path: "feed")))?.get()["from"].string }
        XCTAssertEqual(froms, ["stub", "real", "real"])
        XCTAssertEqual(transport.sendCount, 2)
    }

    func test_givenAnEmptySequenceRoute_whenPassthroughIsSet_thenTheRequestGoesThrough() throws {
        let transport = RecordingTransport.answering(body: real)
        let client = NetworkClient.stubbing().stub(.get, "a", sequence: []).passthrough(to: transport).makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "a")))?.get()["from"].string, "real")
    }

    func test_givenAResponderChoosingPassthrough_thenItSeesTheRequestAndLetsItThrough() throws {
        let transport = RecordingTransport.answering(body: real)
        let client = NetworkClient.stubbing()
            .respond { request in request.url?.path == "/canned" ? .json(#"{"from":"stub"}"#) : .passthrough }
            .passthrough(to: transport)
            .makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "canned")))?.get()["from"].string, "stub")
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "live")))?.get()["from"].string, "real")
    }

    func test_givenPassthroughWithoutATransport_thenTheRequestFailsWithATypedError() {
        let client = NetworkClient.stubbing().stub(.post, "orders", .passthrough).makeClient()
        guard case .transport(let underlying)? = networkError(settle(client.request(StubJSONEndpoint(path: "orders", method: .post)))) else {
            return XCTFail("expected a transport error")
        }
        XCTAssertEqual(underlying as? StubError, .noPassthroughTransport(request: "POST orders"))
    }

    func test_givenFixturesAndPassthrough_whenAFixtureIsMissing_thenTheRequestGoesThrough() throws {
        let folder = try makeScratchFolder("passthrough-fixtures")
        defer { removeScratchFolder(folder) }
        let transport = RecordingTransport.answering(body: real)
        let client = NetworkClient.stubbing().fixtures(in: folder).passthrough(to: transport).makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "missing")))?.get()["from"].string, "real")
    }

    /// The real transport gets the request as sent (credentials, plugins) and the client's context.
    func test_givenPassthrough_thenTheTransportGetsTheSentRequestAndTheClientsContext() throws {
        let transport = RecordingTransport.answering(body: real)
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "https://api.example.test")))
        configuration.authenticator = TokenAuthenticator(token: "t0k") { _ in Promise(error: URLError(.badServerResponse)) }
        configuration.maximumResponseSize = 1234
        let client = NetworkClient.stubbing().passthrough(to: transport).makeClient(configuration: configuration)
        _ = settle(client.request(StubJSONEndpoint(path: "me")))
        let sent = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(sent.url?.absoluteString, "https://api.example.test/me")
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Authorization"), "Bearer t0k")
        XCTAssertEqual(transport.contexts.first?.maximumResponseSize, 1234)
        XCTAssertEqual(transport.contexts.first?.endpointPath, "me")
    }

    /// A request to a route answered with `.passthrough` after one second of a virtual clock,
    /// issued, with its deadline and the delay scheduled.
    private func requestADelayedPassthrough() -> (VirtualClock, RecordingTransport, Promise<JSON>) {
        let clock = VirtualClock()
        let transport = RecordingTransport.answering(body: real)
        var delayed = StubResponse.passthrough
        delayed.delay = 1
        let client = NetworkClient.stubbing().stub(.get, "slow", delayed).passthrough(to: transport).clock(clock).makeClient()
        let promise = client.request(StubJSONEndpoint(path: "slow", timeout: 5))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "deadline and delay were not scheduled")
        return (clock, transport, promise)
    }

    func test_givenADelayedPassthrough_whenTheClockPassesTheDelay_thenTheRequestIsSentOnlyThen() throws {
        let (clock, transport, promise) = requestADelayedPassthrough()
        clock.advance(by: 0.9)
        XCTAssertEqual(transport.sendCount, 0, "sent before its delay")
        clock.advance(by: 0.1)
        XCTAssertEqual(try settle(promise)?.get()["from"].string, "real")
        XCTAssertEqual(transport.sendCount, 1)
    }

    func test_givenADelayedPassthrough_whenCancelledDuringTheDelay_thenNothingIsSent() throws {
        let (clock, transport, promise) = requestADelayedPassthrough()
        promise.cancel()
        clock.advance(by: 2)
        XCTAssertNotNil(settle(promise))
        XCTAssertEqual(transport.sendCount, 0, "a request cancelled during the stub's delay was sent")
    }

    func test_givenAPassthroughInFlight_whenCancelled_thenTheRealTransportsTaskIsCancelled() throws {
        let transport = RecordingTransport(.manual)
        let client = NetworkClient.stubbing().passthrough(to: transport).makeClient()
        let promise = client.request(StubJSONEndpoint(path: "x"))
        XCTAssertTrue(transport.waitForSends(1))
        promise.cancel()
        XCTAssertNotNil(settle(promise))
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenAForwardedTask_whenCancelledWhileItIsBeingSent_thenTheSentTaskIsCancelled() {
        let forwarded = ForwardedTask()
        let cancelled = SharedValue(0)
        forwarded.start {
            forwarded.cancel()   // arrives while the request is being handed to the transport
            return RecordingTransport.Task { cancelled.withLock { $0 += 1 } }
        }
        XCTAssertEqual(cancelled.withLock { $0 }, 1)
        forwarded.start { XCTFail("a cancelled task was sent again"); return RecordingTransport.Task {} }
    }

    func test_givenPassthrough_thenTheDescriptionsSayIt() {
        XCTAssertEqual("\(StubResponse.passthrough)", "StubResponse(passthrough, delay: 0.0)")
        let builder = NetworkClient.stubbing().passthrough(to: RecordingTransport.answering())
        XCTAssertTrue("\(builder)".contains("passthrough: RecordingTransport"), "\(builder)")
        XCTAssertTrue("\(NetworkClient.stubbing())".contains("passthrough: none"))
    }
}
