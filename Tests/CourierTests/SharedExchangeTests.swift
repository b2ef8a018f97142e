import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Configuration.sharesIdenticalRequests`: identical `GET`s in flight at once share one
/// exchange with the transport; each caller keeps its own pipeline.
final class SharedExchangeTests: XCTestCase {
    private struct Profile: Decodable, Sendable { let name: String }

    private func client(_ transport: RecordingTransport, sharing: Bool = true, plugins: [any RequestPlugin] = []) -> NetworkClient {
        exampleClient(transport) { configuration in
            configuration.sharesIdenticalRequests = sharing
            configuration.plugins = plugins
        }
    }

    private static func ok(_ body: String) -> Result<HTTPResponse, any Error> {
        .success(HTTPResponse(statusCode: 200, body: Data(body.utf8)))
    }

    func test_givenTwoIdenticalGetsInFlight_whenTheTransportAnswers_thenItWasAskedOnceAndEachCallerDecodesItsOwnType() throws {
        let transport = RecordingTransport(.manual)
        let plugin = RecordingPlugin()
        let client = client(transport, plugins: [plugin])
        let profile = client.request(Request<Profile>("me"))
        let json = client.request(Request<JSON>("me"))
        XCTAssertEqual(plugin.events.filter { $0 == "willSend" }.count, 2, "each caller's plugins see its attempt")
        XCTAssertEqual(transport.sendCount, 1)
        transport.complete(0, with: Self.ok(#"{"name":"Ada"}"#))
        XCTAssertEqual(try profile.wait(within: 5).name, "Ada")
        XCTAssertEqual(try json.wait(within: 5)["name"].string, "Ada")
    }

    func test_givenRequestsThatDifferOrAreNotSafe_thenEachGoesToTheTransport() {
        let transport = RecordingTransport(.manual)
        let client = client(transport)
        var withHeader = Request<JSON>("me")
        withHeader.headers = ["X-Variant": "b"]
        let promises = [
            client.request(Request<JSON>("me")),
            client.request(Request<JSON>("me", query: [URLQueryItem(name: "page", value: "2")])),
            client.request(withHeader),
            client.request(Request<JSON>("me", method: .post, body: .data(Data("a".utf8), contentType: "text/plain"))),
            client.request(Request<JSON>("me", method: .post, body: .data(Data("a".utf8), contentType: "text/plain"))),
        ]
        XCTAssertEqual(transport.sendCount, 5, "another URL, another header, and a POST twice")
        for index in 0..<5 { transport.complete(index, with: Self.ok("{}")) }
        XCTAssertEqual(promises.map { outcomeName(settle($0)) }, Array(repeating: "ok", count: 5))
    }

    func test_givenAnEndpointsOwnChoice_thenItWinsOverTheClientsEitherWay() {
        struct LongPoll: Endpoint {
            typealias Response = JSON
            var path: String { "events/next" }
            var sharesIdenticalRequests: Bool? { false }
        }
        let transport = RecordingTransport(.manual)
        let sharing = client(transport)
        let polls = [sharing.request(LongPoll()), sharing.request(LongPoll())]
        XCTAssertEqual(transport.sendCount, 2, "an endpoint that opts out is never shared")
        XCTAssertEqual(Request(LongPoll()).sharesIdenticalRequests, false, "a copy keeps the choice")

        let notSharing = client(transport, sharing: false)
        var shared = Request<JSON>("me")
        shared.sharesIdenticalRequests = true
        let reads = [notSharing.request(shared), notSharing.request(shared)]
        XCTAssertEqual(transport.sendCount, 3, "an endpoint that opts in shares on a client that does not")
        for index in 0..<3 { transport.complete(index, with: Self.ok("{}")) }
        XCTAssertEqual((polls + reads).map { outcomeName(settle($0)) }, ["ok", "ok", "ok", "ok"])
    }

    func test_givenSharingOff_thenIdenticalRequestsAreEachSent() {
        let transport = RecordingTransport(.manual)
        let client = client(transport, sharing: false)
        let promises = [client.request(Request<JSON>("me")), client.request(Request<JSON>("me"))]
        XCTAssertEqual(transport.sendCount, 2)
        for index in 0..<2 { transport.complete(index, with: Self.ok("{}")) }
        XCTAssertEqual(promises.map { outcomeName(settle($0)) }, ["ok", "ok"])
    }

    func test_givenOneCallerCancels_thenTheOtherStillGetsTheAnswerAndTheExchangeEndsOnlyWhenTheLastLeaves() {
        let transport = RecordingTransport(.manual)
        let client = client(transport)
        let first = client.request(Request<JSON>("me"))
        let second = client.request(Request<JSON>("me"))
        first.cancel()
        XCTAssertEqual(transport.cancelledIndices, [], "one caller left; the other still waits")
        transport.complete(0, with: Self.ok(#"{"n":1}"#))
        XCTAssertEqual(settledErrorIsCancellation(first), true)
        XCTAssertEqual((try? second.wait(within: 5))?["n"].int, 1)

        let third = client.request(Request<JSON>("me"))
        let fourth = client.request(Request<JSON>("me"))
        XCTAssertEqual(transport.sendCount, 2, "an answered exchange is not joined again")
        third.cancel()
        fourth.cancel()
        XCTAssertEqual(transport.cancelledIndices, [1], "the last caller to leave cancels the exchange")
        let fifth = client.request(Request<JSON>("me"))
        XCTAssertEqual(transport.sendCount, 3, "a cancelled exchange is not joined")
        transport.complete(2, with: Self.ok("{}"))
        XCTAssertEqual(outcomeName(settle(fifth)), "ok")
    }

    func test_givenTwoCallersWithProgress_whenTheTransportReports_thenBothHearIt() {
        let transport = RecordingTransport(.manual)
        let client = client(transport)
        let heardA = expectation(description: "a heard the report")
        let heardB = expectation(description: "b heard the report")
        func listener(_ heard: XCTestExpectation) -> ProgressHandler {
            ProgressHandler(queue: DispatchQueue(label: "listener")) { report in
                if report.bytesReceived == 512 { heard.fulfill() }
            }
        }
        let first = client.request(Request<JSON>("big"), progress: listener(heardA))
        let second = client.request(Request<JSON>("big"), progress: listener(heardB))
        XCTAssertEqual(transport.sendCount, 1)
        transport.contexts.first?.progress?(TransferProgress(bytesReceived: 512, totalBytesToReceive: 1024))
        wait(for: [heardA, heardB], timeout: 5)
        transport.complete(0, with: Self.ok("{}"))
        XCTAssertEqual([first, second].map { outcomeName(settle($0)) }, ["ok", "ok"])
    }

    func test_givenABodyInAFileAndTwoCallers_thenEachGetsTheBodyAndTheFileIsDeleted() throws {
        let scratch = try makeScratchFolder("SharedExchangeTests")
        defer { removeScratchFolder(scratch) }
        let file = try writeFile(Data(#"{"name":"Grace"}"#.utf8), in: scratch)
        let transport = RecordingTransport(.manual)
        let client = client(transport)
        let first = client.request(Request<Profile>("me"))
        let second = client.request(Request<Profile>("me"))
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200, bodyFileURL: file)))
        XCTAssertEqual(try first.wait(within: 5).name, "Grace")
        XCTAssertEqual(try second.wait(within: 5).name, "Grace")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    func test_givenAnErrorAnswer_thenEveryCallerClassifiesItAndRetriesOnItsOwn() {
        let transport = RecordingTransport(.manual)
        let client = client(transport)
        var retried = Request<JSON>("me")
        retried.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0)
        let plain = client.request(Request<JSON>("me"))
        let retrying = client.request(retried)
        XCTAssertEqual(transport.sendCount, 1)
        transport.complete(0, with: .success(HTTPResponse(statusCode: 503)))
        XCTAssertEqual(outcomeName(settle(plain)), "serverError(503)")
        XCTAssertTrue(transport.waitForSends(2), "the retrying caller sends its retry alone")
        transport.complete(1, with: Self.ok("{}"))
        XCTAssertEqual(outcomeName(settle(retrying)), "ok")
    }

    func test_givenACallerWhoseIdleTimeoutEndsItOnAStalledExchange_whenItRetries_thenItSendsAfreshWhileTheOtherKeepsWaiting() {
        let transport = RecordingTransport(.manual)
        let scheduler = ManualScheduler()
        let client = exampleClient(transport) { configuration in
            configuration.sharesIdenticalRequests = true
            configuration.scheduler = scheduler
        }
        // Identical requests (the idle timeout is not part of what is sent); only one gives up on a stall.
        var impatient = Request<JSON>("feed")
        impatient.idleTimeout = 2
        impatient.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), jitter: 0)
        let first = client.request(impatient)
        let second = client.request(Request<JSON>("feed"))
        XCTAssertEqual(transport.sendCount, 1)
        // Second by second until the watch has found no progress and the retry has started.
        for _ in 0..<8 where transport.sendCount < 2 { scheduler.advance(by: 1) }
        XCTAssertEqual(transport.sendCount, 2, "the retry goes out afresh instead of joining the stalled exchange")
        XCTAssertEqual(transport.cancelledIndices, [], "the other caller still waits on the first exchange")
        transport.complete(1, with: Self.ok(#"{"fresh":true}"#))
        XCTAssertEqual((try? first.wait(within: 5))?["fresh"].bool, true)
        transport.complete(0, with: Self.ok(#"{"fresh":false}"#))
        XCTAssertEqual((try? second.wait(within: 5))?["fresh"].bool, false)
    }

    func test_givenOneCallerLeft_whenAnIdenticalRequestStarts_thenItDoesNotJoinTheExchangeSomeoneGaveUpOn() {
        let transport = RecordingTransport(.manual)
        let client = client(transport)
        let leaving = client.request(Request<JSON>("feed"))
        let staying = client.request(Request<JSON>("feed"))
        leaving.cancel()
        let later = client.request(Request<JSON>("feed"))
        XCTAssertEqual(transport.sendCount, 2, "the exchange someone left takes nobody new")
        XCTAssertEqual(transport.cancelledIndices, [], "the caller still waiting keeps it going")
        transport.complete(0, with: Self.ok(#"{"n":0}"#))
        transport.complete(1, with: Self.ok(#"{"n":1}"#))
        XCTAssertEqual((try? staying.wait(within: 5))?["n"].int, 0)
        XCTAssertEqual((try? later.wait(within: 5))?["n"].int, 1)
    }

    func test_givenRequestsThatDifferInCookiesMethodOrStubRoute_thenTheyAreNotTheSameExchange() throws {
        let transport = RecordingTransport(.manual)
        let shared = SharedExchanges()
        let url = try XCTUnwrap(URL(string: "https://api.example.com/private"))
        let context = TransportContext(method: .get, endpointPath: "private")
        _ = shared.send(URLRequest(url: url), context: context, through: transport) { _ in }
        XCTAssertTrue(shared.isInFlight(URLRequest(url: url), context: context))

        var cookieless = URLRequest(url: url)
        cookieless.httpShouldHandleCookies = false
        XCTAssertFalse(shared.isInFlight(cookieless, context: context), "cookies on and off are two requests")
        var posted = URLRequest(url: url)
        posted.httpMethod = "POST"
        XCTAssertFalse(shared.isInFlight(posted, context: context), "the method as sent decides, not the endpoint's")
        let otherRoute = TransportContext(method: .get, endpointPath: "private/")
        XCTAssertFalse(shared.isInFlight(URLRequest(url: url), context: otherRoute), "a stub picks routes by path")
        let otherLimit = TransportContext(method: .get, endpointPath: "private", maximumResponseSize: 10)
        XCTAssertFalse(shared.isInFlight(URLRequest(url: url), context: otherLimit))
    }

    private func settledErrorIsCancellation<T>(_ promise: Promise<T>) -> Bool {
        guard case .failure(let error)? = settle(promise) else { return false }
        return isCancellation(error)
    }
}
