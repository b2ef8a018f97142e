import Foundation
import XCTest
@testable import Courier

final class JSONTests: XCTestCase {
    private let catalog = Data("""
    {"data": {"products": [{"name": "Lamp", "price": 19.5, "stock": 3, "tags": ["home"], "discontinued": false},
                           {"name": "Desk", "price": 120, "stock": null}]},
     "count": 2}
    """.utf8)

    func test_givenNestedDocument_whenSubscriptChained_thenReadsDeepValues() throws {
        let json = try JSON(data: catalog)
        XCTAssertEqual(json["data"]["products"][0]["name"].string, "Lamp")
        XCTAssertEqual(json["data"]["products"][0]["price"].double, 19.5)
        XCTAssertEqual(json["data"]["products"][1]["price"].int, 120)
        XCTAssertEqual(json["data"]["products"][0]["tags"][0].string, "home")
        XCTAssertEqual(json["data"]["products"][0]["discontinued"].bool, false)
        XCTAssertEqual(json["count"].int, 2)
        XCTAssertEqual(json["data"]["products"].array?.count, 2)
        XCTAssertEqual(json["data"].object?.keys.sorted(), ["products"])
    }

    func test_givenMissingKeyIndexOrWrongKind_whenSubscripted_thenNullNeverCrash() throws {
        let json = try JSON(data: catalog)
        let misses: [(String, JSON)] = [
            ("missing key", json["nope"]),
            ("missing nested key", json["data"]["nope"]["deeper"]),
            ("index past end", json["data"]["products"][2]),
            ("negative index", json["data"]["products"][-1]),
            ("index into object", json["data"][0]),
            ("key into array", json["data"]["products"]["name"]),
            ("key into string", json["data"]["products"][0]["name"]["x"]),
            ("index into number", json["count"][0]),
            ("explicit null", json["data"]["products"][1]["stock"]),
        ]
        for (label, value) in misses {
            XCTAssertTrue(value.isNull, label)
            XCTAssertEqual(value, .null, label)
            XCTAssertNil(value.string, label)
            XCTAssertNil(value.int, label)
        }
        XCTAssertFalse(json["count"].isNull)
    }

    func test_givenValuesOfEachKind_whenTypedAccessorsRead_thenOnlyMatchingKindAnswers() {
        let cases: [(JSON, String?, Int?, Double?, Bool?)] = [
            (.string("42"), "42", nil, nil, nil),
            (.number(42), nil, 42, 42, nil),
            (.number(42.0), nil, 42, 42, nil),
            (.number(-7), nil, -7, -7, nil),
            (.number(42.5), nil, nil, 42.5, nil),
            (.number(1e20), nil, nil, 1e20, nil),
            (.number(9.3e18), nil, nil, 9.3e18, nil),
            (.number(.infinity), nil, nil, .infinity, nil),
            (.bool(true), nil, nil, nil, true),
            (.null, nil, nil, nil, nil),
            (.array([1]), nil, nil, nil, nil),
        ]
        for (value, string, int, double, bool) in cases {
            XCTAssertEqual(value.string, string, "\(value)")
            XCTAssertEqual(value.int, int, "\(value)")
            XCTAssertEqual(value.double, double, "\(value)")
            XCTAssertEqual(value.bool, bool, "\(value)")
        }
    }

