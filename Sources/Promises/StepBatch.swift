import Dispatch

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The chain steps that one thread runs back to back on one queue.
///
/// When a `map`/`done`/`get` step settles its promise at the end of its run on queue `q`, the
/// next step of the chain, if it is also bound to `q`, waits here instead of being dispatched
/// to `q` again: the thread running the batch runs it right after, in a loop (no recursion,
/// so long chains cannot overflow the stack). Each still runs on
/// `q`, after the call that attached it returned, and after the step before it finished:
/// only the dispatch round trip (a block allocation, a queue push and a wake-up) is saved.
///
/// The batch accepts one step at a time, and only the *sole* observer of the promise a step
/// has just settled, when that observer is itself a `map`/`done`/`get` step: the settling
/// step opens the window, the next step's hand-over closes it (joined or not). So
/// - nothing runs in the window but the library's own hand-over: no user handler, hook or
///   predicate; whatever a handler triggers itself (fulfilling a resolver, attaching to a
///   settled promise) is dispatched as usual, and a handler that blocks waiting for such work
///   cannot wait on its own thread;
/// - a promise with several observers notifies them as usual, so siblings on a concurrent
///   queue still run in parallel and observers of one promise keep their attachment order;
/// - at most one job waits at any time, so finished steps are freed as they finish;
/// - a batch runs the step that started it and at most ``maximumJoined`` more; the step after
///   them is dispatched as usual,
///   so other blocks waiting on a serial queue (the main queue on Apple platforms) run between
///   stretches of a long chain instead of after all of it.
@usableFromInline
struct StepBatch {
    /// How many steps may join one batch after the step that started it.
    @usableFromInline static let maximumJoined = 64

    /// The queue every job of this batch runs on.
    @usableFromInline let queue: DispatchQueue
    /// Whether a step's promise is being settled by the library right now (see above).
    @usableFromInline var isAccepting = false
    /// The step waiting to run (one settle accepts one step, so there is never more).
    @usableFromInline var waiting: (@Sendable (UnsafeMutablePointer<StepBatch>) -> Void)?
    /// How many steps joined so far.
    @usableFromInline var joined = 0

    @usableFromInline init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// The thread-local key under which a running batch is found.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Appends `job` to the current thread's batch if that batch accepts steps for `queue`;
    /// returns `false` (and does nothing) otherwise.
    @usableFromInline
    static func append(
        _ job: @escaping @Sendable (UnsafeMutablePointer<StepBatch>) -> Void, on queue: DispatchQueue
    ) -> Bool {
        guard let raw = pthread_getspecific(key) else { return false }
        let batch = raw.assumingMemoryBound(to: StepBatch.self)
        guard batch.pointee.isAccepting else { return false }
        batch.pointee.isAccepting = false  // one step per settle, whatever its queue
        guard batch.pointee.queue === queue, batch.pointee.joined < maximumJoined else { return false }
        batch.pointee.joined += 1
        batch.pointee.waiting = job
        return true
    }

    /// Runs `first` and then each step that joined meanwhile, on the current thread, which must
    /// be running a block of `queue`.
    @usableFromInline
    static func run(on queue: DispatchQueue, _ first: (UnsafeMutablePointer<StepBatch>) -> Void) {
        let outer = pthread_getspecific(key)
        var batch = StepBatch(queue: queue)
        withUnsafeMutablePointer(to: &batch) { pointer in
            pthread_setspecific(key, pointer)
            first(pointer)
            while let job = pointer.pointee.waiting {
                pointer.pointee.waiting = nil
                job(pointer)
            }
            pthread_setspecific(key, outer)
        }
    }
}
