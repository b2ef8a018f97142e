import Courier
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stream(_:)` over URLSession against the local server: pieces and events arrive while the body
/// is still being sent (some of these bodies never end), a stalled body times out, leaving the
/// loop closes the connection, and error statuses throw as usual.
final class StreamingIntegrationTests: IntegrationTestCase {
    func test_givenAnEventStreamThatNeverEnds_thenEventsArriveAsTheyAreSent() async throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<EmptyResponse>(path: "events", query: [
            URLQueryItem(name: "count", value: "3"), URLQueryItem(name: "hold", value: "1"),
        ])
        let events = try await bounded {
            let streamed = try await client.stream(endpoint)
            XCTAssertEqual(streamed.response.header("content-type"), "text/event-stream")
            var received: [ServerSentEvent] = []
            for try await event in streamed.events {
                received.append(event)
                if received.count == 3 { break }   // the body is held open: only streaming gets here
            }
            return received
        }
        XCTAssertEqual(events, (1...3).map { ServerSentEvent(event: "tick", data: "tick \($0)\nof 3", id: "\($0)") })
    }

    func test_givenAnEventSourceOverConnectionsThatEnd_thenItResumesAfterTheLastIDUntilThe204() async throws {
        let client = try makeClient()
        // Two events per connection, the server asks for a 20 ms wait, lines end with a lone CR;
        // the server starts after the Last-Event-ID it receives and answers 204 after event 5.
        let endpoint = LiveEndpoint<EmptyResponse>(path: "events", query: [
            URLQueryItem(name: "count", value: "5"), URLQueryItem(name: "per", value: "2"),
            URLQueryItem(name: "retry", value: "20"), URLQueryItem(name: "cr", value: "1"),
        ])
        let started = Date()
        let events = try await bounded {
            try await client.events(endpoint).reduce(into: [ServerSentEvent]()) { $0.append($1) }
        }
        // Three reconnections: the default wait (3 s) would take 3 + 6 + 12 s.
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.9, "the server's retry: 20 was not followed")
        XCTAssertEqual(events, (1...5).map {
            ServerSentEvent(event: "tick", data: "tick \($0)\nof 5", id: "\($0)", retry: 20)
        })
    }

    func test_givenABodySentInPieces_thenEveryByteArrivesInOrder() async throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<EmptyResponse>(path: "drip", query: [URLQueryItem(name: "length", value: "5120")])
        let body = try await bounded {
            try await client.stream(endpoint).reduce(into: Data()) { $0.append($1) }
        }
        XCTAssertEqual(body, Data((0..<5120).map { UInt8($0 % 256) }))
    }

    func test_givenABodyThatStallsAfterItsFirstPiece_thenTheLoopThrowsTimedOut() async throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<EmptyResponse>(
            path: "drip", query: [URLQueryItem(name: "length", value: "none"), URLQueryItem(name: "stall_after", value: "1")],
            timeout: 3)   // covers connecting and the head under a sanitizer; then the idle period
        let (received, error) = try await bounded { () -> (Int, (any Error)?) in
            var received = 0
            do {
                for try await piece in try await client.stream(endpoint) { received += piece.count }
                return (received, nil)
            } catch {
                return (received, error)
            }
        }
        XCTAssertEqual(received, 1024, "the first piece arrived before the stall")
        XCTAssertEqual(error.map(errorKind), "timedOut")
    }

    func test_givenAServerThatSendsNoHead_thenStreamTimesOut() async throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<EmptyResponse>(path: "stall", timeout: 0.5)
        await XCTAssertThrowsAsync(try await bounded { try await client.stream(endpoint) }) { error in
            XCTAssertEqual(errorKind(error), "timedOut")
        }
    }

    func test_givenAnErrorStatus_thenStreamThrowsItWithTheServersMetadata() async throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<EmptyResponse>(path: "status/404")
        await XCTAssertThrowsAsync(try await bounded { try await client.stream(endpoint) }) { error in
            guard case .clientError(404, let metadata?, _)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertFalse(metadata.message?.isEmpty ?? true)
        }
    }

    func test_givenTheReaderStopsAnEndlessBody_thenTheClientCarriesOnWithOtherRequests() async throws {
        // One connection to the server at a time: a transfer left running would hold it, and
        // the next request would never leave.
        let session = URLSessionConfiguration.ephemeral
        session.httpMaximumConnectionsPerHost = 1
        let client = NetworkClient(
            configuration: NetworkClient.Configuration(baseURL: try server.baseURL),
            transport: URLSessionTransport(configuration: session))
        let endless = LiveEndpoint<EmptyResponse>(path: "drip", query: [URLQueryItem(name: "length", value: "none")])
        for _ in 0..<3 {
            let first = try await bounded { () -> Int in
                for try await piece in try await client.stream(endless) { return piece.count }
                return 0
            }
            XCTAssertGreaterThan(first, 0)
        }
        let echo = try await bounded { try await client.send(LiveJSONEndpoint(path: "anything")) }
        XCTAssertEqual(echo["method"].string, "GET")
    }
}
