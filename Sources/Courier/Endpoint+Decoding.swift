import Foundation

extension Endpoint {
    /// The same call, answered with `type` instead of the endpoint's `Response`: Moya's
    /// `map(_:atKeyPath:)` for one call, when one endpoint type (an `enum` of an API's calls)
    /// cannot name one response type for all of them.
    ///
    /// ```swift
    /// enum GitHub: Endpoint {
    ///     case user(String), searchRepositories(String)
    ///     var path: String {
    ///         switch self {
    ///         case .user(let name): "users/\(name)"
    ///         case .searchRepositories: "search/repositories"
    ///         }
    ///     }
    ///     var query: [URLQueryItem] {
    ///         guard case .searchRepositories(let text) = self else { return [] }
    ///         return [URLQueryItem(name: "q", value: text)]
    ///     }
    /// }
    ///
    /// let user = try await client.send(GitHub.user("ada").decoding(User.self))
    /// // {"total_count": 2, "items": [{…}, {…}]}
    /// let found = try await client.send(GitHub.searchRepositories("courier").decoding([Repository].self, atKeyPath: "items"))
    /// ```
    ///
    /// The result is a ``Request`` with every property of this endpoint (kept in
    /// ``Request/base`` for plugins that recognise endpoints by type); its ``Endpoint/decoder``
    /// decodes `type`.
    ///
    /// - Parameters:
    ///   - type: The type to decode the body into: any `Decodable & Sendable`, or `HTTPResponse`,
    ///     `Data`, `String`, ``JSON``, ``EmptyResponse`` as for any endpoint.
    ///   - keyPath: Where the value is inside the JSON body (see ``Endpoint/responseKeyPath``);
    ///     default `nil`, this endpoint's own key path (usually none: the whole body). Pass `""`
    ///     for the whole body when the endpoint declares a key path (Moya's `nil`).
    /// - Returns: The request to send.
    public func decoding<Value: Decodable & Sendable>(_ type: Value.Type, atKeyPath keyPath: String? = nil) -> Request<Value> {
        var request = Request<Value>(copying: self)
        if let keyPath { request.responseKeyPath = keyPath }
        return request
    }
}
