@testable import Courier
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RedirectRule` reads the redirect's `Location` itself: the URL it names, resolved against the
/// URL that answered, replaces the one URLSession proposes (FoundationNetworking resolves relative
/// references against the server's root).
final class RedirectRuleLocationTests: XCTestCase {
    private let hop = URL(string: "https://api.example.com/v1/users/7?fields=all")
    /// What FoundationNetworking proposes for any relative `Location`: a path from the root.
    private func proposed(_ url: String = "https://api.example.com/wrong", authorization: String? = "a") throws -> URLRequest {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        return request
    }

    private func followed(_ location: String?, policy: URLSessionTransport.RedirectPolicy = .follow) throws -> URLRequest? {
        guard case .follow(let next) = RedirectRule.decide(from: hop, to: try proposed(), location: location, policy: policy) else {
            return nil
        }
        return next
    }

    #if canImport(FoundationNetworking)   // elsewhere URLSession's own resolution is kept
    func test_givenRelativeLocations_thenTheyResolveAgainstTheHopAsRFC3986Says() throws {
        let cases = [
            "posts?page=2": "https://api.example.com/v1/users/posts?page=2",
            "?page=2": "https://api.example.com/v1/users/7?page=2",
            "../teams": "https://api.example.com/v1/teams",
            "./8": "https://api.example.com/v1/users/8",
            "/v2/users/7": "https://api.example.com/v2/users/7",
            "//cdn.example.com/u/7": "https://cdn.example.com/u/7",
            "HTTPS://API.example.com/v1/x": "https://API.example.com/v1/x",
        ]
        for (location, expected) in cases {
            XCTAssertEqual(try followed(location)?.url?.absoluteString, expected, location)
        }
    }
    #endif

    #if canImport(FoundationNetworking)   // elsewhere URLSession's own resolution is kept
    func test_givenALocationOnAnotherHost_thenCredentialsAreStrippedEvenWhenTheProposalStayedHome() throws {
        XCTAssertNil(try followed("//cdn.example.com/u/7")?.value(forHTTPHeaderField: "Authorization"))
        XCTAssertEqual(try followed("../teams")?.value(forHTTPHeaderField: "Authorization"), "a", "same origin keeps it")
    }
    #endif

    func test_givenNoLocation_thenTheProposedRequestIsKept() throws {
        XCTAssertEqual(try followed(nil)?.url?.absoluteString, "https://api.example.com/wrong")
        XCTAssertEqual(try followed("http://[::1")?.url?.absoluteString, "https://api.example.com/wrong",
                       "a Location Foundation cannot read")
    }

    func test_givenALocationThatIsNotHTTPWithAHost_thenTheRedirectIsRefused() throws {
        for location in ["file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "myapp://cb?code=1", "ftp://x/y", "https://"] {
            let decision = RedirectRule.decide(from: hop, to: try proposed(), location: location)
            guard case .refuse(.invalidRequest(let reason)) = decision else {
                XCTFail("\(location) must be refused, got \(decision)")
                continue
            }
            XCTAssertTrue(reason.contains("not http or https"), reason)
        }
    }

    func test_givenRedirectsNotFollowedOrSameOriginOnly_whenTheLocationIsNotHTTP_thenThe3xxIsDelivered() throws {
        for policy in [URLSessionTransport.RedirectPolicy.never, .sameOrigin] {
            guard case .deliver = RedirectRule.decide(from: hop, to: try proposed(), location: "myapp://cb?code=1", policy: policy) else {
                return XCTFail("\(policy) delivers the 3xx")
            }
        }
    }

    #if canImport(FoundationNetworking)   // elsewhere URLSession's own resolution is kept
    func test_givenSameOriginOnly_thenTheResolvedLocationIsWhatIsCompared() throws {
        // The proposal is on the same origin, but the Location names another host.
        guard case .deliver = RedirectRule.decide(
            from: hop, to: try proposed(), location: "//cdn.example.com/u/7", policy: .sameOrigin)
        else { return XCTFail("another origin is delivered, not followed") }
        XCTAssertEqual(try followed("../teams", policy: .sameOrigin)?.url?.path, "/v1/teams")
    }
    #endif

    /// An endpoint's policy tightens the transport's and never loosens it.
    func test_givenBothPolicies_whenCombined_thenTheStricterWins() {
        let policies: [URLSessionTransport.RedirectPolicy] = [.follow, .sameOrigin, .never]
        for (transportRank, transport) in policies.enumerated() {
            XCTAssertEqual(transport.tightened(by: nil), transport, "no policy of the endpoint's")
            for (endpointRank, endpoint) in policies.enumerated() {
                XCTAssertEqual(transport.tightened(by: endpoint), policies[max(transportRank, endpointRank)],
                               "transport \(transport), endpoint \(endpoint)")
            }
        }
    }
}
