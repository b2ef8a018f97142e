import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `Fixtures/test_server.py` (an httpbin-style server on 127.0.0.1) in a child process for
/// integration tests.
///
/// The server prints `PORT <n>` on its first stdout line; `start()` waits for that line at most
/// ten seconds. The child exits when its stdin pipe closes, so it cannot outlive the test process
/// even after a crash; `stop()`, `deinit` and an `atexit` hook also terminate it.
///
/// ```swift
/// let server = try TestServer.shared
/// let url = server.url("/status/503?body=metadata")
/// ```
// @unchecked Sendable: `process`, `stdinPipe`, `port` and the URLs are set once in `init`;
// `isStopped` is only read and written while holding `lock`.
final class TestServer: @unchecked Sendable {
    /// Why the server could not be started.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// The port the server listens on (127.0.0.1 only).
    let port: Int
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    /// `http://localhost:<port>`: the same server under a different host name, for cross-host
    /// redirect tests.
    let localhostURL: URL

    private let process: Process
    private let stdinPipe: Pipe
    private let lock = NSLock()
    private var isStopped = false

    private init(process: Process, stdinPipe: Pipe, port: Int) throws {
        guard let base = URL(string: "http://127.0.0.1:\(port)"),
              let local = URL(string: "http://localhost:\(port)") else {
            throw StartError(description: "TestServer: cannot form URLs for port \(port)")
        }
        self.process = process
        self.stdinPipe = stdinPipe
        self.port = port
        self.baseURL = base
        self.localhostURL = local
    }

    deinit { stop() }

    /// `baseURL` plus `pathAndQuery` (e.g. `"/status/404?body=error"`).
    func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }

    /// `localhostURL` plus `pathAndQuery`.
    func localhostURL(_ pathAndQuery: String) -> URL {
        URL(string: localhostURL.absoluteString + pathAndQuery) ?? localhostURL
    }

    // MARK: - Starting and stopping

    /// Launches a new server process and waits (at most `timeout` seconds) for its port.
    ///
    /// - Parameters:
    ///   - script: the Python script to run; default `Fixtures/test_server.py`.
    ///   - timeout: how long to wait for the `PORT <n>` line; default 10 s.
    ///   - port: the port to bind; default 0, a free one. A fixed port lets a test stop a server and
    ///     start a new one where clients expect the old one (the script sets `SO_REUSEADDR`).
    /// - Throws: `StartError` when python3 or the script is missing, the process exits early, or the
    ///   port line does not arrive in time (the process is then terminated).
    static func start(script: URL? = nil, timeout: TimeInterval = 10, port: Int = 0) throws -> TestServer {
        let script = try script ?? scriptURL()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path] + (port == 0 ? [] : ["--port", "\(port)"])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw StartError(description: "TestServer: cannot launch python3 \(script.path): \(error)")
        }
        let reader = PortLineReader(handle: output.fileHandleForReading)
        guard let port = reader.waitForPort(timeout: timeout) else {
            terminate(process, input: input)
            let state = process.isRunning ? "still running" : "exit status \(process.terminationStatus)"
            throw StartError(description: "TestServer: no 'PORT <n>' line within \(timeout) s (\(state)); "
                + "output: \(reader.received.debugDescription)")
        }
        let server = try TestServer(process: process, stdinPipe: input, port: port)
        ExitHook.register(server)
        return server
    }

    /// Stops the server: closes its stdin, sends SIGTERM and waits briefly for it to exit. Idempotent.
    func stop() {
        let alreadyStopped = lock.withLock { () -> Bool in
            defer { isStopped = true }
            return isStopped
        }
        guard !alreadyStopped else { return }
        ExitHook.unregister(self)
        Self.terminate(process, input: stdinPipe)
    }

    private static func terminate(_ process: Process, input: Pipe) {
        try? input.fileHandleForWriting.close()
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }

    /// Finds the script next to this file (works on a fresh clone), falling back to the bundled copy.
    private static func scriptURL() throws -> URL {
        let fromSource = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()            // Support
            .deletingLastPathComponent()            // CourierTests
            .appendingPathComponent("Fixtures/test_server.py")
        if FileManager.default.fileExists(atPath: fromSource.path) { return fromSource }
        if let bundled = Bundle.module.url(forResource: "test_server", withExtension: "py",
                                           subdirectory: "Fixtures") {
            return bundled
        }
        throw StartError(description: "TestServer: test_server.py not found at \(fromSource.path)")
    }

    // MARK: - The shared instance

    private static let sharedLock = NSLock()
    // Guarded by `sharedLock`.
    nonisolated(unsafe) private static var sharedResult: Result<TestServer, StartError>?

    /// One server for the whole test process, started on first use. A failed start is remembered,
    /// so later tests fail fast with the same message instead of waiting again.
    static var shared: TestServer {
        get throws {
            let result = sharedLock.withLock { () -> Result<TestServer, StartError> in
                if let existing = sharedResult { return existing }
                let result: Result<TestServer, StartError>
                do {
                    result = .success(try start())
                } catch let error as StartError {
                    result = .failure(error)
                } catch {
                    result = .failure(StartError(description: "TestServer: \(error)"))
                }
                sharedResult = result
                return result
            }
            return try result.get()
        }
    }
}

/// Reads the child's stdout on a background thread until the first line arrives.
// @unchecked Sendable: `buffer` and `port` are only touched while holding `lock`; `done` is a semaphore.
private final class PortLineReader: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var port: Int?
    private let done = DispatchSemaphore(value: 0)

    init(handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                let finished = lock.withLock { () -> Bool in
                    buffer.append(chunk)
                    if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                        if line.hasPrefix("PORT "), let value = Int(line.dropFirst(5)) { port = value }
                        return true
                    }
                    return chunk.isEmpty   // end of file: the process exited
                }
                if finished { break }
            }
            done.signal()
        }
        thread.start()
    }

    /// What the child printed so far (for error messages).
    var received: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    /// The port, or nil when the line did not arrive in time or was not a port line.
    func waitForPort(timeout: TimeInterval) -> Int? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { port }
    }
}

/// Terminates still-running servers when the test process exits normally (a crash closes their
/// stdin instead, which makes them exit on their own).
private enum ExitHook {
    private static let lock = NSLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private static var servers: [ObjectIdentifier: TestServer] = [:]
    nonisolated(unsafe) private static var installed = false

    static func register(_ server: TestServer) {
        let install = lock.withLock { () -> Bool in
            servers[ObjectIdentifier(server)] = server
            defer { installed = true }
            return !installed
        }
        if install {
            atexit { ExitHook.stopAll() }
        }
    }

    static func unregister(_ server: TestServer) {
        _ = lock.withLock { servers.removeValue(forKey: ObjectIdentifier(server)) }
    }

    static func stopAll() {
        let running = lock.withLock { () -> [TestServer] in
            defer { servers.removeAll() }
            return Array(servers.values)
        }
        for server in running { server.stop() }
    }
}
