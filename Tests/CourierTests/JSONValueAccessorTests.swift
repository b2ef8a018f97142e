import Foundation
import XCTest
import Courier

/// `stringValue`, `intValue`, `doubleValue`, `boolValue`, `arrayValue`, `dictionaryValue`.
final class JSONValueAccessorTests: XCTestCase {
    private let json: JSON = [
        "name": "Ada", "id": 42, "price": 2.5, "negative": -7.9, "huge": 1e300, "flag": true, "off": false,
        "numericText": " 30 ", "fractionText": "2.75", "word": "yes", "zeroText": "0", "text": "hello",
        "tags": ["a", "b"], "address": ["city": "Paris"], "nothing": nil,
    ]

    func test_givenEachKind_whenReadAsText_thenNumbersAndBooleansConvertAndTheRestIsEmpty() {
        XCTAssertEqual(json["name"].stringValue, "Ada")
        XCTAssertEqual(json["id"].stringValue, "42", "an integral number has no fraction")
        XCTAssertEqual(json["price"].stringValue, "2.5")
        XCTAssertEqual(json["flag"].stringValue, "true")
        for key in ["missing", "nothing", "tags", "address"] { XCTAssertEqual(json[key].stringValue, "", key) }
    }

    func test_givenEachKind_whenReadAsNumbers_thenTextAndBooleansConvertAndTheRestIsZero() {
        XCTAssertEqual(json["id"].intValue, 42)
        XCTAssertEqual(json["price"].intValue, 2, "rounded toward zero")
        XCTAssertEqual(json["negative"].intValue, -7, "rounded toward zero")
        XCTAssertEqual(json["numericText"].intValue, 30)
        XCTAssertEqual(json["fractionText"].intValue, 2)
        XCTAssertEqual(json["fractionText"].doubleValue, 2.75)
        XCTAssertEqual(json["flag"].intValue, 1)
        XCTAssertEqual(json["off"].doubleValue, 0)
        XCTAssertEqual(json["huge"].intValue, 0, "beyond Int's range, not a crash")
        XCTAssertEqual(json["huge"].doubleValue, 1e300)
        for key in ["missing", "nothing", "text", "tags", "address"] {
            XCTAssertEqual(json[key].intValue, 0, key)
            XCTAssertEqual(json[key].doubleValue, 0, key)
        }
    }

    func test_givenEachKind_whenReadAsBooleans_thenNumbersAndWordsConvert() {
        XCTAssertTrue(json["flag"].boolValue)
        XCTAssertFalse(json["off"].boolValue)
        XCTAssertTrue(json["id"].boolValue, "a number other than zero")
        XCTAssertTrue(json["word"].boolValue)
        XCTAssertTrue(JSON.string("TRUE").boolValue)
        XCTAssertFalse(json["zeroText"].boolValue)
        XCTAssertFalse(json["text"].boolValue)
        for key in ["missing", "nothing", "tags", "address"] { XCTAssertFalse(json[key].boolValue, key) }
    }

    func test_givenContainers_whenReadWithDefaults_thenOtherKindsAreEmpty() {
        XCTAssertEqual(json["tags"].arrayValue, ["a", "b"])
        XCTAssertEqual(json["address"].dictionaryValue, ["city": "Paris"])
        XCTAssertEqual(json["name"].arrayValue, [])
        XCTAssertEqual(json["missing"].dictionaryValue, [:])
        XCTAssertEqual(json["tags"].dictionaryValue, [:])
    }
}

extension JSONValueAccessorTests {
    func test_givenLargeIntegersAndNonFiniteText_whenRead_thenDigitsAndZero() {
        XCTAssertEqual(JSON.number(1e16).stringValue, "10000000000000000", "every digit, as SwiftyJSON writes it")
        XCTAssertEqual(JSON.number(-12_345_678_901_234_568).stringValue, "-12345678901234568", "as the Double holds it")
        XCTAssertEqual(JSON.number(1e300).stringValue, "1e+300", "beyond Int64: JSON's own form")
        XCTAssertEqual(JSON.string("nan").doubleValue, 0)
        XCTAssertEqual(JSON.string("-inf").doubleValue, 0)
        XCTAssertEqual(JSON.string("inf").intValue, 0)
    }
}
