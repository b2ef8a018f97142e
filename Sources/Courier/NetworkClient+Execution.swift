import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension NetworkClient {
    /// The execution of `endpoint`, delivering to `resolver` or `handler` (exactly one is set):
    /// the one pipeline behind every style. It decodes as ``request(_:)`` documents: the
    /// response itself for `HTTPResponse`, nothing for `EmptyResponse`, parsed `JSON`, the raw
    /// body for `Data`, its text for `String`, a `DecodedResponse` or an optional built by its
    /// own rules (see `ResponseBody`), or ``Configuration/decoder``.
    /// Throws when the request cannot be built.
    func makeExecution<E: Endpoint>(
        _ endpoint: E, resolver: Resolver<E.Response>?, handler: RequestExecution<E.Response>.Handler?,
        progress: ProgressHandler?
    ) throws(NetworkError) -> RequestExecution<E.Response> {
        // The closures are passed straight to `buildExecution`: returned from a helper instead,
        // they would be re-abstracted at run time, with a metadata lookup per request.
        if let keyPath = endpoint.responseKeyPath, !keyPath.isEmpty, ResponseBody.needsDecoding(E.Response.self) {
            let decoder = endpoint.decoder.map(SharedCoder.init(coder:)) ?? core.configuration.sharedDecoder
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
                ResponseBody.decode(E.Response.self, from: response, atKeyPath: keyPath, decoder: decoder.coder)
            }
        }
        if E.Response.self == HTTPResponse.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: false, progress: progress) { response in
                ResponseBody.cast(response, response)
            }
        }
        if E.Response.self == EmptyResponse.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: false, progress: progress) { response in
                ResponseBody.cast(EmptyResponse(), response)
            }
        }
        if E.Response.self == JSON.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
                ResponseBody.json(response).flatMap { ResponseBody.cast($0, response) }
            }
        }
        if E.Response.self == Data.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: false, progress: progress) { response in
                ResponseBody.cast(response.body, response)
            }
        }
        if E.Response.self == String.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
                ResponseBody.text(response).flatMap { ResponseBody.cast($0, response) }
            }
        }
        let decoder = endpoint.decoder.map(SharedCoder.init(coder:)) ?? core.configuration.sharedDecoder
        if let envelope = E.Response.self as? any ResponseEnvelope.Type {
            // The metatype is looked up again when the response arrives: an envelope's own
            // metatype is not `Sendable`, so the closure cannot keep `envelope`.
            return try buildExecution(
                endpoint, resolver: resolver, handler: handler, needsDecoding: envelope.decodesBody, progress: progress
            ) { response in
                ResponseBody.decode(E.Response.self, from: response, decoder: decoder.coder)
            }
        }
        return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
            ResponseBody.typed(E.Response.self, response, decoder.coder)
        }
    }

    /// Builds the request and the execution that carries it through the pipeline.
    func buildExecution<E: Endpoint, R: Sendable>(
        _ endpoint: E, adding headers: [String: String] = [:], resolver: Resolver<R>?,
        handler: RequestExecution<R>.Handler?, needsDecoding: Bool,
        progress: ProgressHandler? = nil, writesBodyToFile: Bool = false, streamsBody: Bool = false,
        resuming: (resumption: DownloadResumption, part: PartialDownload?)? = nil, listed: Bool = true,
        decode: @escaping @Sendable (HTTPResponse) -> Result<R, NetworkError>
    ) throws(NetworkError) -> RequestExecution<R> {
        let made = try core.builder.makeRequest(for: endpoint)
        var request = made.request
        let upload = made.upload
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return RequestExecution(
            core: core, endpoint: endpoint, request: request, resolver: resolver, handler: handler,
            needsDecoding: needsDecoding, progress: progress, writesBodyToFile: writesBodyToFile,
            streamsBody: streamsBody, upload: upload, resuming: resuming, onClientOrigin: made.onClientOrigin,
            listed: listed, decode: decode)
    }
}

/// The endpoint's response type did not match the special case it was dispatched to (never expected).
struct ResponseTypeMismatch: Error, CustomStringConvertible {
    var description: String { "the endpoint's Response type does not match the decoded value" }
}
