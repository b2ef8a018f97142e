import Foundation
import Promises
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two ways `URLSessionTransport` sends a file (from memory on Linux up to a size and within
/// a budget, else an upload task), each through a redirect that keeps the body and a credential
/// answered to a `Basic` challenge; and the budget given back whatever way a request ends.
final class UploadPathIntegrationTests: IntegrationTestCase {
    private var folder: URL!
    private var savedLargest: Int64 = 0

    override func setUpWithError() throws {
        folder = try makeScratchFolder("UploadPath")
        savedLargest = UploadFromMemory.largestFile.withLock { $0 }
    }

    override func tearDown() {
        UploadFromMemory.largestFile.withLock { $0 = savedLargest }
        removeScratchFolder(folder)
    }

    private func sendThroughRedirectAndChallenge(file size: Int) throws {
        let file = try writeFile(Data(repeating: UInt8(ascii: "f"), count: size), in: folder)
        let redirect = [URLQueryItem(name: "url", value: "/anything/moved"), URLQueryItem(name: "status", value: "307")]
        let redirected = try value(of: try makeClient().request(
            LiveEndpoint<ServerEcho>(path: "redirect-to", method: .put, query: redirect, body: .file(file, contentType: "text/plain"))))
        XCTAssertEqual(redirected.body.count, size, "the file follows the 307")

        let transport = URLSessionTransport(challengeHandler: { challenge in
            challenge.previousFailureCount == 0
                ? .useCredential(URLCredential(user: "reporter", password: "s3cret", persistence: .none)) : .performDefaultHandling
        })
        let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: transport)
        let json = try value(of: client.request(
            LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", method: .put, body: .file(file, contentType: "text/plain"))))
        XCTAssertEqual(json["body_length"].int, size, "the file is sent again with the credential")
    }

    func test_givenAFileSentFromMemory_thenRedirectsAndCredentialsResendItWhole() throws {
        try sendThroughRedirectAndChallenge(file: 50_000)
    }

    func test_givenAFileSentByAnUploadTask_thenRedirectsAndCredentialsResendItWhole() throws {
        UploadFromMemory.largestFile.withLock { $0 = 0 }   // every file through the upload task
        try sendThroughRedirectAndChallenge(file: 50_000)
    }

    func test_givenTheBudget_thenItIsTakenUpToItsSizeAndGivenBack() {
        let before = UploadFromMemory.bytesInUse
        XCTAssertTrue(UploadFromMemory.reserve(UploadFromMemory.budget - before))
        XCTAssertFalse(UploadFromMemory.reserve(1), "nothing past the budget")
        UploadFromMemory.release(UploadFromMemory.budget - before)
        XCTAssertEqual(UploadFromMemory.bytesInUse, before)
    }

    func test_givenUploadsThatSucceedFailAndAreCancelled_thenTheBudgetIsGivenBackInFull() throws {
        let file = try writeFile(Data(repeating: 1, count: 200_000), in: folder)
        let client = try makeClient()
        let redirect = [URLQueryItem(name: "url", value: "/anything"), URLQueryItem(name: "status", value: "307")]
        let group = DispatchGroup()
        for index in 0..<60 {
            let path = ["anything", "status/500", "redirect-to"][index % 3]
            let endpoint = LiveJSONEndpoint(path: path, method: .put, query: index % 3 == 2 ? redirect : [],
                                            body: .file(file, contentType: "application/octet-stream"), timeout: 20)
            group.enter()
            let promise = client.request(endpoint)
            _ = promise.tap { _ in group.leave() }
            if index.isMultiple(of: 4) {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...10))) { promise.cancel() }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        // A cancelled request settles at once; its task gives the budget back when it ends.
        let givenBack = expectation(for: NSPredicate { _, _ in UploadFromMemory.bytesInUse == 0 }, evaluatedWith: nil)
        wait(for: [givenBack], timeout: 10)
    }
}
