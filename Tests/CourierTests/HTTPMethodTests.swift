import Foundation
import XCTest
@testable import Courier

final class HTTPMethodTests: XCTestCase {
    func test_givenStandardMethods_whenAskedIdempotent_thenMatchesRFC9110() {
        let table: [(HTTPMethod, String, Bool)] = [
            (.get, "GET", true), (.head, "HEAD", true), (.options, "OPTIONS", true), (.trace, "TRACE", true),
            (.put, "PUT", true), (.delete, "DELETE", true),
            (.post, "POST", false), (.patch, "PATCH", false), (.connect, "CONNECT", false), ("PROPFIND", "PROPFIND", false),
        ]
        for (method, raw, idempotent) in table {
            XCTAssertEqual(method.rawValue, raw)
            XCTAssertEqual(method.isIdempotent, idempotent, raw)
        }
    }

    func test_givenLowercaseToken_whenCreated_thenUppercasedAndEqualToStatic() {
        XCTAssertEqual(HTTPMethod(rawValue: "get"), .get)
        XCTAssertEqual("patch" as HTTPMethod, .patch)
        XCTAssertTrue(HTTPMethod(rawValue: "delete").isIdempotent)
        XCTAssertEqual(Set<HTTPMethod>([.get, "GET", "get"]).count, 1)
        XCTAssertEqual(HTTPMethod.post.description, "POST")
    }
}