    func test_givenIntegersAroundTwoToThe53_whenReadAsInt_thenExactOnesAnswerAndRoundedOnesAreNil() throws {
        let json = try JSON(data: Data(#"""
            {"below": 9007199254740991, "negative": -9007199254740991, "at": 9007199254740992,
             "above": 9007199254740993, "snowflake": 1234567890123456789, "minus": -1234567890123456789,
             "float": 9007199254740991.0}
            """#.utf8))
        XCTAssertEqual(json["below"].int, 9_007_199_254_740_991)
        XCTAssertEqual(json["negative"].int, -9_007_199_254_740_991)
        XCTAssertEqual(json["float"].int, 9_007_199_254_740_991)
        for key in ["at", "above", "snowflake", "minus"] {
            XCTAssertNil(json[key].int, "\(key) would be read as a rounded neighbour")
            XCTAssertNotNil(json[key].double, key)
        }
        let body = HTTPResponse(statusCode: 200, headers: [:], body: Data(#"{"user":{"id":1234567890123456789}}"#.utf8))
        XCTAssertEqual(try body.decoded(Int64.self, atKeyPath: "user.id"), 1_234_567_890_123_456_789, "the exact way the docs name")
    }

    func test_givenBooleansAndNumbers_whenParsed_thenKindsAreKeptApart() throws {
        XCTAssertEqual(try JSON(data: Data("[true, 1, 0, false]".utf8)), [true, 1, 0, false])
        XCTAssertEqual(try JSON(data: Data("1".utf8)).bool, nil)
        XCTAssertEqual(try JSON(data: Data("true".utf8)).int, nil)
    }

    func test_givenTopLevelFragments_whenParsed_thenAccepted() throws {
        XCTAssertEqual(try JSON(data: Data(#""hi""#.utf8)), .string("hi"))
        XCTAssertEqual(try JSON(data: Data("3.25".utf8)), .number(3.25))
        XCTAssertEqual(try JSON(data: Data("null".utf8)), .null)
    }

    func test_givenInvalidText_whenParsed_thenThrows() {
        for text in ["", "{", "<html>502 Bad Gateway</html>", "{'a': 1}", "[1,]x"] {
            XCTAssertThrowsError(try JSON(data: Data(text.utf8)), text)
        }
    }

    func test_givenTenThousandLevelsOfNesting_whenParsed_thenThrowsInsteadOfCrashing() {
        let depth = 10_000
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        XCTAssertThrowsError(try JSON(data: Data(text.utf8)))
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        XCTAssertThrowsError(try JSON(data: Data(objects.utf8)))
    }

    func test_givenModerateNesting_whenParsed_thenReadable() throws {
        let depth = 100
        let text = String(repeating: "[", count: depth) + "7" + String(repeating: "]", count: depth)
        var json = try JSON(data: Data(text.utf8))
        for _ in 0..<depth { json = json[0] }
        XCTAssertEqual(json.int, 7)
    }

    func test_givenAnyValue_whenEncodedAndDecoded_thenRoundTripsEqual() throws {
        let original: JSON = [
            "name": "Ada \"Countess\" Lovelace\n", "age": 36, "ratio": 0.125, "ok": true, "none": nil,
            "list": [1, "two", [3.5, false], ["k": "v"]], "empty": [:], "emptyList": [],
            "unicode": "żółć ☕️", "negative": -0.5,
        ]
        let data = try JSONEncoder().encode(original)
        XCTAssertEqual(try JSONDecoder().decode(JSON.self, from: data), original)
        XCTAssertEqual(try JSON(data: data), original)
        XCTAssertEqual(try JSON(data: Data(original.description.utf8)), original)
    }

    func test_givenValue_whenDescribed_thenCompactSortedJSONText() {
        let json: JSON = ["b": [1, 2.5, nil, true], "a": "x\"y\\z\n\u{1}", "c": ["d": -3]]
        XCTAssertEqual(json.description, #"{"a":"x\"y\\z\n\u0001","b":[1,2.5,null,true],"c":{"d":-3}}"#)
        XCTAssertEqual(JSON.number(.nan).description, "null")
        XCTAssertEqual(JSON.number(1e300).description, "1e+300")
        XCTAssertEqual(JSON.number(0.1).description, "0.1")
    }

    func test_givenLiterals_whenWritten_thenBuildMatchingCases() {
        let json: JSON = ["id": 7, "price": 1.5, "name": "Ada", "admin": false, "tags": ["a"], "boss": nil]
        XCTAssertEqual(json, .object([
            "id": .number(7), "price": .number(1.5), "name": .string("Ada"), "admin": .bool(false),
            "tags": .array([.string("a")]), "boss": .null,
        ]))
    }

    func test_givenSubtree_whenDecodedAsType_thenTypedValue() throws {
        struct Product: Decodable, Equatable { let name: String; let stock: Int? }
        let json = try JSON(data: catalog)
        let product = try json["data"]["products"][0].decoded(as: Product.self)
        XCTAssertEqual(product, Product(name: "Lamp", stock: 3))
        XCTAssertThrowsError(try json["count"].decoded(as: Product.self))
    }

    func test_givenEqualValues_whenHashed_thenSetDeduplicates() {
        let set: Set<JSON> = [["a": 1], ["a": 1], ["a": 2], 1, 1.0]
        XCTAssertEqual(set.count, 3)
    }
}
