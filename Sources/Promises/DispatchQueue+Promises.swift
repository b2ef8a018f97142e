import Dispatch

extension DispatchQueue {
    /// The queue promise handlers run on when no `on:` queue is given:
    /// the global concurrent queue of quality of service `.default`.
    ///
    /// It is never the main queue: command-line programs and servers on Linux never
    /// service the main queue unless they call `dispatchMain()`, and apps should opt in
    /// to main-thread handlers explicitly with `on: .main`. Because it is concurrent,
    /// handlers attached to the same promise may run in parallel; pass a serial queue
    /// when their order matters.
    public static let promises: DispatchQueue = .global(qos: .default)
}
