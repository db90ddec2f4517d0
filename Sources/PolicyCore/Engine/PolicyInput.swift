/// Everything the engine decides from. Level-triggered: the same input and
/// memory always give the same decision.
public struct PolicyInput: Sendable, Equatable {
    /// Monotonic time in seconds.
    public var now: Double
    public var streams: [StreamInput]
    public var outputs: [OutputInput]
    /// The default sink's id, if any.
    public var defaultOutput: UInt32?
    public var silentMode: Bool
    /// Why silent mode is on, for explain ("set by the user", "following
    /// Do Not Disturb (on in dunst)"); empty: not said.
    public var silentModeReason: String
    /// Streams the user asked to resume (`pw-policy resume`) since the last decision.
    public var resumeRequests: Set<UInt32>
    /// The screen casts shared now: while there is one, the session is
    /// presenting (docs/POLICY.md, "Presenting").
    public var screenCasts: [ScreenCast]
    /// While the session is locked and locking silences (`silent.while-locked`):
    /// what says it is locked ("GNOME"), for explain; nil otherwise. What
    /// silent mode silences is silenced (docs/POLICY.md, "Screen lock").
    public var screenLocked: String?
    /// Engine sessions whose app said it is done and asked that the
    /// sessions it interrupted be told at once (an audio session's
    /// `Deactivate(true)`, docs/API.md): no debounce gap keeps them active
    /// once their streams stop.
    public var endedSessions: Set<SessionKey>

    public init(now: Double, streams: [StreamInput], outputs: [OutputInput], defaultOutput: UInt32? = nil,
                silentMode: Bool = false, silentModeReason: String = "", resumeRequests: Set<UInt32> = [],
                screenCasts: [ScreenCast] = [], screenLocked: String? = nil, endedSessions: Set<SessionKey> = []) {
        self.now = now; self.streams = streams; self.outputs = outputs
        self.defaultOutput = defaultOutput; self.silentMode = silentMode; self.silentModeReason = silentModeReason
        self.resumeRequests = resumeRequests; self.screenCasts = screenCasts
        self.screenLocked = screenLocked; self.endedSessions = endedSessions
    }
}

/// One stream as the engine sees it.
public struct StreamInput: Sendable, Equatable {
    public var id: UInt32
    public var session: SessionKey
    /// A human name for the app ("Firefox", "pw-play"), used in reasons.
    public var appName: String
    public var direction: StreamDirection
    public var classification: Classification
    /// The node is `running` (audio flows or would flow if linked).
    public var isRunning: Bool
    /// The sink node this stream plays to right now (from its links), if any.
    public var output: UInt32?
    /// Not running because it has no links at all (someone else unlinked it,
    /// e.g. WirePlumber's links went with WirePlumber), not because the app
    /// paused: if its session was active, it still wants to play.
    public var isUnlinked: Bool
    /// What a peak meter on the stream measured; nil when it is not metered
    /// (its node state alone says whether it plays).
    public var audibility: Audibility?

    public init(id: UInt32, session: SessionKey, appName: String, direction: StreamDirection,
                classification: Classification, isRunning: Bool, output: UInt32? = nil, isUnlinked: Bool = false,
                audibility: Audibility? = nil) {
        self.id = id; self.session = session; self.appName = appName; self.direction = direction
        self.classification = classification; self.isRunning = isRunning; self.output = output
        self.isUnlinked = isUnlinked; self.audibility = audibility
    }
}

/// What a peak meter on a running stream measured: whether it carries
/// sound (docs/POLICY.md, "Ducking while audible").
public enum Audibility: Sendable, Equatable {
    /// The meter has measured nothing yet (it is starting): a session that
    /// was active stays so by node state, one that was not waits for sound.
    case unmeasured
    /// Nothing loud since the meter started.
    case notYetAudible
    case audible
    /// Quiet since this (monotonic) time, its last loud moment.
    case quiet(since: Double)
}

/// An audio output (sink) as the engine sees it.
public struct OutputInput: Sendable, Equatable {
    public var id: UInt32
    public var name: String
    /// Headphones, headset, Bluetooth…: audio there is private to the user, and
    /// losing it must not leak audio to the speakers.
    public var isPrivate: Bool
    /// False when it has nowhere left to play: every port of its device
    /// unplugged, or its node going away.
    public var isAvailable: Bool
    /// The sink node's properties, matched by a rule's `prefer-target`.
    public var props: [String: String]
    /// The port it plays to (its device's active route), if it has ports.
    public var port: String?
    /// Its device's ports reported unplugged (`available: no`); nil when the
    /// device tells nothing of its ports. Tells a jack pulled from the port
    /// it played to from a port the user picked (docs/POLICY.md, route changes).
    public var unpluggedPorts: Set<String>?
    public init(id: UInt32, name: String, isPrivate: Bool, isAvailable: Bool = true, props: [String: String] = [:],
                port: String? = nil, unpluggedPorts: Set<String>? = nil) {
        self.id = id; self.name = name; self.isPrivate = isPrivate; self.isAvailable = isAvailable
        self.props = props; self.port = port; self.unpluggedPorts = unpluggedPorts
    }
}
