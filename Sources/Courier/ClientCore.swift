import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every request of one client shares: configuration, builder, gate and transport.
///
/// Requests hold the core, not the ``NetworkClient``, so a client can go away (and close its
/// gate) while requests are still held or in flight.
final class ClientCore: Sendable {
    let configuration: NetworkClient.Configuration
    let builder: RequestBuilder
    let gate: RequestGate
    let transport: any HTTPTransport
    let authenticationRefresh = AuthenticationRefresh()
    /// The requests that started and were not released yet, for `cancelAll`.
    let liveRequests = LiveRequests()
    /// The clock requests measure ``RequestMetrics`` with, decided once per client: `nil` when the
    /// client has no plugins (the only readers of the metrics), so its requests measure nothing.
    let metricsClock: MetricsClock?
    /// Whether the configuration has request adapters: read on every attempt, decided once.
    let hasRequestAdapters: Bool
    /// The exchanges identical attempts share, for requests that share them (see
    /// ``NetworkClient/Configuration/sharesIdenticalRequests``).
    let sharedExchanges = SharedExchanges()

    init(configuration: NetworkClient.Configuration, transport: any HTTPTransport) {
        self.configuration = configuration
        self.metricsClock = configuration.plugins.isEmpty ? nil : MetricsClock(for: configuration.scheduler)
        self.hasRequestAdapters = !configuration.requestAdapters.isEmpty
        self.builder = RequestBuilder(configuration: configuration)
        self.gate = RequestGate()
        self.transport = transport
        // A server message or an error text that quotes a default credential (an API key in a
        // default header) is scrubbed from descriptions and logs, as a token authenticator's are.
        for (name, value) in configuration.defaultHeaders where Redaction.isSensitive(headerName: name) {
            Redaction.register(credentialHeaderValue: value)
        }
    }

    /// Hands an attempt to the transport, through the shared exchanges when its request shares.
    func send(
        _ request: URLRequest, context: TransportContext, sharing: Bool,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        guard sharing else { return transport.send(request, context: context, completion: completion) }
        return sharedExchanges.send(request, context: context, through: transport, completion: completion)
    }
}
