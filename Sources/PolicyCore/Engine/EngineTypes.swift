/// Identifies an application's audio session: the streams of one app (same
/// process / application id / client) that share a category act as one, so a
/// call's capture and playback streams are one session.
public struct SessionKey: Sendable, Hashable, Comparable, Codable, CodingKeyRepresentable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func < (a: SessionKey, b: SessionKey) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }

    /// The app instance the session belongs to: session keys are
    /// `<app instance>/<category>` (AppIdentity.sessionKey), so this is the
    /// part before the last `/`, or the whole key when it has none. Sessions
    /// of one app never hold, duck or silence each other (docs/POLICY.md,
    /// "One app").
    public var app: Substring {
        guard let slash = rawValue.lastIndex(of: "/") else { return Substring(rawValue) }
        return rawValue[..<slash]
    }

    // A journal of EngineMemory then reads as a JSON object keyed by session.
    public var codingKey: any CodingKey { SessionCodingKey(stringValue: rawValue) }
    public init?<T: CodingKey>(codingKey: T) { self.init(codingKey.stringValue) }
    private struct SessionCodingKey: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
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

    public init(now: Double, streams: [StreamInput], outputs: [OutputInput], defaultOutput: UInt32? = nil,
                silentMode: Bool = false, silentModeReason: String = "", resumeRequests: Set<UInt32> = [],
                screenCasts: [ScreenCast] = []) {
        self.now = now; self.streams = streams; self.outputs = outputs
        self.defaultOutput = defaultOutput; self.silentMode = silentMode; self.silentModeReason = silentModeReason
        self.resumeRequests = resumeRequests; self.screenCasts = screenCasts
    }
}

/// Why a stream is held (unlinked, gain 0).
public enum HoldReason: Sendable, Equatable, Hashable {
    /// Another session interrupted this one; `resumable`: it should resume when that ends.
    case interrupted(by: SessionKey, app: String, resumable: Bool)
    /// This session waits until an active one ends (hold-incoming).
    case waiting(for: SessionKey, app: String)
    /// The private output it played on went away (headphones unplugged);
    /// held until the user resumes it or moves it.
    case routeLost(output: String)
}

/// What the engine wants for one stream.
public struct StreamDecision: Sendable, Equatable {
    /// The policy gain (Props `volume`): 1.0, a duck level, or 0.
    public var gain: Double
    public var hold: HoldReason?
    /// Silent mode, presenting or a silence-incoming rule keeps it at gain 0 (it stays linked).
    public var silenced: Bool
    /// Sessions ducking this one, if any.
    public var duckedBy: [SessionKey]
    /// Where it should play (a sink id), when a rule prefers a device; nil = leave routing alone.
    public var preferredTarget: UInt32?
    /// Why: one line per effect, naming the other session and the matrix cell.
    public var explanation: [String]

    public init(gain: Double = 1.0, hold: HoldReason? = nil, silenced: Bool = false,
                duckedBy: [SessionKey] = [], preferredTarget: UInt32? = nil, explanation: [String] = []) {
        self.gain = gain; self.hold = hold; self.silenced = silenced; self.duckedBy = duckedBy
        self.preferredTarget = preferredTarget; self.explanation = explanation
    }

    /// What a stream gets when the policy has nothing to say: as without the agent.
    public static let untouched = StreamDecision()
}

public enum RouteChangeReason: String, Sendable, Equatable, Hashable, Codable {
    case newDeviceAvailable = "new-device-available"
    case oldDeviceUnavailable = "old-device-unavailable"
    case userChoice = "user-choice"
}

/// Something that happened, for the log and `pw-policy monitor`.
public enum PolicyEvent: Sendable, Equatable, Hashable {
    case interruptionBegan(session: SessionKey, by: SessionKey, resumable: Bool)
    case interruptionEnded(session: SessionKey, shouldResume: Bool)
    case duckBegan(session: SessionKey, by: SessionKey, level: Double)
    case duckEnded(session: SessionKey)
    case silenced(session: SessionKey)
    case unsilenced(session: SessionKey)
    case routeChanged(reason: RouteChangeReason, output: String)
    case heldForRoute(stream: UInt32, output: String)
    case resumed(stream: UInt32)
}

