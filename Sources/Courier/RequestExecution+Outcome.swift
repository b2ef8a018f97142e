import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Classify and react

    /// Step 5 and 6: classify the attempt's result, tell the plugins, then decide.
    ///
    /// `decodeElsewhere` is `true` when the transport answered inside a `send` that was not
    /// called on the thread that called `request` (see ``deliver(_:decodeElsewhere:)``).
    func evaluate(_ result: Result<HTTPResponse, any Error>, request sent: URLRequest, decodeElsewhere: Bool) {
        // A body in a file (a download, or a transport of your own) is read into memory first
        // when it is needed there; the result is evaluated as if it had arrived that way.
        if case .success(let response) = result, response.bodyFileURL != nil, let loaded = bodyInMemory(response) {
            return evaluate(loaded, request: sent, decodeElsewhere: decodeElsewhere)
        }
        // A streamed head carries its body's reader to the decoding step only: plugins, the
        // authenticator and errors get the head without it, so that whoever keeps those does
        // not keep the transfer running.
        if streamsBody, case .success(var response) = result, let reader = response.streamedBody {
            response.streamedBody = nil
            return evaluate(.success(response), request: sent, decodeElsewhere: decodeElsewhere, streamed: reader)
        }
        evaluate(result, request: sent, decodeElsewhere: decodeElsewhere, streamed: nil)
    }

    /// ``evaluate(_:request:decodeElsewhere:)`` once a streamed head's reader is set apart.
    private func evaluate(
        _ result: Result<HTTPResponse, any Error>, request sent: URLRequest, decodeElsewhere: Bool,
        streamed: StreamedBodyHandle?
    ) {
        let parser = core.configuration.errorMetadataParser  // one field, not a copy of the whole configuration
        let classified: Result<HTTPResponse, NetworkError>
        switch result {
        case .success(let response):
            if let error = NetworkError.classify(response, accepted: acceptedStatusCodes, parser: parser) {
                classified = .failure(error)
            } else if let validate = core.configuration.responseValidator {
                classified = Self.validated(response, for: endpoint, by: validate)
                // A download it rejects leaves no file behind (a retry downloads afresh).
                if case .failure = classified { DownloadStorage.discard(response) }
            } else {
                classified = .success(response)
            }
        case .failure(let error):
            classified = .failure(NetworkError.fromTransport(error))
        }
        let plugins = core.configuration.plugins
        for plugin in plugins { plugin.didReceive(classified, for: sent, endpoint: endpoint) }

        if case .success(let response) = result, requiresAuthentication,
           let authenticator = core.configuration.authenticator, authenticator.isAuthenticationFailure(response) {
            let error: NetworkError
            switch classified {
            case .failure(let classifiedError): error = classifiedError
            case .success: error = .clientError(
                statusCode: response.statusCode, metadata: parser(response), response: response)
            }
            handleAuthenticationFailure(error, response: response, request: sent, authenticator: authenticator)
            return
        }

        switch plugins.isEmpty ? classified : Self.processed(classified, from: result, sent: sent, endpoint: endpoint, by: plugins) {
        case .success(var response):
            if let streamed { response.streamedBody = streamed }
            deliver(response, decodeElsewhere: decodeElsewhere)
        case .failure(let error):
            retryOrFail(error, sent: sent)
        }
    }

    /// `classified` as the plugins' ``RequestPlugin/process(_:for:endpoint:)`` leave it, each
    /// given what the one before returned. A download's body file that the outcome no longer
    /// carries is deleted, and an error never carries one.
    @inline(never)
    private static func processed(
        _ classified: Result<HTTPResponse, NetworkError>, from result: Result<HTTPResponse, any Error>,
        sent: URLRequest, endpoint: any Endpoint, by plugins: [any RequestPlugin]
    ) -> Result<HTTPResponse, NetworkError> {
        var outcome = classified
        for plugin in plugins { outcome = plugin.process(outcome, for: sent, endpoint: endpoint) }
        if case .success(let original) = result, let file = original.bodyFileURL,
           (try? outcome.get())?.bodyFileURL != file {
            DownloadStorage.discard(original)
        }
        if case .failure(let error) = outcome { return .failure(error.withoutBodyFile()) }
        return outcome
    }

    /// `response`, or the error the client's ``NetworkClient/Configuration/responseValidator``
    /// throws for it (a non-``NetworkError`` as `.decodingFailed`).
    private static func validated(
        _ response: HTTPResponse, for endpoint: any Endpoint,
        by validate: @Sendable (HTTPResponse, any Endpoint) throws -> Void
    ) -> Result<HTTPResponse, NetworkError> {
        do {
            try validate(response, endpoint)
            return .success(response)
        } catch let error as NetworkError {
            return .failure(error.withoutBodyFile())
        } catch {
            return .failure(NetworkError.decodingFailed(underlying: error, response: response).withoutBodyFile())
        }
    }

    /// The response with a body the transport wrote to a file read into memory (and the file
    /// deleted), unless the body stays on disk: a download whose status the endpoint accepts and
    /// the authenticator does not call an authentication failure (such a response is replayed or
    /// fails, and its error carries the body).
    /// An error body is read for its metadata, at most ``TransportContext/maximumResponseSize``
    /// bytes of it; a request that is not a download fails when the file holds more.
    /// `nil` when the body stays on disk. The result never holds a file again.
    @inline(never)
    private func bodyInMemory(_ response: HTTPResponse) -> Result<HTTPResponse, any Error>? {
        let isDownload = context.writesBodyToFile
        if isDownload && acceptedStatusCodes.contains(response.statusCode) && !isAuthenticationFailure(response) {
            return nil
        }
        return DownloadStorage.readIntoMemory(response, limit: context.maximumResponseSize, failWhenLarger: !isDownload)
    }

    /// Whether the client's authenticator calls `response` an authentication failure of this request.
    private func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
        guard requiresAuthentication, let authenticator = core.configuration.authenticator else { return false }
        return authenticator.isAuthenticationFailure(response)
    }
}
