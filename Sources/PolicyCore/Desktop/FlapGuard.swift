/// Tells a source that keeps changing from one a person switches: more
/// than `limit` changes within `window` seconds is flapping, and a flapping
/// source is trusted again once it kept one value for `window` seconds
/// (docs/POLICY.md, "Do Not Disturb"). A person toggling Do Not Disturb
/// does not do it nine times in ten seconds; a broken service may, and
/// following it would flap every alert with it.
public struct FlapGuard: Sendable, Equatable {
    public let limit: Int
    public let window: Double
    /// When the changes within the window happened, oldest first.
    private var changes: [Double] = []
    public private(set) var isFlapping = false

    public init(limit: Int = 8, window: Double = 10) {
        self.limit = limit; self.window = window
    }

    /// A change of value at `now` (monotonic seconds).
    public mutating func changed(at now: Double) {
        changes.append(now)
        changes.removeAll { now - $0 > window }
        if changes.count > limit { isFlapping = true }
    }

    /// When a flapping source is next worth looking at again: `window`
    /// after its last change; nil when it is not flapping.
    public var trustedAgainAt: Double? {
        guard isFlapping, let last = changes.last else { return nil }
        return last + window
    }

    /// At `now`, trusts the source again if it kept still long enough;
    /// true when that ended its flapping.
    public mutating func settle(at now: Double) -> Bool {
        guard let trustedAgainAt, now >= trustedAgainAt else { return false }
        isFlapping = false
        changes = []
        return true
    }
}
