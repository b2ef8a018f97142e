import Courier
import Foundation
import Promises
import XCTest

/// Redirects of requests with a body. A 301, 302 or 303 turns a `POST` into a `GET` without a body
/// (as URLSession does everywhere); a 307 or 308 keeps the method and must keep the body, which
/// FoundationNetworking does not: on Linux it sends `Content-Length: 0`, so the transport refuses
/// such a redirect instead of letting an empty request look like a success.
final class RedirectBodyIntegrationTests: IntegrationTestCase {
    private let bodies: [(name: String, body: RequestBody)] = [
        ("json", .json(["item": "a"])),
        ("data", .data(Data(repeating: UInt8(ascii: "d"), count: 3_000), contentType: "text/plain")),
        ("form", .form(["item": "a"])),
    ]

    private func redirect(_ status: Int, method: HTTPMethod = .post, body: RequestBody) -> LiveEndpoint<ServerEcho> {
        let query = [URLQueryItem(name: "url", value: "/anything/next"), URLQueryItem(name: "status", value: "\(status)")]
        return LiveEndpoint<ServerEcho>(path: "redirect-to", method: method, query: query, body: body, timeout: 10)
    }

    func test_givenA307Or308OfAPostWithABody_thenTheBodyArrivesOrTheRequestFailsClearly() throws {
        let client = try makeClient()
        for status in [307, 308] {
            for (name, body) in bodies {
                let result = settle(client.request(redirect(status, body: body)))
                #if canImport(FoundationNetworking)
                guard case .failure(NetworkError.invalidRequest(let reason))? = result else {
                    XCTFail("\(status) \(name): expected invalidRequest, got \(String(describing: result))")
                    continue
                }
                XCTAssertTrue(reason.contains("\(status) redirect of a request with a body"), "\(status) \(name): \(reason)")
                #else
                let echo = try XCTUnwrap(try result?.get(), "\(status) \(name)")
                XCTAssertEqual(echo.method, "POST")
                XCTAssertFalse(echo.body.isEmpty, "\(status) \(name): the body must follow a \(status)")
                #endif
            }
        }
    }

    func test_givenA301To303OfAPostWithABody_thenTheRedirectIsFollowedAsAGetWithoutABody() throws {
        let client = try makeClient()
        for status in [301, 302, 303] {
            for (name, body) in bodies {
                let echo = try value(of: client.request(redirect(status, body: body)))
                XCTAssertEqual(echo.method, "GET", "\(status) \(name)")
                XCTAssertEqual(echo.path, "/anything/next", "\(status) \(name)")
                XCTAssertEqual(echo.body, "", "\(status) \(name)")
            }
        }
    }

    func test_givenA307OfARequestWithoutABody_thenItIsFollowedWithItsMethod() throws {
        let client = try makeClient()
        let delete = try value(of: client.request(redirect(307, method: .delete, body: .none)))
        XCTAssertEqual(delete.method, "DELETE")
        XCTAssertEqual(delete.path, "/anything/next")
        let get = try value(of: client.request(redirect(308, method: .get, body: .none)))
        XCTAssertEqual(get.method, "GET")
        XCTAssertEqual(get.path, "/anything/next")
    }
}
