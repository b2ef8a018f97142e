/// The `Response` of an endpoint whose body you do not need: a `DELETE` answered with
/// `204 No Content`, a `POST` that returns an empty `201`, a `PUT` that echoes something you
/// ignore. (Alamofire calls this `Empty`; Get uses `Void`.)
///
/// The status is still classified (a `404` still rejects with
/// ``NetworkError/clientError(statusCode:metadata:response:)``); the body, empty or not, is not
/// read, so it can never fail to decode:
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
public struct EmptyResponse: Decodable, Sendable, Hashable {
    /// The one value.
    public init() {}

    /// Accepts any JSON value and reads none of it (``NetworkClient`` does not call this; it
    /// skips decoding for `EmptyResponse` altogether).
    ///
    /// - Parameter decoder: Unused.
    public init(from decoder: any Decoder) throws {}
}
