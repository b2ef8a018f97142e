import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `dump()` and the debugger's `po` walk stored properties, not descriptions: a client, its
/// configuration and the live objects of a request (a streamed body, its readers, an event
/// source, a download's resumption) must not lead them to a credential.
final class DumpRedactionTests: XCTestCase {
    private let token = "dump-tok-7c2e91"

    private func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text, maxDepth: 40)
        return text
    }

    private func configuration() throws -> NetworkClient.Configuration {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "https://api.example.test")))
        configuration.defaultHeaders["Authorization"] = "Bearer \(token)"
        configuration.defaultHeaders["Cookie"] = "session=\(token)"
        return configuration
    }

    func test_givenAClientWithCredentialHeaders_whenItOrItsConfigurationIsDumped_thenNoSecretAppears() throws {
        let client = NetworkClient(configuration: try configuration())
        for text in [dumped(client), dumped(client.configuration)] {
            XCTAssertFalse(text.contains(token), text)
            XCTAssertTrue(text.contains("api.example.test"), "the dump should still say something useful: \(text)")
        }
    }

    func test_givenALiveStreamAndItsReaders_whenDumped_thenNoSecretAppears() async throws {
        let clock = VirtualClock()
        let pieces = ["data: a\n\n", "data: b\n\n"].map { Data($0.utf8) }
        let client = NetworkClient.stubbing()
            .stub(.get, "feed", .streaming(pieces, every: 10, headers: ["Content-Type": "text/event-stream"]))
            .clock(clock)
            .makeClient(configuration: try configuration())
        let streamed = try await client.stream(StubJSONEndpoint(path: "feed", timeout: 60))
        let values: [Any] = [streamed, streamed.makeAsyncIterator(), streamed.lines, streamed.events,
                             streamed.events.makeAsyncIterator()]
        for value in values {
            let text = dumped(value)
            XCTAssertFalse(text.contains(token), text)
        }
        let source = client.events(StubJSONEndpoint(path: "feed", timeout: 60))
        XCTAssertFalse(dumped(source.makeAsyncIterator()).contains(token))
    }

    func test_givenADownloadHeldOnItsResumption_whenTheResumptionIsDumped_thenNoSecretAppears() throws {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(30).body(Data("file".utf8)).clock(clock).makeClient(configuration: try configuration())
        let folder = try makeScratchFolder("dump-download")
        defer { removeScratchFolder(folder) }
        let resumption = DownloadResumption()
        let download = client.download(StubJSONEndpoint(path: "file", timeout: 60), to: folder.appendingPathComponent("f"), resumption: resumption)
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2))
        let text = dumped(resumption)
        XCTAssertFalse(text.contains(token), text)
        XCTAssertFalse(dumped(download).contains(token))
        download.cancel()
    }

    func test_givenAURLSessionTransportWithCredentialHeaders_whenDumped_thenNoSecretAppears() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer \(token)"]
        let text = dumped(URLSessionTransport(configuration: configuration))
        XCTAssertFalse(text.contains(token), text)
        XCTAssertTrue(text.contains("Authorization"), "the names may show: \(text)")
    }

    /// Credentials on the endpoint itself (a header, a query item) reach the client's list of
    /// live work through an event source's loop.
    func test_givenAnEventSourceWhoseEndpointCarriesACredential_whenItsIteratorIsDumped_thenNoSecretAppears() throws {
        let client = NetworkClient.stubbing()
            .stub(.get, "feed", .events([ServerSentEvent(data: "a"), ServerSentEvent(data: "b")], every: 0))
            .makeClient()
        let endpoint = Request<JSON>("feed", query: [URLQueryItem(name: "access_token", value: token)],
                                     headers: ["Authorization": "Bearer \(token)"], timeout: 60)
        // The loop is listed for `cancelAll` from the moment it is made, with its endpoint.
        let iterator = client.events(endpoint, reconnection: .never).makeAsyncIterator()
        XCTAssertEqual(client.core.liveRequests.snapshot().count, 1)
        let text = dumped(iterator)
        XCTAssertFalse(text.contains(token), text)
    }
}
