import Dispatch

/// Selects the handler overloads that run on the main actor: `on: .mainActor`.
///
/// Handlers passed with `on: .main` must be `@Sendable`, so under Swift 6 they cannot touch
/// main-actor state (a view model, a view controller) without `MainActor.assumeIsolated`. With
/// `on: .mainActor` the handler is a `@MainActor` closure instead: it runs on the main queue,
/// isolated to the main actor, and may call main-actor methods directly.
///
/// Every operator that takes a handler and an `on:` queue has a form that takes it: `then`,
/// `map`, `compactMap`, `done`, `get`, `tap`, `recover` and `catch` (also their typed `only:`
/// forms), `ensure`, `ensureThen`, `finally` (on a ``PromiseFinalizer`` and on a
/// `Promise<Void>`), and the sequence operators `mapValues`, `compactMapValues`,
/// `flatMapValues`, `filterValues`, `firstValue(where:)`, `thenMap` and `thenFlatMap`, and
/// `when(fulfilled:concurrently:on:_:)`.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     var name = ""
///     var failure: String?
///
///     func load(_ profile: Promise<String>) {
///         profile
///             .done(on: .mainActor) { name in self.name = name }
///             .catch(on: .mainActor) { error in self.failure = "\(error)" }
///     }
/// }
/// ```
///
/// The main queue must be serviced: apps service it, and so does a `main.swift` that uses
/// top-level `await`; any other command-line program or server on Linux must call
/// `dispatchMain()` or run the main run loop, or these handlers never run.
public struct MainActorTarget: Sendable {
    /// The main actor, reached through the main queue.
    public static let mainActor = MainActorTarget()

    private init() {}
}

extension Promise {
    /// ``then(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Returns the next promise; a throw rejects the returned promise.
    public func then<U>(
        on target: MainActorTarget, _ body: @escaping @MainActor (Value) throws -> Promise<U>
    ) -> Promise<U> {
        then(on: .main) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// ``map(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Returns the new value; a throw rejects the returned promise.
    public func map<U>(on target: MainActorTarget, _ body: @escaping @MainActor (Value) throws -> U) -> Promise<U> {
        map(on: .main) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// ``done(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// ```swift
    /// client.request(Feed.latest).done(on: .mainActor) { feed in self.items = feed.items }
    /// ```
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Uses the value; a throw rejects the returned promise.
    public func done(on target: MainActorTarget, _ body: @escaping @MainActor (Value) throws -> Void) -> Promise<Void> {
        done(on: .main) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// ``get(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: The side effect; a throw rejects the returned promise.
    public func get(on target: MainActorTarget, _ body: @escaping @MainActor (Value) throws -> Void) -> Promise<Value> {
        get(on: .main) { value in try MainActor.assumeIsolated { try body(value) } }
    }

    /// ``tap(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Sees the result.
    public func tap(
        on target: MainActorTarget, _ body: @escaping @MainActor (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        tap(on: .main) { result in MainActor.assumeIsolated { body(result) } }
    }

    /// ``recover(on:policy:_:)-(DispatchQueue,_,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - policy: Whether cancellations reach `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Returns a replacement promise, or rethrows to keep the promise rejected.
    public func recover(
        on target: MainActorTarget, policy: CatchPolicy = .allErrors,
        _ body: @escaping @MainActor (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(on: .main, policy: policy) { error in try MainActor.assumeIsolated { try body(error) } }
    }

    /// ``ensure(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// ```swift
    /// spinner.isHidden = false
    /// client.request(Feed.latest)
    ///     .ensure(on: .mainActor) { self.spinner.isHidden = true }
    ///     .done(on: .mainActor) { feed in self.items = feed.items }
    ///     .cauterize()
    /// ```
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Clean-up work; it runs however the promise settles.
    public func ensure(on target: MainActorTarget, _ body: @escaping @MainActor () -> Void) -> Promise<Value> {
        ensure(on: .main) { MainActor.assumeIsolated { body() } }
    }

    /// ``catch(on:policy:_:)-(DispatchQueue,_,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - policy: Whether cancellations reach `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Sees the error.
    /// - Returns: A ``PromiseFinalizer`` for `finally` or `cancel`.
    @discardableResult
    public func `catch`(
        on target: MainActorTarget, policy: CatchPolicy = .allErrors, _ body: @escaping @MainActor (any Error) -> Void
    ) -> PromiseFinalizer {
        self.catch(on: .main, policy: policy) { error in MainActor.assumeIsolated { body(error) } }
    }
}

extension Promise where Value == Void {
    /// ``finally(on:_:)-(DispatchQueue,_)`` (the end of a chain of typed `catch`es) with a
    /// handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Clean-up work.
    /// - Returns: A promise settled like this one after `body` ran.
    @discardableResult
    public func finally(on target: MainActorTarget, _ body: @escaping @MainActor () -> Void) -> Promise<Void> {
        ensure(on: .main) { MainActor.assumeIsolated { body() } }
    }
}

extension PromiseFinalizer {
    /// ``finally(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Clean-up work.
    /// - Returns: A promise fulfilled after `body` ran.
    @discardableResult
    public func finally(on target: MainActorTarget, _ body: @escaping @MainActor () -> Void) -> Promise<Void> {
        finally(on: .main) { MainActor.assumeIsolated { body() } }
    }
}
