import Foundation
import XCTest
@testable import Courier

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestBody.urlEncodedObject(_:encoder:)` and `URLFormEncoder.encode(object:)`: a dictionary
/// built at run time, sent as a form or a query string.
final class URLEncodedObjectTests: XCTestCase {
    /// Not `Encodable`, and holding something that must not appear in an error.
    private final class Vault: Sendable { let password = "hunter2" }

    private let parameters: [String: any Sendable] = [
        "q": "swift & ios", "page": 2, "exact": true, "score": 1.5, "tags": ["a", "b"],
        "filter": ["owner": "ada", "since": 2020] as [String: any Sendable],
        "cleared": NSNull(), "missing": Optional<String>.none, "flag": NSNumber(value: false),
    ]

    func test_givenMixedValues_whenEncodedAsQueryItems_thenEachIsWrittenAsAFormFieldInKeyOrder() throws {
        let items = try URLFormEncoder().encode(object: parameters)
        XCTAssertEqual(items.map { "\($0.name)=\($0.value ?? "nil")" }, [
            "exact=1", "filter[owner]=ada", "filter[since]=2020", "flag=0", "page=2", "q=swift & ios",
            "score=1.5", "tags[]=a", "tags[]=b",
        ], "nulls left out, Booleans as 1/0, nested values bracketed")
    }

    func test_givenAnEncoderWithOtherStyles_whenEncoded_thenItsStylesApply() throws {
        let encoder = URLFormEncoder(arrays: .repeatedName, bools: .literal)
        let items = try encoder.encode(object: ["tags": ["a", "b"], "exact": true])
        XCTAssertEqual(items.map { "\($0.name)=\($0.value ?? "nil")" }, ["exact=true", "tags=a", "tags=b"])
    }

    func test_givenABody_whenEncoded_thenItIsAPercentEncodedFormWithItsContentType() throws {
        let encoded = try RequestBody.urlEncodedObject(["q": "swift & ios", "page": 2]).encoded(using: JSONEncoder())
        XCTAssertEqual(encoded.contentType, "application/x-www-form-urlencoded")
        XCTAssertEqual(encoded.data.map { String(decoding: $0, as: UTF8.self) }, "page=2&q=swift%20%26%20ios")
    }

    func test_givenAValueThatIsNotEncodable_whenSent_thenInvalidRequestNamesItsPathButNotItsContent() {
        let body = RequestBody.urlEncodedObject(["account": ["vault": Vault()] as [String: any Sendable]])
        XCTAssertThrowsError(try body.encoded(using: JSONEncoder())) { error in
            guard case NetworkError.invalidRequest(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("account.vault"), reason)
            XCTAssertFalse(reason.contains("hunter2"), reason)
        }
        XCTAssertThrowsError(try URLFormEncoder().encode(object: ["vault": Vault()])) { error in
            XCTAssertTrue(error is EncodingError, "\(error)")
            XCTAssertFalse("\(error)".contains("hunter2"))
        }
    }

    func test_givenAClient_whenAnEndpointSendsTheForm_thenTheRequestCarriesIt() throws {
        let client = NetworkClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!))
        let query = try URLFormEncoder().encode(object: ["page": 2, "tags": ["a"]])
        let request = try client.makeURLRequest(for: Request<JSON>(
            "search", method: .post, query: query, body: .urlEncodedObject(["q": "swift"])))
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/search?page=2&tags%5B%5D=a")
        XCTAssertEqual(request.httpBody.map { String(decoding: $0, as: UTF8.self) }, "q=swift")
    }
}
