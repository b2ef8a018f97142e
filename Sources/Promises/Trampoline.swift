import Dispatch

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps combinators nested in one another (a `when` or `race` whose input is the result of
/// another) from settling or cancelling one level per stack frame: each level's work is queued
/// on the thread that is already doing the level above, which runs it once that level returns,
/// in a loop. Pipes (`then`, `map`, …) never needed this: ``Promise/_deliver(_:of:_:)`` follows
/// them in a loop of its own.
@usableFromInline
enum Trampoline {
    /// The work queued on one thread while it runs the outermost level. Only that thread
    /// touches it.
    private final class Line {
        var settles: [() -> Void] = []
        var cancels: [(start: any PromiseUpstream, reason: PromiseError)] = []
        var isCancelling = false
    }

    /// The thread-local key under which the running line is found.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var current: Line? {
        pthread_getspecific(key).map { Unmanaged<Line>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` now, with a line of its own, and then whatever it queued, in the order the
    /// nested calls would have run it: the work a piece of work queues runs right after that
    /// piece, before the work queued ahead of it (depth first, as recursion would), and in the
    /// order it was queued. So a `when` that settles and then cancels its other inputs still
    /// lets its result travel out through every level before those cancellations run.
    private static func withLine(_ body: (Line) -> Void) {
        let line = Line()
        let outer = pthread_getspecific(key)   // nil: callers start a line only when none runs
        pthread_setspecific(key, Unmanaged.passUnretained(line).toOpaque())
        defer { pthread_setspecific(key, outer) }
        withExtendedLifetime(line) {
            body(line)
            var stack: [() -> Void] = []
            repeat {
                stack.append(contentsOf: line.settles.reversed())
                line.settles.removeAll(keepingCapacity: true)
                guard let work = stack.popLast() else { break }
                work()
            } while true
        }
    }

    /// Runs `deliver` (the notification of a combinator's result) now, or after the current
    /// one when this thread is already notifying one.
    @usableFromInline
    static func settle(_ deliver: @escaping () -> Void) {
        if let line = current {
            line.settles.append(deliver)
            return
        }
        withLine { _ in deliver() }
    }

    /// Cancels from `start` with `reason`, as ``Promise/_cancelChain(from:with:)`` describes: now,
    /// or, when this thread is already cancelling (a hook that cancels other promises), right
    /// after the chain it is on, in the same loop. Observers are notified once every chain is
    /// aborted.
    @usableFromInline
    static func cancel(from start: any PromiseUpstream, with reason: PromiseError) {
        guard let line = current else {
            withLine { line in abort(from: start, with: reason, in: line) }
            return
        }
        if line.isCancelling {
            line.cancels.append((start, reason))   // a hook's cancel: after the chain being aborted
        } else {
            // Notifying a result (a `when` cancelling its other inputs after a failure): the
            // cancellation runs after that notification, like any nested level.
            line.settles.append { abort(from: start, with: reason, in: line) }
        }
    }

    /// Aborts the chain from `start` and every chain its hooks cancel, in one loop; then queues
    /// the notifications of every promise it settled on `line`.
    private static func abort(from start: any PromiseUpstream, with reason: PromiseError, in line: Line) {
        line.isCancelling = true
        line.cancels.append((start, reason))
        var deliveries: [@Sendable () -> Void] = []
        var index = 0
        while index < line.cancels.count {
            var next: (any PromiseUpstream)? = line.cancels[index].start
            var reason = line.cancels[index].reason
            index += 1
            while let node = next {
                next = node._abort(with: reason, deferring: &deliveries)
                reason = .cancelled
            }
        }
        line.cancels.removeAll()
        line.isCancelling = false
        for deliver in deliveries { line.settles.append(deliver) }   // one by one: converting the array traps
    }
}
