/// The `Response` of an endpoint whose body you do not need: a `DELETE` answered with
/// `204 No Content`, a `POST` that returns an empty `201`, a `PUT` that echoes something you
/// ignore. (Alamofire calls this `Empty`; Get uses `Void`.)
///
/// The status is still classified (a `404` still rejects with
/// ``NetworkError/clientError(statusCode:metadata:response:)``); the body, empty or not, is not
/// decoded, so it can never fail to decode (it is still downloaded, within
/// ``NetworkClient/Configuration/maximumResponseSize``). A `2xx` whose body describes an error
/// therefore succeeds; decode such bodies instead. Next to Alamofire, which has a protocol of
/// this name, write `Courier.EmptyResponse`.
///
/// ```swift
/// struct DeleteArticle: Endpoint {
///     typealias Response = EmptyResponse
///     let id: Int
///     var path: String { "articles/\(id)" }
///     var method: HTTPMethod { .delete }
/// }
/// try await client.send(DeleteArticle(id: 7))   // returns EmptyResponse()
/// ```
public struct EmptyResponse: Codable, Sendable, Hashable {
    /// The one value.
    public init() {}

    /// Accepts any JSON value and reads none of it (``NetworkClient`` does not call this; it
    /// skips decoding for `EmptyResponse` altogether).
    ///
    /// - Parameter decoder: Unused.
    public init(from decoder: any Decoder) throws {}

    /// Encodes as an empty JSON object, `{}`, for request bodies and fixtures.
    ///
    /// - Parameter encoder: Receives an empty keyed container.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }

    private enum NoKeys: CodingKey {}
}
