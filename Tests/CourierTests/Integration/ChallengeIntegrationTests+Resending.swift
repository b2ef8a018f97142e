import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a credential answer may resend. FoundationNetworking resends the *original* request with
/// the credential: after a redirect it would go to the first URL, a redirect after it would bring
/// that request back, and a streamed body would arrive empty. On Linux the transport then
/// delivers the `401` instead (or refuses the later redirect).
extension ChallengeIntegrationTests {
    func test_givenAChallengeAfterARedirect_thenTheCredentialIsNotSentToTheFirstURL() throws {
        let log = ChallengeLog()
        let client = try makeClient(log: log, answer: Self.rightCredentialOnce)
        let endpoint = LiveJSONEndpoint(path: "redirect-to", query: [URLQueryItem(name: "url", value: "/basic-auth/reporter/s3cret")],
                                        timeout: 20)

        let result = settle(client.request(endpoint), within: 15)

        #if canImport(FoundationNetworking)
        XCTAssertEqual(result.map { errorKind($0.failure ?? PromiseError.cancelled) }, "clientError(401)",
                       "FoundationNetworking would resend /redirect-to with the credential")
        #else
        XCTAssertEqual(try result?.get()["user"].string, "reporter")
        #endif
        XCTAssertEqual(log.all.count, 1)
    }

    func test_givenARedirectAfterTheCredentialWasAccepted_thenItIsRefusedInsteadOfReplayingTheRequest() throws {
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let endpoint = LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", query: [URLQueryItem(name: "then", value: "/anything")],
                                        timeout: 20)

        let result = settle(client.request(endpoint), within: 15)

        #if canImport(FoundationNetworking)
        guard case .failure(NetworkError.invalidRequest(let reason))? = result else {
            return XCTFail("expected invalidRequest, got \(String(describing: result))")
        }
        XCTAssertTrue(reason.contains("authentication challenge"), reason)
        #else
        XCTAssertEqual(try result?.get()["path"].string, "/anything")
        #endif
    }

    func test_givenAStreamThatAcceptsThe401AndACredential_thenTheStreamHoldsOnlyThe401sBody() async throws {
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let (status, body) = try await streamAccepting401(with: client)
        let json = try JSON(data: body)   // throws when a second response's body follows the first
        #if canImport(FoundationNetworking)
        XCTAssertEqual(status, 401, "the head went to the stream before the challenge")
        XCTAssertEqual(json["metadata"]["desc"].string, "credentials required")
        #else
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["user"].string, "reporter")
        #endif
    }

    func test_givenAStreamedBodyFromAPlugin_thenTheCredentialIsNotAnsweredWithAnEmptyBody() throws {
        struct StreamedBody: RequestPlugin {
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                var request = request
                request.httpBody = nil
                request.httpBodyStream = InputStream(data: Data(repeating: UInt8(ascii: "z"), count: 2_000))
                return request
            }
        }
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce, configure: { $0.plugins = [StreamedBody()] })
        let endpoint = LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", method: .post, timeout: 20)

        let result = settle(client.request(endpoint), within: 15)

        #if canImport(FoundationNetworking)
        XCTAssertEqual(result.map { errorKind($0.failure ?? PromiseError.cancelled) }, "clientError(401)",
                       "FoundationNetworking would resend the request with an empty body")
        #else
        XCTAssertEqual(try result?.get()["body_length"].int, 2_000)
        #endif
    }

    func test_givenADownloadAnsweredWithTheCredential_thenProgressCountsTheSecondBodyOnly() throws {
        let folder = try makeScratchFolder("ChallengeIT")
        defer { removeScratchFolder(folder) }
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let queue = DispatchQueue(label: "challenge.progress")
        let reports = ReportLog()
        let destination = folder.appendingPathComponent("report.json")

        let file = try value(of: client.download(protected, to: destination, progress: ProgressHandler(queue: queue) { reports.add($0) }),
                             within: 15)
        queue.sync {}

        let size = try Data(contentsOf: file.fileURL).count
        XCTAssertEqual(reports.all.last?.bytesReceived, Int64(size))
    }

    func test_givenAnUploadAnsweredWithTheCredential_thenProgressCountsTheBodyOnce() throws {
        let client = try makeClient(log: ChallengeLog(), answer: Self.rightCredentialOnce)
        let body = Data(repeating: UInt8(ascii: "x"), count: 64 * 1_024)
        let endpoint = LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", method: .post, body: .data(body, contentType: "text/plain"),
                                        timeout: 20)
        let queue = DispatchQueue(label: "challenge.progress")
        let reports = ReportLog()

        let json = try value(of: client.request(endpoint, progress: ProgressHandler(queue: queue) { reports.add($0) }), within: 15)
        queue.sync {}

        XCTAssertEqual(json["body_length"].int, body.count)
        XCTAssertEqual(reports.all.map(\.bytesSent).max(), Int64(body.count), "never more than the body")
        XCTAssertEqual(reports.all.last?.bytesSent, Int64(body.count))
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
