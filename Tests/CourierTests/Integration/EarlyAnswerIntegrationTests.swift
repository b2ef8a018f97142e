import Courier
import Foundation
import Promises
import XCTest

/// A server that answers before it has read the request body (nginx's `413` for a body over
/// `client_max_body_size`, an early `401`): the client is still sending when the answer arrives,
/// and the caller must get that answer, typed, with its metadata.
final class EarlyAnswerIntegrationTests: IntegrationTestCase {
    private let large = Data(repeating: UInt8(ascii: "u"), count: 8 * 1_024 * 1_024)

    /// Sends `body` to the route that answers `413` before reading it, and checks the caller gets that answer.
    private func assertTheEarly413Arrives(sending body: RequestBody, method: HTTPMethod,
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        let endpoint = LiveJSONEndpoint(path: "reject-early/413", method: method, body: body, timeout: 20)

        let error = failure(of: try makeClient().request(endpoint), within: 25, file: file, line: line)

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(413)", file: file, line: line)
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "request body too large", file: file, line: line)
    }

    func test_givenALargeDataBody_whenTheServerAnswers413BeforeReadingIt_thenTheCallerGetsThe413() throws {
        try assertTheEarly413Arrives(sending: .data(large, contentType: "application/octet-stream"), method: .post)
    }

    func test_givenALargeFileUpload_whenTheServerAnswers413BeforeReadingIt_thenTheCallerGetsThe413() throws {
        let folder = try makeScratchFolder("EarlyAnswer")
        defer { removeScratchFolder(folder) }
        let file = try writeFile(large, in: folder)
        try assertTheEarly413Arrives(sending: .file(file, contentType: "application/octet-stream"), method: .put)
    }
}
