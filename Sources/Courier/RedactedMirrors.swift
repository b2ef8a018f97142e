import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What `dump()`, `Mirror(reflecting:)` and the debugger's `po` show of the objects that hold a
// request or the client's configuration. Reflection walks stored properties, not descriptions,
// so without these it reaches the credential headers of a configuration or of a request in
// flight (through a streamed body, an event source or a download's resumption), and
// FoundationNetworking's task internals, whose reflection has crashed the process.

extension NetworkClient: CustomReflectable {
    /// The configuration, redacted (see ``Configuration/customMirror``).
    public var customMirror: Mirror {
        Mirror(self, children: ["configuration": configuration], displayStyle: .class)
    }
}

extension NetworkClient.Configuration: CustomReflectable {
    /// The base URL and default headers with credentials and secret query values redacted, the
    /// types of the plugins, the request adapters and retriers and the authenticator, and the limits.
    public var customMirror: Mirror {
        let headers = Redaction.redact(defaultHeaders).mapValues(Redaction.scrub)
        return Mirror(self, children: [
            "baseURL": Redaction.redact(baseURL),
            "defaultHeaders": headers,
            "timeout": timeout,
            "idleTimeout": idleTimeout.map { "\($0)" } ?? "none",
            "plugins": plugins.map { "\(type(of: $0))" },
            "requestAdapters": requestAdapters.map { "\(type(of: $0))" },
            "requestRetriers": requestRetriers.map { "\(type(of: $0))" },
            "authenticator": authenticator.map { "\(type(of: $0))" } ?? "none",
            "maximumResponseSize": maximumResponseSize,
            "sharesIdenticalRequests": sharesIdenticalRequests,
        ], displayStyle: .struct)
    }
}

extension DownloadResumption: CustomReflectable {
    /// The same as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .class)
    }
}

extension ResponseBodyStream: CustomReflectable {
    /// Nothing of the transfer it reads from.
    public var customMirror: Mirror {
        Mirror(self, children: [:], displayStyle: .class)
    }
}

extension StreamedBodyReader: CustomReflectable {
    var customMirror: Mirror {
        Mirror(self, children: [:], displayStyle: .class)
    }
}

extension RequestExecution: CustomReflectable {
    /// The method and the redacted URL; not the headers, the client or the transfer.
    var customMirror: Mirror {
        Mirror(self, children: [
            "method": method.rawValue,
            "url": request.url.map(Redaction.redact) ?? "",
        ], displayStyle: .class)
    }
}

extension URLSessionTransport: CustomReflectable {
    /// Only the names of the credential headers it adds; not their values, its session or the
    /// requests in flight.
    public var customMirror: Mirror {
        Mirror(self, children: ["credentialHeaders": credentialHeaderNames], displayStyle: .class)
    }
}

extension LiveWork: CustomReflectable {
    /// Nothing: the endpoint it lists may carry credentials of its own (headers, query items).
    var customMirror: Mirror {
        Mirror(self, children: [:], displayStyle: .class)
    }
}
