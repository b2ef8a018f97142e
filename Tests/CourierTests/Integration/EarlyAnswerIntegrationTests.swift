import Courier
import Foundation
import Promises
import XCTest

/// A server that answers before it has read the request body (nginx's `413` for a body over
/// `client_max_body_size`, an early `401`): the client is still sending when the answer arrives,
/// and the caller must get that answer, typed, with its metadata.
final class EarlyAnswerIntegrationTests: IntegrationTestCase {
    private let large = Data(repeating: UInt8(ascii: "u"), count: 8 * 1_024 * 1_024)

    func test_givenALargeDataBody_whenTheServerAnswers413BeforeReadingIt_thenTheCallerGetsThe413() throws {
        let client = try makeClient()
        let endpoint = LiveJSONEndpoint(path: "reject-early/413", method: .post, body: .data(large, contentType: "application/octet-stream"),
                                        timeout: 20)

        let error = failure(of: client.request(endpoint), within: 25)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(413)")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "request body too large")
    }

    func test_givenALargeFileUpload_whenTheServerAnswers413BeforeReadingIt_thenTheCallerGetsThe413() throws {
        let folder = try makeScratchFolder("EarlyAnswer")
        defer { removeScratchFolder(folder) }
        let file = try writeFile(large, in: folder)
        let client = try makeClient()
        let endpoint = LiveJSONEndpoint(path: "reject-early/413", method: .put, body: .file(file, contentType: "application/octet-stream"),
                                        timeout: 20)

        let error = failure(of: client.request(endpoint), within: 25)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(413)")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "request body too large")
    }
}
