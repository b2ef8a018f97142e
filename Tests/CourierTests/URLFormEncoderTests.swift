import Foundation
import XCTest
@testable import Courier

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLFormEncoder` and `RequestBody.urlEncoded`: Encodable values as query items and form fields.
final class URLFormEncoderTests: XCTestCase {
    private struct Address: Encodable, Sendable { let city: String; let zip: String? }
    private struct Tag: Encodable, Sendable { let name: String; let weight: Double }
    private struct Profile: Encodable, Sendable {
        let name: String
        let age: Int
        let active: Bool
        let nickname: String?
        let address: Address
        let tags: [String]
        let weighted: [Tag]
    }

    private let ada = Profile(
        name: "Ada Lovelace", age: 36, active: true, nickname: nil, address: Address(city: "London", zip: nil),
        tags: ["math", "engines"], weighted: [Tag(name: "poetry", weight: 0.5), Tag(name: "science", weight: 2)])

    /// `name=value` pairs, for short assertions.
    private func pairs(_ items: [URLQueryItem]) -> [String] {
        items.map { "\($0.name)=\($0.value ?? "<nil>")" }
    }

    func test_givenTheDefaults_thenSortedNestedBracketsArrayBracketsNumericBoolsAndNoNil() throws {
        XCTAssertEqual(pairs(try URLFormEncoder().encode(ada)), [
            "active=1", "address[city]=London", "age=36", "name=Ada Lovelace",
            "tags[]=math", "tags[]=engines",
            "weighted[][name]=poetry", "weighted[][weight]=0.5", "weighted[][name]=science", "weighted[][weight]=2",
        ])
    }

    func test_givenOtherStyles_thenNamesAndBoolsFollowThem() throws {
        let indexed = URLFormEncoder(arrays: .indexed, nesting: .dots, bools: .literal, sortsKeys: false)
        XCTAssertEqual(pairs(try indexed.encode(ada)), [
            "name=Ada Lovelace", "age=36", "active=true", "address.city=London",
            "tags[0]=math", "tags[1]=engines",
            "weighted[0].name=poetry", "weighted[0].weight=0.5", "weighted[1].name=science", "weighted[1].weight=2",
        ])
        let repeated = URLFormEncoder(arrays: .repeatedName)
        XCTAssertEqual(pairs(try repeated.encode(["ids": [3, 1, 2]])), ["ids=3", "ids=1", "ids=2"])
    }

    func test_givenValuesWithATextForm_thenEachIsWrittenAsText() throws {
        struct Values: Encodable {
            let at: Date
            let blob: Data
            let link: URL
            let id: UUID
            let price: Decimal
            let big: UInt64
            let small: Int8
            let ratio: Float
        }
        let id = try XCTUnwrap(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let values = Values(
            at: Date(timeIntervalSince1970: 1_795_467_900.25), blob: Data("hi".utf8),
            link: try XCTUnwrap(URL(string: "https://example.com/a?b=c")), id: id, price: Decimal(string: "19.99") ?? 0,
            big: .max, small: -8, ratio: 0.25)
        XCTAssertEqual(pairs(try URLFormEncoder(sortsKeys: false).encode(values)), [
            "at=2026-11-23T21:05:00Z", "blob=aGk=", "link=https://example.com/a?b=c", "id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
            "price=19.99", "big=18446744073709551615", "small=-8", "ratio=0.25",
        ])
        let seconds = try URLFormEncoder(dates: .secondsSince1970).encode(["at": values.at])
        XCTAssertEqual(pairs(seconds), ["at=1795467900.25"])
        let milliseconds = try URLFormEncoder(dates: .millisecondsSince1970).encode(["at": values.at])
        XCTAssertEqual(pairs(milliseconds), ["at=1795467900250"])
        let custom = try URLFormEncoder(dates: .custom { "day \(Int($0.timeIntervalSince1970) / 86_400)" }).encode(["at": values.at])
        XCTAssertEqual(pairs(custom), ["at=day 20780"])
    }

    func test_givenSnakeCaseKeys_thenWordsAreSplitAtCapitals() throws {
        struct Keys: Encodable { let pageSize = 1; let userID = 2; let urlString = 3; let HTTPCode = 4; let already_snake = 5; let v2Name = 6 }
        XCTAssertEqual(pairs(try URLFormEncoder(keys: .snakeCase, sortsKeys: false).encode(Keys())), [
            "page_size=1", "user_id=2", "url_string=3", "http_code=4", "already_snake=5", "v2_name=6",
        ])
    }

    func test_givenADictionary_thenItsKeysAreSortedAtEveryLevel() throws {
        // Six keys at each level: an unsorted dictionary comes out in this order by chance 1 time in 720.
        let inner = ["f": 1, "c": 2, "e": 3, "a": 4, "d": 5, "b": 6]
        let value = ["q": inner, "u": inner, "r": inner, "p": inner, "t": inner, "s": inner]
        let expected = ["p", "q", "r", "s", "t", "u"].flatMap { outer in
            [("a", 4), ("b", 6), ("c", 2), ("d", 5), ("e", 3), ("f", 1)].map { key, number in "\(outer)[\(key)]=\(number)" }
        }
        XCTAssertEqual(pairs(try URLFormEncoder().encode(value)), expected)
        XCTAssertEqual(pairs(try URLFormEncoder().encode([10: "ten", 9: "nine"])), ["10=ten", "9=nine"], "Int keys, as text")
    }

    func test_givenSnakeCaseAndSorting_thenTheConvertedNamesAreSorted() throws {
        struct Names: Encodable { let userName = "a"; let user_id = "b"; let userAge = "c" }
        XCTAssertEqual(pairs(try URLFormEncoder(keys: .snakeCase).encode(Names())), ["user_age=c", "user_id=b", "user_name=a"])
    }

    func test_givenFloatsAndLargeDoubles_thenEachIsWrittenInItsOwnShortestForm() throws {
        struct Numbers: Encodable { let f: Float = 0.1; let g: Float = 3.14; let big = 1e15; let huge = 1e20; let tiny = 1e-7; let neg = -2.5 }
        XCTAssertEqual(pairs(try URLFormEncoder(sortsKeys: false).encode(Numbers())), [
            "f=0.1", "g=3.14", "big=1000000000000000", "huge=1e+20", "tiny=1e-07", "neg=-2.5",
        ])
    }

    func test_givenRawValueEnumsDatesInArraysAndInheritance_thenEachIsWrittenAsAValue() throws {
        enum Sort: String, Encodable { case newest }
        class Base: Encodable {
            let id = 7
            private enum CodingKeys: String, CodingKey { case id }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
            }
        }
        final class Derived: Base, @unchecked Sendable {
            let sort = Sort.newest
            let days = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86_400)]
            private enum CodingKeys: String, CodingKey { case sort, days }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(sort, forKey: .sort)
                try container.encode(days, forKey: .days)
                try super.encode(to: container.superEncoder())
            }
        }
        XCTAssertEqual(pairs(try URLFormEncoder().encode(Derived())), [
            "days[]=1970-01-01T00:00:00Z", "days[]=1970-01-02T00:00:00Z", "sort=newest", "super[id]=7",
        ])
    }

    func test_givenAnEnumWithAssociatedValues_thenItsNestedContainersBecomeNestedNames() throws {
        enum Filter: Encodable { case range(min: Int, max: Int) }
        struct Query: Encodable { let filter: Filter }
        XCTAssertEqual(pairs(try URLFormEncoder().encode(Query(filter: .range(min: 1, max: 9)))), [
            "filter[range][max]=9", "filter[range][min]=1",
        ])
    }

    func test_givenEmptyArraysAndEmptyNestedValues_thenTheyWriteNothing() throws {
        struct Empty: Encodable {}
        struct Holder: Encodable { let list: [Int]; let nothing: Empty; let kept = "k" }
        XCTAssertEqual(pairs(try URLFormEncoder().encode(Holder(list: [], nothing: Empty()))), ["kept=k"])
        XCTAssertEqual(try URLFormEncoder().encode(Empty()).count, 0, "an empty struct is fields, none of them")
    }

    func test_givenAValueWithoutFieldNames_thenItThrows() {
        XCTAssertThrowsError(try URLFormEncoder().encode(["s3cret-token"])) { error in
            guard case EncodingError.invalidValue(let value, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(value as? String, "Array<String>", "the type, never the value")
        }
        XCTAssertThrowsError(try URLFormEncoder().encode("text"))
        XCTAssertThrowsError(try URLFormEncoder().encode(["ratio": Double.nan])) { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(context.codingPath.map(\.stringValue), ["ratio"])
        }
    }

    func test_given128BitIntegers_thenTheyAreWrittenAsText() throws {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            struct Wide: Encodable { let n = Int128.max; let u = UInt128(0) }
            XCTAssertEqual(pairs(try URLFormEncoder().encode(Wide())), ["n=170141183460469231731687303715884105727", "u=0"])
        }
    }

    // MARK: In requests

    func test_givenAURLEncodedBody_whenSent_thenTheFormIsPercentEncodedWithItsContentType() throws {
        struct Login: Encodable, Sendable { let user: String; let password: String; let remember: Bool; let scopes: [String] }
        let transport = RecordingTransport.answering(body: "{}")
        let client = exampleClient(transport)
        var endpoint = Request<JSON>("login", method: .post)
        endpoint.body = .urlEncoded(Login(user: "ada l", password: "p&ss=1", remember: true, scopes: ["read", "write"]))
        XCTAssertEqual(outcomeName(settle(client.request(endpoint))), "ok")
        let sent = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(
            sent.httpBody.map { String(decoding: $0, as: UTF8.self) },
            "password=p%26ss%3D1&remember=1&scopes%5B%5D=read&scopes%5B%5D=write&user=ada%20l")
    }

    func test_givenAURLEncodedBodyWithItsOwnEncoder_whenBuilt_thenThatEncoderSpellsIt() throws {
        let client = exampleClient(RecordingTransport.answering(body: "{}"))
        var endpoint = Request<JSON>("prefs", method: .put)
        endpoint.body = .urlEncoded(["darkMode": [true]], encoder: URLFormEncoder(arrays: .indexed, bools: .literal, keys: .snakeCase))
        let request = try client.makeURLRequest(for: endpoint)
        XCTAssertEqual(request.httpBody.map { String(decoding: $0, as: UTF8.self) }, "dark_mode%5B0%5D=true")
    }

    func test_givenABodyThatCannotBeEncoded_whenBuilt_thenInvalidRequestNamesTheFormAndTheField() {
        let client = exampleClient(RecordingTransport.answering(body: "{}"))
        var endpoint = Request<JSON>("measure", method: .post)
        endpoint.body = .urlEncoded(["ratio": Double.infinity])
        XCTAssertThrowsError(try client.makeURLRequest(for: endpoint)) { error in
            guard case NetworkError.invalidRequest(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.hasPrefix("The form body (Dictionary<String, Double>) could not be encoded"), reason)
            XCTAssertTrue(reason.contains("at ratio"), reason)
        }
    }

    func test_givenEncodedQueryItems_whenUsedAsAQuery_thenTheURLCarriesThem() throws {
        struct Search: Encodable { let text: String; let tags: [String] }
        let items = try URLFormEncoder().encode(Search(text: "swift http", tags: ["a", "b"]))
        let client = exampleClient(RecordingTransport.answering(body: "{}"))
        let request = try client.makeURLRequest(for: Request<JSON>.get("search", query: items))
        XCTAssertEqual(request.url?.query, "tags%5B%5D=a&tags%5B%5D=b&text=swift%20http")
    }
}