/// The engine's own memory between decisions (interruptions in progress,
/// when sessions became active, where streams played). It is part of the
/// state the agent journals, so it is plain data.
public struct EngineMemory: Sendable, Equatable, Codable {
    /// Kept only while the session is active (debounce included).
    public struct SessionMemory: Sendable, Equatable, Codable {
        /// When the session became active (its place in the activation order).
        public var activeSince: Double
        /// When it was last seen active; a gap shorter than the debounce keeps it active.
        public var lastActive: Double
        /// What the session was, so it keeps acting during a debounce gap even
        /// when its streams are gone (a prompt that opens a new stream per phrase).
        public var category: Category
        public var options: Set<PolicyOption>
        public var mode: AudioMode
        public var appName: String
        /// Held by another session in that decision.
        public var interruption: InterruptionMemory?
        /// Ducked in that decision, to this level.
        public var ducked: Double?
        public init(activeSince: Double, lastActive: Double, category: Category = .playback,
                    options: Set<PolicyOption> = [], mode: AudioMode = .default, appName: String = "",
                    interruption: InterruptionMemory? = nil, ducked: Double? = nil) {
            self.activeSince = activeSince; self.lastActive = lastActive
            self.category = category; self.options = options; self.mode = mode; self.appName = appName
            self.interruption = interruption; self.ducked = ducked
        }
    }
    /// A session held by another one (interrupted, or waiting for it to end).
    public struct InterruptionMemory: Sendable, Equatable, Codable {
        public var by: SessionKey
        /// Should resume when it ends (always true for a waiting session).
        public var resumable: Bool
        /// Held by hold-incoming rather than interrupted.
        public var waiting: Bool
        public init(by: SessionKey, resumable: Bool, waiting: Bool = false) {
            self.by = by; self.resumable = resumable; self.waiting = waiting
        }
    }
    public struct StreamMemory: Sendable, Equatable, Codable {
        /// The last output it played to and whether that output was private.
        public var lastOutput: UInt32?
        public var lastOutputPrivate: Bool
        public var lastOutputName: String?
        /// Held because its private output went away, until resumed or moved.
        public var routeLost: Bool
        /// The output whose private port the user switched away from while it
        /// played there (a port picked, not a jack pulled), while it still
        /// plays there: `explain` says why it was not held. Nil in journals
        /// written before ports were followed.
        public var portPickedOn: String?
        /// When the route was lost (nil in journals written before
        /// `route.resume-on-return`).
        public var routeLostAt: Double?
        public init(lastOutput: UInt32? = nil, lastOutputPrivate: Bool = false,
                    lastOutputName: String? = nil, routeLost: Bool = false, portPickedOn: String? = nil) {
            self.lastOutput = lastOutput; self.lastOutputPrivate = lastOutputPrivate
            self.lastOutputName = lastOutputName; self.routeLost = routeLost; self.portPickedOn = portPickedOn
        }
    }
    public var sessions: [SessionKey: SessionMemory]
    public var streams: [UInt32: StreamMemory]
    /// The previous decision's held streams: a held stream is idle because we
    /// unlinked it, yet its session still wants to play.
    public var held: [UInt32: HoldReason.Kind]
    /// Usable outputs (present and available) of the previous decision, by name.
    public var outputs: [UInt32: String]
    /// Those of them that were private (headphones, headset, Bluetooth).
    public var privateOutputs: Set<UInt32>
    /// The port each of them played to, where it has ports; nil in journals
    /// written before ports were followed.
    public var outputPorts: [UInt32: String]?
    public var defaultOutput: UInt32?
    /// Sessions silenced (silent mode, presenting or silence-incoming) in the previous decision.
    public var silenced: Set<SessionKey>
    /// The app names of those that are not active: they have no `sessions`
    /// entry, yet their unsilenced event must name them after their streams
    /// are gone. Nil when there are none, and in journals written before
    /// names were kept.
    public var silencedApps: [SessionKey: String]?
    /// When the decision that produced this memory was made; nil = no decision yet
    /// (the first decision reports no route changes: it has nothing to compare with).
    public var time: Double?

    public init(sessions: [SessionKey: SessionMemory] = [:], streams: [UInt32: StreamMemory] = [:],
                held: [UInt32: HoldReason.Kind] = [:], outputs: [UInt32: String] = [:],
                privateOutputs: Set<UInt32> = [], defaultOutput: UInt32? = nil,
                silenced: Set<SessionKey> = [], time: Double? = nil) {
        self.sessions = sessions; self.streams = streams; self.held = held
        self.outputs = outputs; self.privateOutputs = privateOutputs; self.defaultOutput = defaultOutput
        self.silenced = silenced; self.time = time
    }

    /// Sessions held by another session in that decision.
    public var interruptions: [SessionKey: InterruptionMemory] { sessions.compactMapValues(\.interruption) }
    /// Sessions ducked in that decision, with their level.
    public var ducked: [SessionKey: Double] { sessions.compactMapValues(\.ducked) }

    public static let empty = EngineMemory()
}

extension HoldReason {
    public enum Kind: String, Sendable, Equatable, Codable { case interrupted, waiting, routeLost = "route-lost" }
    public var kind: Kind {
        switch self {
        case .interrupted: .interrupted
        case .waiting: .waiting
        case .routeLost: .routeLost
        }
    }
}

/// The engine's answer.
public struct PolicyDecision: Sendable, Equatable {
    /// A decision for every input stream.
    public var streams: [UInt32: StreamDecision]
    public var memory: EngineMemory
    public var events: [PolicyEvent]
    /// When the decision may change with no new input (a debounce expiring):
    /// the caller re-runs the engine at that time. nil = not until input changes.
    public var nextWakeup: Double?
    /// How its events and statuses name the sessions and streams they speak of.
    public var names: DecisionNames

    public init(streams: [UInt32: StreamDecision], memory: EngineMemory, events: [PolicyEvent], nextWakeup: Double?,
                names: DecisionNames = DecisionNames()) {
        self.streams = streams; self.memory = memory; self.events = events; self.nextWakeup = nextWakeup
        self.names = names
    }
}
