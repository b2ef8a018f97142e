import Foundation
import XCTest
@testable import Courier

/// `HTTPResponse.links` and `link(relation:)`: the `Link` header of paginated APIs (RFC 8288).
final class HTTPResponseLinksTests: XCTestCase {
    private func response(link: String?, url: String = "https://api.example.com/v1/items?page=2") -> HTTPResponse {
        HTTPResponse(statusCode: 200, headers: link.map { ["Link": $0] } ?? [:], url: URL(string: url))
    }

    func test_givenAGitHubStyleLinkHeader_whenRead_thenEachRelationGivesItsURL() {
        let links = response(link: #"<https://api.example.com/v1/items?page=3>; rel="next", <https://api.example.com/v1/items?page=9>; rel="last""#).links
        XCTAssertEqual(links, [
            "next": URL(string: "https://api.example.com/v1/items?page=3")!,
            "last": URL(string: "https://api.example.com/v1/items?page=9")!,
        ])
    }

    func test_givenRelativeLinksUnquotedAndMixedCaseRelations_whenRead_thenTheyResolveAgainstTheResponseURL() {
        let page = response(link: "</v1/items?page=1>; rel=First, <items?page=3>;REL=\"Next\"")
        XCTAssertEqual(page.link(relation: "first")?.absoluteString, "https://api.example.com/v1/items?page=1")
        XCTAssertEqual(page.link(relation: "NEXT")?.absoluteString, "https://api.example.com/v1/items?page=3")
    }

    func test_givenSeveralRelationsCommasInQuotesAndAnEarlierLinkOfTheSameRelation_whenRead_thenEachIsHandled() {
        let header = #"<https://a.example/1>; title="one, two"; rel="next last", <https://a.example/2>; rel="next", <https://a.example/3>; rel="prev""#
        let links = response(link: header).links
        XCTAssertEqual(links["next"]?.absoluteString, "https://a.example/1", "the first link of a relation wins")
        XCTAssertEqual(links["last"]?.absoluteString, "https://a.example/1")
        XCTAssertEqual(links["prev"]?.absoluteString, "https://a.example/3", "a comma inside a quoted title does not split the link")
    }

    func test_givenNoLinkHeaderOrOneThatDoesNotParse_whenRead_thenThereAreNoLinks() {
        XCTAssertEqual(response(link: nil).links, [:])
        XCTAssertEqual(response(link: "not a link").links, [:])
        XCTAssertEqual(response(link: "<https://a.example/1>").links, [:], "a link without rel has no relation")
        XCTAssertEqual(response(link: "<https://a.example/1; rel=next").links, [:], "an unclosed <")
        XCTAssertNil(response(link: nil).link(relation: "next"))
    }

    func test_givenADecodedResponse_whenAskedForALink_thenItReadsItsResponse() {
        let decoded = DecodedResponse(value: [1, 2], response: response(link: "<?page=3>; rel=\"next\""))
        XCTAssertEqual(decoded.link(relation: "next")?.absoluteString, "https://api.example.com/v1/items?page=3")
    }
}
