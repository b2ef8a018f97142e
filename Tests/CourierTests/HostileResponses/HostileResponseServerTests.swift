import Foundation
import XCTest
import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hostile-response corpus over a real connection: the local test server's `POST /raw` writes each
/// row's bytes to the socket verbatim and the URLSession transport reads them. Every row must end in a
/// typed outcome within its bound — never a crash, never a hang.
///
/// Where the HTTP stack itself treats a row differently from a stub, the row's outcome over the wire is
/// listed in ``wireOutcomes`` with the reason. Those were measured with FoundationNetworking (libcurl)
/// on Linux; on Apple platforms URLSession decides some of them differently, so there either the
/// stubbed outcome or the listed one is accepted — both are typed.
final class HostileResponseServerTests: XCTestCase {
    /// Row name → the outcome over a real connection, where it differs from the stubbed one.
    static let wireOutcomes: [String: HostileOutcome] = [
        // An HTTP/1.1 status line carries exactly three digits: libcurl refuses the response.
        "status 0": .transport, "status 99": .transport, "status 1000": .transport,
        "status 65535": .transport, "status -1": .transport,
        // 1xx is an interim response; the server closes without a final one.
        "status 100": .transport, "status 199": .transport,
        // A redirect is followed: this one leads to a closed port. (A 3xx without a Location is
        // delivered as the response, as with a stub: FoundationNetworking ends the task without
        // a `didReceive response` callback, and the transport reads the task's response instead.)
        // The rows are fetched with a POST: the 307 keeps it and its body (see RedirectBodyIntegrationTests).
        "307 to a closed local port": .transport,
        // A header line without a name is malformed HTTP.
        "empty header name": .transport,
        // The connection closes before the promised Content-Length arrived: a broken transfer.
        "Content-Length larger than the body": .transport,
    ]

    /// The outcomes accepted for `row` over the wire on this platform.
    static func acceptedOutcomes(for row: HostileResponse) -> [HostileOutcome] {
        guard let wire = wireOutcomes[row.name] else { return [row.expected] }
        #if canImport(FoundationNetworking)
        return [wire]
        #else
        return [wire, row.expected]
        #endif
    }

    private let perRowTimeout: TimeInterval = 60

    func test_givenEveryRow_whenServedRawByTheLocalServer_thenTheRequestEndsInItsOutcome() throws {
        let server = try TestServer.shared
        var mismatches: [String] = []
        for row in HostileCorpus.all {
            let client = NetworkClient(baseURL: server.baseURL)
            let actual = outcome(of: row, from: client)
            let expected = Self.acceptedOutcomes(for: row)
            if !expected.contains(where: { $0 == actual }) {
                mismatches.append("\(row.name): expected \(expected), got \(actual.map(String.init(describing:)) ?? "no result")")
            }
        }
        XCTAssertEqual(mismatches, [], mismatches.joined(separator: "\n"))
    }

    func test_givenEveryWireRow_whenServedRawByTheLocalServer_thenTheRequestEndsTyped() throws {
        let server = try TestServer.shared
        var mismatches: [String] = []
        for row in HostileWireCorpus.all {
            #if canImport(FoundationNetworking)
            guard let expected = row.expectedOnLinux else { continue }
            #endif
            let client = NetworkClient(baseURL: server.baseURL)
            let actual = send(row.bytes, named: row.name, decodingAs: .item, from: client)
            #if canImport(FoundationNetworking)
            let acceptable = actual == expected
            #else
            let acceptable = actual.map { if case .other = $0 { false } else { true } } ?? false
            #endif
            if !acceptable {
                mismatches.append("\(row.name): expected \(row.expectedOnLinux.map(String.init(describing:)) ?? "-"), got \(actual.map(String.init(describing:)) ?? "no result")")
            }
        }
        XCTAssertEqual(mismatches, [], mismatches.joined(separator: "\n"))
    }

    /// A declared length the client cannot (or should not) set aside memory for, with the size
    /// limit turned off: the body is read as it comes, and the short transfer ends typed.
    func test_givenAnEnormousDeclaredContentLengthAndNoSizeLimit_whenServed_thenATransportErrorNotACrash() throws {
        let server = try TestServer.shared
        var configuration = NetworkClient.Configuration(baseURL: server.baseURL)
        configuration.maximumResponseSize = .max
        let client = NetworkClient(configuration: configuration)
        for length in ["4611686018427387904", "1099511627776"] {   // 2^62 bytes, 1 TiB
            let raw = Data("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n0123456789".utf8)
            XCTAssertEqual(send(raw, named: "Content-Length \(length)", decodingAs: .item, from: client), .transport)
        }
    }

    // MARK: - Helpers

    /// The bytes of a whole HTTP/1.1 response for `row`: status line, its headers (a `Content-Length`
    /// of the body's size unless the row sets one), `Connection: close`, then the body.
    static func rawResponse(for row: HostileResponse) -> Data {
        var head = "HTTP/1.1 \(row.status) Hostile\r\n"
        for name in row.headers.keys.sorted() {
            head += "\(name): \(row.headers[name] ?? "")\r\n"
        }
        if !row.headers.keys.contains(where: { $0.lowercased() == "content-length" }) {
            head += "Content-Length: \(row.body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        return Data(head.utf8) + row.body
    }

    private func outcome(of row: HostileResponse, from client: NetworkClient) -> HostileOutcome? {
        send(Self.rawResponse(for: row), named: row.name, decodingAs: row.target, from: client)
    }

    /// Asks the server to write `raw` back and waits at most ``perRowTimeout`` for the outcome.
    private func send(_ raw: Data, named name: String, decodingAs target: HostileTarget,
                      from client: NetworkClient) -> HostileOutcome? {
        let finished = expectation(description: name)
        let box = OutcomeSlot()
        let record: @Sendable (HostileOutcome) -> Void = { box.value = $0; finished.fulfill() }
        switch target {
        case .item:
            client.request(RawEndpoint<CorpusItem>(raw: raw)) { record(Self.outcome(of: $0)) }
        case .json:
            client.request(RawEndpoint<JSON>(raw: raw)) { record(Self.outcome(of: $0)) }
        }
        let waited = XCTWaiter().wait(for: [finished], timeout: perRowTimeout)
        XCTAssertEqual(waited, .completed, "row \(name) did not finish within \(perRowTimeout) s")
        return box.value
    }

    private static func outcome<T>(of result: Result<T, NetworkError>) -> HostileOutcome {
        switch result {
        case .success: .decoded
        case .failure(let error): HostileOutcome(error)
        }
    }
}

/// `POST /raw` with the response bytes as the body.
private struct RawEndpoint<Response: Decodable & Sendable>: Endpoint {
    let raw: Data
    var path: String { "raw" }
    var method: HTTPMethod { .post }
    var body: RequestBody { .data(raw, contentType: "application/octet-stream") }
    var timeout: TimeInterval? { 30 }
    var requiresAuthentication: Bool { false }
}

// @unchecked Sendable: `stored` is only touched while holding `lock`.
private final class OutcomeSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: HostileOutcome?

    var value: HostileOutcome? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
