/// Tells a peer that floods the session bus from one that says what
/// changes: a player's PropertiesChanged (docs/PLAYERS.md, "A player that
/// floods the bus"), an app's calls to the audio-session service
/// (docs/API.md, "Safe against its callers"). A player reports a track
/// change, a pause, a new volume: a handful a second at most; an app
/// declares its session and changes it now and then. One that sends more
/// than `limit` in a second is not listened to for a while — a player's
/// signals are unsubscribed, so the bus daemon stops routing them to the
/// agent at all, and its properties are read once a second instead; an
/// app's calls are refused — then listened to again; each flood after that
/// keeps it quiet twice as long, up to `longestQuiet`.
public struct FloodGuard: Sendable, Equatable {
    public static let limit = 100
    public static let firstQuiet = 10.0
    public static let longestQuiet = 80.0

    /// Signals counted in the current one-second window, and when it began.
    private var windowStart = -Double.infinity
    private var count = 0
    /// Until when its signals are not listened to; nil while they are.
    public private(set) var quietUntil: Double?
    private var nextQuiet = FloodGuard.firstQuiet

    public init() {}

    public var isQuieted: Bool { quietUntil != nil }

    /// A PropertiesChanged at `now` (monotonic seconds); true when this one
    /// made the player a flooder (stop listening to it now).
    public mutating func signal(at now: Double) -> Bool {
        guard quietUntil == nil else { return false }
        if now - windowStart >= 1 {
            windowStart = now
            count = 0
        }
        count += 1
        guard count > Self.limit else { return false }
        quietUntil = now + nextQuiet
        nextQuiet = min(nextQuiet * 2, Self.longestQuiet)
        count = 0
        return true
    }

    /// At `now`, whether to listen to it again (its quiet time is over).
    public mutating func listenAgain(at now: Double) -> Bool {
        guard let quietUntil, now >= quietUntil else { return false }
        self.quietUntil = nil
        windowStart = -Double.infinity
        return true
    }
}
