import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Authentication challenges over URLSession against the loopback server's `/basic-auth/<user>/<password>`,
/// which answers a missing or wrong credential with `401`, `WWW-Authenticate: Basic realm="courier"`
/// and a metadata body. FoundationNetworking, left to itself, never finishes such a request.
final class ChallengeIntegrationTests: IntegrationTestCase {
    /// What a handler was asked: each challenge's method, host, realm and failure count.
    // @unchecked Sendable: `asked` is only read and written while holding `lock`.
    final class ChallengeLog: @unchecked Sendable {
        private let lock = NSLock()
        private var asked: [(method: String, host: String, realm: String?, failures: Int)] = []

        func record(_ challenge: URLAuthenticationChallenge) {
            let space = challenge.protectionSpace
            lock.withLock { asked.append((space.authenticationMethod, space.host, space.realm, challenge.previousFailureCount)) }
        }

        var all: [(method: String, host: String, realm: String?, failures: Int)] { lock.withLock { asked } }
    }

    /// A client over a transport whose challenges `answer` decides, each one recorded in `log`.
    func makeClient(log: ChallengeLog, answer: @escaping @Sendable (URLAuthenticationChallenge) -> URLSessionTransport.ChallengeAnswer,
                            configure: (inout NetworkClient.Configuration) -> Void = { _ in }) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try server.baseURL)
        configure(&configuration)
        let transport = URLSessionTransport(challengeHandler: { challenge in
            log.record(challenge)
            return answer(challenge)
        })
        return NetworkClient(configuration: configuration, transport: transport)
    }

    static func credential(_ password: String) -> URLCredential {
        URLCredential(user: "reporter", password: password, persistence: .none)
    }

    /// The right credential for the first challenge, then the default handling.
    @Sendable static func rightCredentialOnce(_ challenge: URLAuthenticationChallenge) -> URLSessionTransport.ChallengeAnswer {
        challenge.previousFailureCount == 0 ? .useCredential(credential("s3cret")) : .performDefaultHandling
    }

    let protected = LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", timeout: 20)

    func test_givenABasicChallengeAndNoHandler_thenThe401ArrivesWithItsMetadataInsteadOfATimeout() throws {
        let client = try makeClient()
        let started = Date()

        let error = failure(of: client.request(protected), within: 15)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(401)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "delivered at once, not when the 20 s deadline passes")
        let networkError = error as? NetworkError
        XCTAssertEqual(networkError?.metadata?.message, "credentials required", "the 401's body is read")
        XCTAssertEqual(networkError?.response?.header("www-authenticate"), #"Basic realm="courier""#)
    }

    func test_givenAHandlerWithTheRightCredential_thenTheRequestSucceedsWithTheSecondResponseAlone() throws {
        let log = ChallengeLog()
        let client = try makeClient(log: log, answer: Self.rightCredentialOnce)

        let response = try value(of: client.response(for: protected), within: 15)

        XCTAssertEqual(response.statusCode, 200)
        let json = try JSON(data: response.body)   // throws if the 401's body were still in front of it
        XCTAssertEqual(json["user"].string, "reporter")
        XCTAssertEqual(json["authenticated"].bool, true)
        XCTAssertEqual(log.all.count, 1)
        XCTAssertEqual(log.all.first?.method, NSURLAuthenticationMethodHTTPBasic)
        XCTAssertEqual(log.all.first?.host, "127.0.0.1")
        XCTAssertEqual(log.all.first?.realm, "courier")
    }

    func test_givenAWrongCredentialAndAHandlerThatGivesUpAfterOneFailure_thenThe401IsDelivered() throws {
        let log = ChallengeLog()
        let client = try makeClient(log: log) { challenge in
            challenge.previousFailureCount == 0 ? .useCredential(Self.credential("wrong")) : .performDefaultHandling
        }

        let error = failure(of: client.request(protected), within: 15)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(401)")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "credentials required")
        XCTAssertEqual(log.all.map(\.failures), [0, 1])
    }

    func test_givenAHandlerThatAlwaysAnswersWrongly_thenItIsAskedAtMostTheLimitAndThe401Arrives() throws {
        let log = ChallengeLog()
        let client = try makeClient(log: log) { _ in .useCredential(Self.credential("wrong")) }

        let error = failure(of: client.request(protected), within: 15)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(401)")
        XCTAssertEqual(log.all.map(\.failures), Array(0..<URLSessionTransport.maximumChallengeFailures))
    }

    func test_givenAHandlerThatCancels_thenAuthenticationFailedAndTheRetryPolicyDoesNotRetry() throws {
        let log = ChallengeLog()
        let client = try makeClient(log: log, answer: { _ in .cancel }) {
            $0.retryPolicy = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1))
        }

        let error = failure(of: client.request(protected), within: 15)

        guard case .authenticationFailed(let underlying)? = error as? NetworkError else {
            return XCTFail("expected authenticationFailed, got \(String(describing: error))")
        }
        XCTAssertEqual((underlying as? URLError)?.code, .userCancelledAuthentication)
        XCTAssertEqual(log.all.count, 1, "a refused challenge is not retried")
    }

    func test_givenABasicChallengeOnADownload_thenThe401ArrivesWithItsMetadata() throws {
        let folder = try makeScratchFolder("ChallengeIT")
        defer { removeScratchFolder(folder) }
        let client = try makeClient()
        let destination = folder.appendingPathComponent("report.json")

        let error = failure(of: client.download(protected, to: destination), within: 15)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(401)")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "credentials required")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func test_givenABasicChallengeOnADownloadAnsweredWithTheCredential_thenTheFileHoldsOnlyTheSecondBody() throws {
        let folder = try makeScratchFolder("ChallengeIT")
        defer { removeScratchFolder(folder) }
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let destination = folder.appendingPathComponent("report.json")

        let file = try value(of: client.download(protected, to: destination), within: 15)

        XCTAssertEqual(file.response.statusCode, 200)
        XCTAssertEqual(try JSON(data: Data(contentsOf: destination))["user"].string, "reporter")
    }

    func test_givenABasicChallengeOnAStream_thenItThrowsThe401() async throws {
        let client = try makeClient()
        let endpoint = protected
        do {
            _ = try await bounded { try await client.stream(endpoint) }
            XCTFail("a 401 must throw")
        } catch let error as NetworkError {
            XCTAssertEqual(error.statusCode, 401)
            XCTAssertEqual(error.metadata?.message, "credentials required")
        }
    }
}

