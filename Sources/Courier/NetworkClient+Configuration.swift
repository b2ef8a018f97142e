import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkClient {
    /// Everything a ``NetworkClient`` needs to know; every property except ``baseURL`` has a default.
    ///
    /// ```swift
    /// var configuration = NetworkClient.Configuration(baseURL: URL(string: "https://api.example.com/v1")!)
    /// configuration.defaultHeaders["User-Agent"] = "MyApp/1.0"
    /// configuration.timeout = 15
    /// configuration.plugins = [LoggingPlugin()]
    /// let client = NetworkClient(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The URL every endpoint path is appended to, with exactly one "/" between them.
        /// It must have a scheme and a host; its own query items are kept.
        public var baseURL: URL

        /// Headers sent with every request; an endpoint's header of the same name (in any case)
        /// wins. Default: `["Accept": "application/json"]`.
        public var defaultHeaders: [String: String]

        /// Seconds a request may take when its endpoint sets no ``Endpoint/timeout``. Default: 60.
        ///
        /// The clock starts when the request is issued, so time spent held by ``NetworkClient/pause()``
        /// counts (a held request cannot wait forever). A large multipart form with file parts is
        /// first copied to a temporary file; for such a request the clock starts with its copy,
        /// which counts, and waiting for its turn to be copied has a timeout of the same length.
        /// Each retry gets a fresh timeout.
        public var timeout: TimeInterval

        /// Seconds an attempt may go without a byte moving either way, when its endpoint sets no
        /// ``Endpoint/idleTimeout``. Default: `nil`, none (``timeout`` alone bounds a request).
        ///
        /// ```swift
        /// configuration.timeout = 60 * 60      // a whole exchange: an hour at most
        /// configuration.idleTimeout = 30       // but never 30 seconds without progress
        /// ```
        ///
        /// See ``Endpoint/idleTimeout`` for when the watch runs and what counts as progress.
        public var idleTimeout: TimeInterval?

        /// The cache policy of every request. Default: `.useProtocolCachePolicy`.
        public var cachePolicy: URLRequest.CachePolicy

        /// Where completion handlers of ``NetworkClient/request(_:completion:)`` run.
        ///
        /// Default: a private serial queue labelled `courier.callbacks`, shared by all clients.
        /// It is deliberately not the main queue (command-line programs and servers never service
        /// the main queue); apps that update UI pass `.main`.
        public var callbackQueue: DispatchQueue

        /// Decodes response bodies into `Decodable` endpoint responses. Default: `JSONDecoder()`.
        ///
        /// The client keeps this instance and decodes with it from several threads at once, which
        /// `JSONDecoder` allows; set its strategies before you create the client, not while it
        /// runs.
        ///
        /// ```swift
        /// let decoder = JSONDecoder()
        /// decoder.keyDecodingStrategy = .convertFromSnakeCase
        /// decoder.dateDecodingStrategy = .iso8601
        /// configuration.decoder = decoder
        /// ```
        public var decoder: JSONDecoder {
            get { sharedDecoder.coder }
            set { sharedDecoder = SharedCoder(coder: newValue) }
        }

        /// Encodes `.json` request bodies. Default: `JSONEncoder()`.
        ///
        /// As with ``decoder``, the client keeps this instance: set its strategies before you
        /// create the client.
        public var encoder: JSONEncoder {
            get { sharedEncoder.coder }
            set { sharedEncoder = SharedCoder(coder: newValue) }
        }

        /// ``decoder`` and ``encoder`` as stored: see ``SharedCoder`` for why they are boxed.
        private(set) var sharedDecoder: SharedCoder<JSONDecoder>
        private(set) var sharedEncoder: SharedCoder<JSONEncoder>

        /// Plugins that see every request and every attempt's result, in order. Default: none.
        public var plugins: [any RequestPlugin]

        /// Change each attempt asynchronously just before it is sent (a signature, a token from
        /// an async source), in order, after the authenticator, the plugins' `prepare` and the
        /// endpoint's own ``Endpoint/requestAdapters``. Default: none. See ``RequestAdapter`` for
        /// the deadline, failures and other origins.
        ///
        /// ```swift
        /// configuration.requestAdapters = [AsyncRequestAdapter { request, _ in
        ///     var request = request
        ///     request.setValue(try await attestation.header(), forHTTPHeaderField: "X-Attestation-Token")
        ///     return request
        /// }]
        /// ```
        public var requestAdapters: [any RequestAdapter]

        /// Decide asynchronously whether a failed request is sent again, once its
        /// ``retryPolicy`` does not retry it (Alamofire's `RequestRetrier`, Get's
        /// `shouldClientRetry`), asked in this order, after the endpoint's own
        /// ``Endpoint/requestRetriers``, until one retries. Default: none. See
        /// ``RequestRetrier`` for when they are asked, counting and time limits.
        ///
        /// ```swift
        /// configuration.requestRetriers = [AsyncRequestRetrier { _, _, error, context in
        ///     guard case .transport = error, context.retrierRetryCount < 3 else { return .doNotRetry }
        ///     await connectivity.waitUntilOnline()
        ///     return .retry
        /// }]
        /// ```
        public var requestRetriers: [any RequestRetrier]

        /// Adds credentials and refreshes them. Default: `nil`, no authentication.
        public var authenticator: (any Authenticator)?

        /// The retry policy of every endpoint whose ``Endpoint/retryPolicy`` is `nil`
        /// (Alamofire's `Session(interceptor: RetryPolicy())`). Default: `nil`, no retries.
        ///
        /// An endpoint's own policy wins; one that must never be retried returns
        /// `RetryPolicy.none` (spelled out: a bare `.none` in a `RetryPolicy?` is `nil`). ``RetryPolicy/default`` retries only idempotent methods, so
        /// setting it here leaves `POST` and `PATCH` alone.
        ///
        /// ```swift
        /// var configuration = NetworkClient.Configuration(baseURL: api)
        /// configuration.retryPolicy = .default   // 3 retries, 0.5 s doubling, idempotent methods
        /// ```
        public var retryPolicy: RetryPolicy?

        /// Reads the server's error details from a failed response. Default: ``ServerMetadata/parse(_:)``.
        public var errorMetadataParser: @Sendable (HTTPResponse) -> ServerMetadata?

        /// Checks each successful response before it is decoded, for APIs that report errors
        /// inside a `200` (`{"metadata":{"status":"E42","desc":"…"}}`). Default: `nil`, only the
        /// status decides (Alamofire's `validate { }`, Get's `validateResponse`).
        ///
        /// It runs for every attempt whose status the endpoint accepts, after the status check
        /// and before plugins hear of the result, on the thread the response arrived on (keep it
        /// quick). To fail the attempt, throw: a thrown ``NetworkError`` is used as it is (so
        /// `.serverError(statusCode: 503, …)` is retried like a 503); any other error becomes
        /// ``NetworkError/decodingFailed(underlying:response:)`` with this response. Plugins, the
        /// endpoint's retry policy and the caller then see that error. The response's `body` is
        /// empty for a download (the body is in `bodyFileURL`, deleted when the validator throws)
        /// and for a streamed response (its head only). A thrown `401` is an error like any other:
        /// only the authenticator's ``Authenticator/isAuthenticationFailure(_:)`` starts a
        /// credential refresh.
        ///
        /// ```swift
        /// configuration.responseValidator = { response, endpoint in
        ///     let metadata = ServerMetadata.parse(response)
        ///     if let status = metadata?.status, status != "0000" {
        ///         throw NetworkError.clientError(statusCode: 422, metadata: metadata, response: response)
        ///     }
        /// }
        /// ```
        public var responseValidator: (@Sendable (_ response: HTTPResponse, _ endpoint: any Endpoint) throws -> Void)?

        /// Whether a `GET` or `HEAD` identical to one in flight shares its exchange with the server
        /// instead of sending the same request again (Moya's `trackInflights`). Default: `false`.
        ///
        /// Attempts are identical when everything sent is: method, URL, headers (the credential
        /// included, so two users never share), body, cache policy, timeout and cookie handling,
        /// under the same response size limit (for stubs, also the endpoint's path and sample
        /// data). Each caller keeps
        /// its own pipeline around the shared exchange: its plugins see its attempt, its deadline
        /// and retries are its own, it decodes into its own type, and cancelling it leaves the
        /// exchange without ending it for the others (the exchange is cancelled when the last
        /// caller leaves), and an exchange anyone left takes nobody new, so a retry after a
        /// stall goes out afresh. A caller that joins late gets the answer the server was already
        /// preparing, and its progress reports start from where the transfer is.
        ///
        /// Never shared: other methods (a second `POST` is a second order), uploads of a stream or
        /// file, downloads and streamed responses. An endpoint overrides this either way with
        /// ``Endpoint/sharesIdenticalRequests`` (a long poll opts out).
        ///
        /// ```swift
        /// configuration.sharesIdenticalRequests = true
        /// async let me = client.send(GetMe())
        /// async let again = client.send(GetMe())   // the server sees one request
        /// ```
        public var sharesIdenticalRequests: Bool

        /// The largest response body, in bytes, that is accepted; a larger one fails the request
        /// with ``NetworkError/invalidRequest(reason:)``. Default: 50 MiB.
        public var maximumResponseSize: Int

        /// The clock for request deadlines and retry delays. Default: ``DispatchScheduler``.
        public var scheduler: any RequestScheduler

        /// Creates a configuration with defaults for everything but the base URL.
        ///
        /// - Parameter baseURL: The URL endpoint paths are appended to, e.g. `https://api.example.com/v1`.
        public init(baseURL: URL) {
            self.baseURL = baseURL
            defaultHeaders = ["Accept": "application/json"]
            timeout = 60
            idleTimeout = nil
            cachePolicy = .useProtocolCachePolicy
            callbackQueue = Configuration.defaultCallbackQueue
            sharedDecoder = SharedCoder(coder: JSONDecoder())
            sharedEncoder = SharedCoder(coder: JSONEncoder())
            plugins = []
            requestAdapters = []
            requestRetriers = []
            authenticator = nil
            retryPolicy = nil
            errorMetadataParser = { ServerMetadata.parse($0) }
            responseValidator = nil
            sharesIdenticalRequests = false
            maximumResponseSize = 50 * 1024 * 1024
            scheduler = DispatchScheduler()
        }

        /// The default ``callbackQueue``: serial, private to Courier, never the main queue.
        static let defaultCallbackQueue = DispatchQueue(label: "courier.callbacks")
    }
}
