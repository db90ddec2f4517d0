/// The audio-session service's vocabulary, declared once: its bus name,
/// objects, interfaces, members, errors and limits (docs/API.md). The
/// introspection the agent answers is `AudioSessionIntrospection`, and
/// `dbus/*.xml` in the repository is the same text.
public enum AudioSessionAPI {
    /// The well-known name the agent owns on the session bus.
    public static let busName = "org.pwpolicy.AudioSession1"
    /// The manager object and its interface: `CreateSession`.
    public static let managerPath = "/org/pwpolicy/AudioSession1"
    public static let managerInterface = "org.pwpolicy.AudioSession1"
    /// Each session is an object below `sessionPathPrefix`, numbered from 1.
    public static let sessionInterface = "org.pwpolicy.AudioSession1.Session"
    public static let sessionPathPrefix = "/org/pwpolicy/AudioSession1/session/"

    /// The stream property an app sets to its session's `Token` (with
    /// `PIPEWIRE_PROPS` or `PULSE_PROP`) when it has several sessions, or
    /// plays from a process outside its own tree.
    public static let streamTokenKey = "policy.session"

    /// Methods.
    public static let createSession = "CreateSession"
    public static let setCategory = "SetCategory"
    public static let deactivate = "Deactivate"
    public static let close = "Close"

    /// The D-Bus errors a caller gets (the bus's standard names: every
    /// client library knows them).
    public enum Error {
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    }

    /// How many sessions one connection may hold at once, and all
    /// connections together: a caller cannot grow the agent without bound.
    public static let sessionsPerCaller = 16
    public static let sessionsInAll = 256

    /// The object path of session `id`.
    public static func path(of id: UInt32) -> String { sessionPathPrefix + String(id) }

    /// The session id an object path names; nil for any other path.
    public static func id(of path: String) -> UInt32? {
        guard path.hasPrefix(sessionPathPrefix) else { return nil }
        let digits = path.dropFirst(sessionPathPrefix.count)
        guard !digits.isEmpty, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt32(digits)
    }
}

/// A session object's properties, all read-only (docs/API.md, "Properties").
public enum AudioSessionProperty: String, CaseIterable, Sendable, Comparable {
    // What the app declared.
    case category = "Category"
    case options = "Options"
    case mode = "Mode"
    /// What the app sets on streams as `policy.session` to put them in this session.
    case token = "Token"
    // What the policy does with it.
    case streams = "Streams"
    case active = "Active"
    case interrupted = "Interrupted"
    case ducked = "Ducked"
    case silenced = "Silenced"
    case output = "Output"
    // What it may ask.
    case otherAudioIsPlaying = "OtherAudioIsPlaying"
    case secondaryAudioShouldBeSilenced = "SecondaryAudioShouldBeSilenced"
    case silentMode = "SilentMode"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Its D-Bus type.
    public var signature: String {
        switch self {
        case .category, .mode, .token, .output: "s"
        case .options: "as"
        case .streams: "au"
        case .active, .interrupted, .ducked, .silenced, .otherAudioIsPlaying, .secondaryAudioShouldBeSilenced, .silentMode: "b"
        }
    }
}

/// A session object's signals, with their arguments' names and types
/// (docs/API.md, "Signals").
public enum AudioSessionSignal: String, CaseIterable, Sendable {
    /// (s app, s category, b resumable): another session holds this one.
    case interruptionBegan = "InterruptionBegan"
    /// (b should_resume): the interruption is over; play again if true.
    case interruptionEnded = "InterruptionEnded"
    /// (s app, d level): another session lowers this one to `level`.
    case duckBegan = "DuckBegan"
    case duckEnded = "DuckEnded"
    /// (s reason): silent mode, the lock, a recording or sharing keeps it at 0.
    case silenceBegan = "SilenceBegan"
    case silenceEnded = "SilenceEnded"
    /// (s reason, s previous_output, s output).
    case routeChanged = "RouteChanged"

    public var arguments: [(name: String, signature: String)] {
        switch self {
        case .interruptionBegan: [("app", "s"), ("category", "s"), ("resumable", "b")]
        case .interruptionEnded: [("should_resume", "b")]
        case .duckBegan: [("app", "s"), ("level", "d")]
        case .duckEnded, .silenceEnded: []
        case .silenceBegan: [("reason", "s")]
        case .routeChanged: [("reason", "s"), ("previous_output", "s"), ("output", "s")]
        }
    }
}

/// Why a session's output changed, as `RouteChanged` says it.
public enum AudioSessionRouteReason: String, Sendable, Equatable {
    /// A device came (headphones plugged in) and it plays there now.
    case newDeviceAvailable = "new-device-available"
    /// Its device went (headphones unplugged): it is held until resumed.
    case oldDeviceUnavailable = "old-device-unavailable"
    /// The user moved it, picked another default or port.
    case userChoice = "user-choice"
    /// Its new category plays elsewhere.
    case categoryChange = "category-change"

    init(_ reason: RouteChangeReason) {
        switch reason {
        case .newDeviceAvailable: self = .newDeviceAvailable
        case .oldDeviceUnavailable: self = .oldDeviceUnavailable
        case .userChoice: self = .userChoice
        }
    }
}

/// A value of a property or a signal's argument, as the adapter writes it.
public enum AudioSessionValue: Sendable, Equatable {
    case bool(Bool)
    case string(String)
    case strings([String])
    case uints([UInt32])
    case double(Double)
}
