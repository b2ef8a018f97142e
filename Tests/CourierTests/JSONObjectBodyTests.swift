import Foundation
import XCTest
@testable import Courier

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestBody.jsonObject(_:)`: a dictionary built at run time, sent as JSON.
final class JSONObjectBodyTests: XCTestCase {
    private struct Owner: Encodable, Sendable { let fullName: String; let since: Date }
    /// Not `Encodable`, and holding something that must not appear in an error.
    private final class Vault: Sendable { let password = "hunter2" }

    private func sent(_ body: RequestBody, encoder: JSONEncoder = JSONEncoder()) throws -> JSON {
        let encoded = try body.encoded(using: encoder)
        XCTAssertEqual(encoded.contentType, "application/json")
        return try JSON(data: XCTUnwrap(encoded.data))
    }

    func test_givenMixedNestedValues_whenEncoded_thenEachIsItsJSONKindAndNullsAreNull() throws {
        let name = "Ada"
        let age = 36
        let json = try sent(.jsonObject([
            "name": name, "age": age, "admin": true, "score": 1.5, "tags": ["swift", "ios"],
            "address": ["city": "London", "zip": Optional<String>.none] as [String: any Sendable],
            "items": [1, "two", ["three": 3] as [String: any Sendable]] as [any Sendable],
            "cleared": NSNull(), "vault": Optional<Vault>.none, "already": ["x": 1] as JSON,
        ]))
        XCTAssertEqual(json, [
            "name": "Ada", "age": 36, "admin": true, "score": 1.5, "tags": ["swift", "ios"],
            "address": ["city": "London", "zip": nil], "items": [1, "two", ["three": 3]],
            "cleared": nil, "vault": nil, "already": ["x": 1],
        ])
        XCTAssertEqual(json["admin"].bool, true, "a Bool stays a Bool, not 1")
    }

    func test_givenFoundationValues_whenEncoded_thenNSNumbersKeepTheirKindAndNestedNilOptionalsAreNull() throws {
        // What `JSONSerialization` and Objective-C hand over: numbers and Booleans as `NSNumber`.
        let fromFoundation: [String: any Sendable] = [
            "on": NSNumber(value: true), "n": NSNumber(value: 3), "x": NSNumber(value: 1.5),
            "list": [NSNumber(value: false), NSNumber(value: 7)] as [any Sendable],
        ]
        let json = try sent(.jsonObject([
            "parsed": fromFoundation, "big": NSNumber(value: UInt64.max), "small": NSNumber(value: Int8(-3)),
            "flag": NSNumber(value: false), "twice": (Vault??).some(nil),
        ]))
        XCTAssertEqual(json["parsed"], ["on": true, "n": 3, "x": 1.5, "list": [false, 7]])
        XCTAssertEqual(json["parsed"]["on"].bool, true, "a Foundation Boolean stays a Boolean")
        XCTAssertEqual(json["flag"].bool, false)
        XCTAssertEqual(json["small"].int, -3)
        XCTAssertEqual(json["big"].double, Double(UInt64.max))
        XCTAssertEqual(json["twice"], nil)
    }

    func test_givenAKeyStrategy_whenEncoded_thenTheDictionarysKeysAreAsWrittenAndTheEncodersStrategiesApplyToTypes() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        let json = try sent(
            .jsonObject(["userName": "ada", "owner": Owner(fullName: "Ada L", since: Date(timeIntervalSince1970: 7))]),
            encoder: encoder)
        XCTAssertEqual(json, ["userName": "ada", "owner": ["full_name": "Ada L", "since": 7]])
    }

    func test_givenAValueThatIsNotJSON_whenEncoded_thenInvalidRequestNamesItsPathAndTypeButNotItsContent() {
        let body = RequestBody.jsonObject(["account": ["vault": Vault()] as [String: any Sendable]])
        XCTAssertThrowsError(try body.encoded(using: JSONEncoder())) { error in
            guard case NetworkError.invalidRequest(let reason) = error else {
                return XCTFail("expected invalidRequest, got \(error)")
            }
            XCTAssertTrue(reason.contains("account.vault"), reason)
            XCTAssertTrue(reason.contains("Vault"), reason)
            XCTAssertTrue(reason.contains("a dictionary"), reason)
            XCTAssertFalse(reason.contains("hunter2"), reason)
            XCTAssertFalse(reason.contains("JSONObjectBody"), "no internal type names: \(reason)")
        }
    }

    func test_givenAClient_whenAnEndpointSendsAJSONObject_thenTheRequestCarriesItWithItsContentType() throws {
        let client = NetworkClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!))
        let request = try client.makeURLRequest(for: Request<JSON>.post("users", body: .jsonObject(["name": "Ada", "age": 36])))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(try JSON(data: XCTUnwrap(request.httpBody)), ["name": "Ada", "age": 36])
    }
}
