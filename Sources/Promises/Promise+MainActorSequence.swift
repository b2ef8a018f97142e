import Dispatch

/// The sequence operators with handlers isolated to the main actor (see ``MainActorTarget``):
/// each element is handled on the main queue, where main-actor state may be read directly.
///
/// ```swift
/// @MainActor final class Gallery {
///     var selected: Set<Int> = []
///
///     func visible(_ photos: Promise<[Photo]>) -> Promise<[Photo]> {
///         photos.filterValues(on: .mainActor) { !self.selected.contains($0.id) }
///     }
/// }
/// ```
extension Promise where Value: Sequence, Value.Element: Sendable {
    /// ``mapValues(on:_:)-(DispatchQueue,_)`` with a transform isolated to the main actor.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - transform: Called once per element; a throw rejects the returned promise.
    public func mapValues<U: Sendable>(
        on target: MainActorTarget, _ transform: @escaping @MainActor (Value.Element) throws -> U
    ) -> Promise<[U]> {
        map(on: target) { try $0.map(transform) }
    }

    /// ``compactMapValues(on:_:)-(DispatchQueue,_)`` with a transform isolated to the main actor.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - transform: Called once per element; `nil` leaves the element out.
    public func compactMapValues<U: Sendable>(
        on target: MainActorTarget, _ transform: @escaping @MainActor (Value.Element) throws -> U?
    ) -> Promise<[U]> {
        map(on: target) { try $0.compactMap(transform) }
    }

    /// ``flatMapValues(on:_:)-(DispatchQueue,_)`` with a transform isolated to the main actor.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - transform: Called once per element.
    public func flatMapValues<S: Sequence & Sendable>(
        on target: MainActorTarget, _ transform: @escaping @MainActor (Value.Element) throws -> S
    ) -> Promise<[S.Element]> where S.Element: Sendable {
        map(on: target) { try $0.flatMap(transform) }
    }

    /// ``filterValues(on:_:)-(DispatchQueue,_)`` with a predicate isolated to the main actor.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - isIncluded: Called once per element.
    public func filterValues(
        on target: MainActorTarget, _ isIncluded: @escaping @MainActor (Value.Element) throws -> Bool
    ) -> Promise<[Value.Element]> {
        map(on: target) { try $0.filter(isIncluded) }
    }

    /// ``firstValue(on:where:)-(DispatchQueue,_)`` with a predicate isolated to the main actor.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - predicate: Called on the elements in order until it returns `true`.
    public func firstValue(
        on target: MainActorTarget, where predicate: @escaping @MainActor (Value.Element) throws -> Bool
    ) -> Promise<Value.Element> {
        map(on: target) { values in try Self.first(of: values, where: predicate) }
    }

    /// ``thenMap(on:_:)-(DispatchQueue,_)`` with a transform isolated to the main actor: every
    /// element's work is started on the main queue.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - transform: Starts the work for one element. A throw rejects the result and cancels
    ///     the promises already started.
    public func thenMap<U: Sendable>(
        on target: MainActorTarget, _ transform: @escaping @MainActor (Value.Element) throws -> Promise<U>
    ) -> Promise<[U]> {
        then(on: target) { values in try Self.startEach(of: values, transform) }
    }

    /// ``thenFlatMap(on:_:)-(DispatchQueue,_)`` with a transform isolated to the main actor:
    /// every element's work is started on the main queue.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - transform: Starts the work for one element. A throw, or the first rejection, rejects
    ///     the result and cancels the promises already started.
    public func thenFlatMap<S: Sequence & Sendable>(
        on target: MainActorTarget, _ transform: @escaping @MainActor (Value.Element) throws -> Promise<S>
    ) -> Promise<[S.Element]> where S.Element: Sendable {
        thenMap(on: target, transform).map(on: .promises) { $0.flatMap { $0 } }
    }
}

extension Promise {
    /// ``ensureThen(on:_:)-(DispatchQueue,_)`` with a clean-up isolated to the main actor.
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Starts the clean-up and returns a promise of its end.
    public func ensureThen(
        on target: MainActorTarget, _ body: @escaping @MainActor () -> Promise<Void>
    ) -> Promise<Value> {
        ensureThen(on: .main) { MainActor.assumeIsolated { body() } }
    }
}

/// ``when(fulfilled:concurrently:on:_:)-(_,_,DispatchQueue,_)`` with `body` isolated to the
/// main actor: each element's work is started on the main queue.
///
/// - Parameters:
///   - elements: The inputs, read once, up front.
///   - limit: The most promises pending at once. A value below 1 counts as 1.
///   - target: `.mainActor`.
///   - body: Starts the work for one element.
/// - Returns: A promise of every value, in order; an empty `elements` fulfils with `[]`.
public func when<Element: Sendable, T: Sendable>(
    fulfilled elements: some Sequence<Element>,
    concurrently limit: Int,
    on target: MainActorTarget,
    _ body: @escaping @MainActor (Element) throws -> Promise<T>
) -> Promise<[T]> {
    when(fulfilled: elements, concurrently: limit, on: .main) { element in
        try MainActor.assumeIsolated { try body(element) }
    }
}