extension ChallengeIntegrationTests {
    func test_givenAPostAnsweredWithTheCredential_thenTheSecondRequestCarriesTheBodyAgain() throws {
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let body = Data(repeating: UInt8(ascii: "x"), count: 3_000)
        let endpoint = LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", method: .post, body: .data(body, contentType: "text/plain"), timeout: 20)

        let json = try value(of: client.request(endpoint), within: 15)

        XCTAssertEqual(json["authenticated"].bool, true)
        XCTAssertEqual(json["body_length"].int, body.count)
    }

    func test_givenAFileUploadAnsweredWithTheCredential_thenTheSecondRequestCarriesTheFileAgain() throws {
        let folder = try makeScratchFolder("ChallengeIT")
        defer { removeScratchFolder(folder) }
        let file = try writeFile(Data(repeating: UInt8(ascii: "y"), count: 5_000), in: folder)
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let endpoint = LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", method: .put, body: .file(file, contentType: "text/plain"), timeout: 20)

        let json = try value(of: client.request(endpoint), within: 15)

        XCTAssertEqual(json["authenticated"].bool, true)
        XCTAssertEqual(json["body_length"].int, 5_000)
    }
}

extension ChallengeIntegrationTests {
    /// Streams the protected route with an endpoint that accepts its `401`: the status and the whole body.
    func streamAccepting401(with client: NetworkClient) async throws -> (status: Int, body: Data) {
        let endpoint = Request<EmptyResponse>("basic-auth/reporter/s3cret", timeout: 20, acceptedStatusCodes: [200, 401])
        return try await bounded {
            let streamed = try await client.stream(endpoint)
            var body = Data()
            for try await piece in streamed { body.append(piece) }
            return (streamed.response.statusCode, body)
        }
    }

    func test_givenAStreamThatAcceptsThe401_thenItsBodyIsStreamedToTheEnd() async throws {
        let (status, body) = try await streamAccepting401(with: try makeClient())
        XCTAssertEqual(status, 401)
        XCTAssertEqual(try JSON(data: body)["metadata"]["desc"].string, "credentials required",
                       "the whole body arrives and the stream ends without an error")
    }
}
