import PolicyModel
import PolicyStack

/// How the agent and its users talk: entries of the `pw-policy` metadata
/// object the agent exports (docs/PROTOCOL.md). The agent publishes its
/// decisions there; the CLI, `pw-metadata -n pw-policy` or any client write
/// requests there. Values are JSON (type `Spa:String:JSON`) unless noted.
public enum AgentProtocol {
    public static let metadataName = "pw-policy"
    public static let jsonType = "Spa:String:JSON"
    /// The type of plain string values (a category or mode name).
    public static let stringType = "Spa:String"

    // Published by the agent.
    /// Subject 0: `AgentStatus`.
    public static let agentKey = "pw-policy.agent"

    /// Whether a reader has the agent's entries yet. The metadata lives in
    /// the agent's process: a client that binds it gets its entries from
    /// the agent, after the daemon's own round trips (PipeWire 1.6 answers
    /// them first), and the agent's status is always among them.
    public static func hasArrived(_ metadata: Graph.Metadata) -> Bool {
        metadata.value(subject: 0, key: agentKey) != nil
    }
    /// Subject 0: `[OutputStatus]`.
    public static let outputsKey = "pw-policy.outputs"
    /// Subject = stream node id: `StreamStatus`.
    public static let streamKey = "pw-policy.stream"
    /// Subject 0: the latest `EventRecord`; each event overwrites it, so
    /// watching the key's changes gives the event stream (`pw-policy monitor`).
    public static let eventKey = "pw-policy.event"

    /// The keys above: the agent writes them and never reads them back, so
    /// a change of one is no request and changes no decision.
    public static let publishedKeys: Set<String> = [agentKey, outputsKey, streamKey, eventKey]

    // Written by users, read by the agent.
    /// Subject 0: `true` / `false`. The agent also publishes the effective value here.
    public static let silentModeKey = "pw-policy.silent-mode"
    /// The switch's values: `true`, `false`, or `follow` (Do Not Disturb).
    public static func silentModeValue(_ choice: SilentChoice) -> String {
        switch choice {
        case .on: "true"
        case .off: "false"
        case .follow: "follow"
        }
    }
    /// Subject = stream node id: a runtime override for that stream, as the
    /// stream property spellings: a category name, an options list, a mode.
    /// `pw-policy set` writes the category and mode as plain strings
    /// (`stringType`: `playback`) and the options as a JSON array
    /// (`jsonType`: `["duck-others"]`); quoted JSON strings and SPA-JSON lists
    /// are read too. Options and mode count only with a category.
    public static let categoryKey = "policy.category"
    public static let optionsKey = "policy.options"
    public static let modeKey = "policy.mode"
    /// Subject 0, key prefix + app key (`AppIdentity.overrideKey`): `AppOverrideRequest`;
    /// removing the key removes the override.
    public static let appOverridePrefix = "pw-policy.app-override."

    /// The key of the override for app `appKey`.
    public static func appOverrideKey(_ appKey: String) -> String { appOverridePrefix + appKey }

    /// Subject = stream node id: any value asks the agent to resume that stream;
    /// the agent removes the key once handled.
    public static let resumeKey = "pw-policy.resume"
}

/// The agent's health, published at subject 0.
public struct AgentStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    public var version: String
    /// When the agent started, ISO 8601 in UTC (`2026-11-22T19:02:11Z`).
    public var startedAt: String
    /// Config files in force, in merge order.
    public var configFiles: [String]
    /// The last config reload's error, if it was rejected (the previous config stays in force).
    public var configError: String?
    public var dryRun: Bool
    public var silentMode: Bool
    /// The PipeWire and WirePlumber it runs beside (absent from agents older
    /// than this field).
    public var stack: StackStatus?
    /// The media players it watches on the session bus, in a line
    /// ("2 MPRIS players on the session bus", "not watched: no session bus
    /// (…)"); absent from agents older than this field (docs/PLAYERS.md).
    public var players: String?
    /// Why silent mode is on or off ("set by the user", "following Do Not
    /// Disturb (on in dunst)"); the user's switch (`on`, `off`, `follow`);
    /// the desktop's Do Not Disturb in a line ("on in dunst", "off (GNOME)",
    /// "no desktop mechanism answers"). Absent from older agents
    /// (docs/POLICY.md, "Do Not Disturb").
    public var silentModeReason: String?
    public var silentChoice: SilentChoice?
    public var doNotDisturb: String?
    /// Where the media keys go and why; absent from agents older than this
    /// field (docs/PLAYERS.md, "Media keys").
    public var mediaKeys: MediaKeysStatus?
    /// Whether the screen is shared and whether that silences alerts
    /// (docs/POLICY.md, "Presenting"); absent from agents older than this field.
    public var presenting: PresentingStatus?
    /// Whether the session is locked and whether that silences (docs/POLICY.md,
    /// "Screen lock"); absent from agents older than this field.
    public var screenLock: ScreenLockStatus?
    /// The audio-session service and the sessions apps declared there
    /// (docs/API.md); absent from agents older than this field.
    public var audioSessions: AudioSessionsStatus?
    public init(pid: Int32, version: String, startedAt: String, configFiles: [String], configError: String?,
                dryRun: Bool, silentMode: Bool, stack: StackStatus? = nil, players: String? = nil,
                silentModeReason: String? = nil, silentChoice: SilentChoice? = nil, doNotDisturb: String? = nil,
                mediaKeys: MediaKeysStatus? = nil, presenting: PresentingStatus? = nil, screenLock: ScreenLockStatus? = nil,
                audioSessions: AudioSessionsStatus? = nil) {
        self.pid = pid; self.version = version; self.startedAt = startedAt; self.configFiles = configFiles
        self.configError = configError; self.dryRun = dryRun; self.silentMode = silentMode; self.stack = stack
        self.players = players; self.silentModeReason = silentModeReason; self.silentChoice = silentChoice
        self.doNotDisturb = doNotDisturb; self.mediaKeys = mediaKeys; self.presenting = presenting
        self.screenLock = screenLock; self.audioSessions = audioSessions
    }
}

/// `AgentStatus.audioSessions`: where the audio-session service is and the
/// sessions declared there (docs/API.md).
public struct AudioSessionsStatus: Codable, Sendable, Equatable {
    /// The bus name it owns.
    public var busName: String
    /// Whether it is on the session bus.
    public var available: Bool
    /// `org.pwpolicy.AudioSession1 on the session bus`, or why not.
    public var text: String
    public var sessions: [Session]

    public struct Session: Codable, Sendable, Equatable {
        public var path: String
        /// The caller's unique bus name and process, once known.
        public var owner: String
        public var pid: Int32?
        /// `playback [duck-others]`.
        public var declared: String
        public var streams: [UInt32]
        /// `active`, `interrupted`, `ducked`, `silenced`, `deactivated`, … or `idle`.
        public var state: String
        public init(path: String, owner: String, pid: Int32?, declared: String, streams: [UInt32], state: String) {
            self.path = path; self.owner = owner; self.pid = pid; self.declared = declared; self.streams = streams
            self.state = state
        }
    }

    public init(busName: String, available: Bool, text: String, sessions: [Session]) {
        self.busName = busName; self.available = available; self.text = text; self.sessions = sessions
    }
}

/// `AgentStatus.screenLock`: whether the session is locked, in a line
/// ("locked (GNOME)", "unlocked (screen saver)", "no lock mechanism
/// answers"), and whether locking silences (`silent.while-locked`).
public struct ScreenLockStatus: Codable, Sendable, Equatable {
    public var locked: Bool
    public var text: String
    public var silences: Bool
    public init(locked: Bool, text: String, silences: Bool) {
        self.locked = locked; self.text = text; self.silences = silences
    }
}

/// `AgentStatus.mediaKeys`: the player pw-policy's media-key proxy
/// (`org.mpris.MediaPlayer2.pw_policy`) sends the keys to, and why.
public struct MediaKeysStatus: Codable, Sendable, Equatable {
    /// The player's bus name; absent when the keys go nowhere.
    public var target: String?
    /// `audible`, `paused-by-pw-policy`, `most-recently-active`, `none`,
    /// or `off` (the proxy is not on the bus: `text` says why).
    public var reason: String
    /// One line: `org.mpris.MediaPlayer2.mpv ("mpv"): audible now`.
    public var text: String
    /// What the last key did, e.g. `PlayPause: nothing: PlayPause does
    /// nothing to the music: a call ("phone") holds the music`.
    public var lastKey: String?

    public init(target: String?, reason: String, text: String, lastKey: String? = nil) {
        self.target = target; self.reason = reason; self.text = text; self.lastKey = lastKey
    }
}

/// `AgentStatus.presenting`: the screen casts shared now (none: not
/// presenting) and whether presenting silences alerts
/// (`presenting.silence-alerts`).
public struct PresentingStatus: Codable, Sendable, Equatable {
    public var screenCasts: [ScreenCast]
    public var silencesAlerts: Bool
    public init(screenCasts: [ScreenCast], silencesAlerts: Bool) {
        self.screenCasts = screenCasts; self.silencesAlerts = silencesAlerts
    }
    public var isPresenting: Bool { !screenCasts.isEmpty }
}

/// `AgentStatus.stack`: which PipeWire and WirePlumber run, and what the
/// agent decided they offer (`PipeWireStack`). The capabilities are the
/// agent's decision, published so no reader has to repeat it.
public struct StackStatus: Codable, Sendable, Equatable {
    public struct PipeWire: Codable, Sendable, Equatable {
        /// As the daemon's core info says (`pw-cli info 0`); absent if unknown.
        public var version: String?
        public init(version: String?) { self.version = version }
    }
    public struct WirePlumber: Codable, Sendable, Equatable {
        /// Its main client's id.
        public var client: UInt32
        public var pid: Int32?
        /// Absent when it could not be found out.
        public var version: String?
        /// `application.version` (WirePlumber ≥ 0.5) or `linked-library` (0.4).
        public var versionSource: String?
        public init(client: UInt32, pid: Int32?, version: String?, versionSource: String?) {
            self.client = client; self.pid = pid; self.version = version; self.versionSource = versionSource
        }
    }

    /// WirePlumber 0.5's role-based policy, when its role loopbacks exist
    /// (docs/POLICY.md, "Beside WirePlumber's role policy").
    public struct RolePolicy: Codable, Sendable, Equatable {
        /// The loopbacks' input sides (`input.loopback.sink.role.multimedia`…).
        public var loopbacks: [String]
        /// The level WirePlumber ducks a lower role to
        /// (`linking.role-based.duck-level`), which pw-policy applies in its place.
        public var duckLevel: Double
        /// Whether pw-policy does WirePlumber's ducking (the setting is 1
        /// while it runs); false in a dry run.
        public var duckingTakenOver: Bool
        public init(loopbacks: [String], duckLevel: Double, duckingTakenOver: Bool) {
            self.loopbacks = loopbacks; self.duckLevel = duckLevel; self.duckingTakenOver = duckingTakenOver
        }

        /// `WirePlumber role policy: active (6 role loopbacks)`.
        public var summary: String {
            "WirePlumber role policy: active (\(loopbacks.count) role \(loopbacks.count == 1 ? "loopback" : "loopbacks"))"
        }
    }

    public var pipewire: PipeWire
    /// Absent when no WirePlumber is connected.
    public var wireplumber: WirePlumber?
    public var capabilities: StackCapabilities
    /// Absent when WirePlumber's role policy is off (no role loopbacks), and
    /// from agents older than this field.
    public var rolePolicy: RolePolicy?

    public init(pipewire: PipeWire, wireplumber: WirePlumber?, capabilities: StackCapabilities,
                rolePolicy: RolePolicy? = nil) {
        self.pipewire = pipewire; self.wireplumber = wireplumber; self.capabilities = capabilities
        self.rolePolicy = rolePolicy
    }


    public init(_ stack: PipeWireStack, rolePolicy: RolePolicy? = nil) {
        self.init(pipewire: PipeWire(version: stack.pipewire),
                  wireplumber: stack.wirePlumber.map {
                      WirePlumber(client: $0.client, pid: $0.pid, version: $0.version, versionSource: $0.versionSource?.rawValue)
                  },
                  capabilities: stack.capabilities, rolePolicy: rolePolicy)
    }

    /// One line for the log and `pw-policy status`:
    /// `PipeWire 0.3.65 · WirePlumber 0.4.13 · fades: stepped (no native volume ramps before PipeWire 0.3.68)`,
    /// and `· WirePlumber role policy: active (6 role loopbacks)` when it is.
    public var summary: String {
        let daemon = pipewire.version.map { "PipeWire \($0)" } ?? "PipeWire (version unknown)"
        let manager = wireplumber.map { "WirePlumber \($0.version ?? "(version unknown)")" } ?? "WirePlumber not running"
        return ([daemon, manager, capabilities.volumeRampsSummary] + (rolePolicy.map { [$0.summary] } ?? []))
            .joined(separator: " · ")
    }
}

/// An output (sink) as the agent sees it.
public struct OutputStatus: Codable, Sendable, Equatable {
    public var id: UInt32
    public var name: String
    public var description: String
    public var isPrivate: Bool
    public var isAvailable: Bool
    public var isDefault: Bool
    /// The port it plays to (its device's active route, as the device
    /// describes it: "Headphones", "Speakers"); absent for sinks without ports.
    public var port: String?
    public init(id: UInt32, name: String, description: String, isPrivate: Bool, isAvailable: Bool, isDefault: Bool,
                port: String? = nil) {
        self.id = id; self.name = name; self.description = description
        self.isPrivate = isPrivate; self.isAvailable = isAvailable; self.isDefault = isDefault; self.port = port
    }
}

/// What the agent decided for one stream, and why.
public struct StreamStatus: Codable, Sendable, Equatable {
    public struct Hold: Codable, Sendable, Equatable {
        // Members in key order, as the text sorts them: written straight
        // through (JSONTextEncoder).
        /// Whether the app's clock stands still while held: "stopped" (its
        /// stream is suspended or idle) or "running" (it plays on into
        /// nothing: what it plays meanwhile is lost; docs/HOLDS.md).
        public var app: String?
        /// The session that caused it and its app name (interrupted, waiting).
        public var by: String?
        public var byApp: String?
        /// Which of the sessions named `byApp` (`SessionName.which`), when
        /// the name alone does not say it.
        public var byWhich: String?
        /// "interrupted", "waiting" or "route-lost".
        public var kind: String
        /// The output that went away (route-lost).
        public var output: String?
        /// Whether it resumes on its own when the cause ends.
        public var resumable: Bool
        public init(kind: String, by: String? = nil, byApp: String? = nil, byWhich: String? = nil, resumable: Bool,
                    output: String? = nil, app: String? = nil) {
            self.kind = kind; self.by = by; self.byApp = byApp; self.byWhich = byWhich; self.resumable = resumable
            self.output = output; self.app = app
        }

        /// How people read the session that holds it; nil for a lost route.
        public var byName: SessionName? {
            byApp.map { SessionName(app: $0, which: byWhich) }
        }
    }
    public struct Ducker: Codable, Sendable, Equatable {
        public var app: String
        public var session: String
        /// Which of the sessions named `app`, when the name alone does not say it.
        public var which: String?
        public init(session: String, app: String, which: String? = nil) {
            self.session = session; self.app = app; self.which = which
        }

        public var name: SessionName { SessionName(app: app, which: which) }
    }
    /// The MPRIS player that controls the stream (docs/PLAYERS.md).
    public struct Player: Codable, Sendable, Equatable {
        /// Its well-known bus name, `org.mpris.MediaPlayer2.…`.
        public var busName: String
        /// Its `Identity`, when it gave one.
        public var identity: String?
        /// How it was matched to the stream, in words.
        public var matchedBy: String
        /// Set when pw-policy paused it: what it does next, in words.
        public var pausedByAgent: String?
        /// Its `PlaybackStatus` as it spells it ("Playing", "Paused", "Stopped").
        public var status: String
        public init(busName: String, identity: String?, status: String, matchedBy: String, pausedByAgent: String? = nil) {
            self.busName = busName; self.identity = identity; self.status = status; self.matchedBy = matchedBy
            self.pausedByAgent = pausedByAgent
        }
    }

    // Members in key order, as the text sorts them: the statuses of
    // hundreds of streams are written straight through after every reaction
    // (JSONTextEncoder; JSONTextEncoderTests check the order).
    public var app: String
    public var appKey: String
    public var category: String
    public var direction: String
    public var duckedBy: [Ducker]
    public var exempt: Bool
    public var explanation: [String]
    /// The policy gain the engine wants (Props `volume`).
    public var gain: Double
    public var hold: Hold?
    public var id: UInt32
    public var mode: String
    public var options: [String]
    /// The sink it plays to, if linked: through a role loopback of
    /// WirePlumber's, the sink the loopback plays to.
    public var output: String?
    /// The media player that controls it; absent when none was matched.
    public var player: Player?
    public var reason: String
    public var session: String
    public var silenced: Bool
    /// override, stream-properties, rule, inference or default.
    public var source: String
    public var state: String
    /// The WirePlumber role loopback it plays through (its description,
    /// "Multimedia"); absent when it plays straight to its output.
    public var via: String?
    public var warnings: [String]

    public init(id: UInt32, app: String, appKey: String, session: String, direction: String, state: String,
                category: String, options: [String], mode: String, exempt: Bool, source: String, reason: String,
                warnings: [String], gain: Double, hold: Hold?, silenced: Bool, duckedBy: [Ducker],
                output: String?, via: String? = nil, explanation: [String], player: Player? = nil) {
        self.id = id; self.app = app; self.appKey = appKey; self.session = session; self.direction = direction
        self.state = state; self.category = category; self.options = options; self.mode = mode
        self.exempt = exempt; self.source = source; self.reason = reason; self.warnings = warnings
        self.gain = gain; self.hold = hold; self.silenced = silenced; self.duckedBy = duckedBy
        self.output = output; self.via = via; self.explanation = explanation; self.player = player
    }
}

/// One policy event, as `pw-policy monitor` prints it.
public struct EventRecord: Codable, Sendable, Equatable {
    /// Increases by one per event since the agent started.
    public var seq: UInt64
    public var type: EventType
    /// A one-line human description.
    public var text: String
    public var session: String?
    public var by: String?
    public var stream: UInt32?
    public var shouldResume: Bool?
    public var level: Double?
    public var reason: String?
    public init(seq: UInt64, type: EventType, text: String, session: String? = nil, by: String? = nil,
                stream: UInt32? = nil, shouldResume: Bool? = nil, level: Double? = nil, reason: String? = nil) {
        self.seq = seq; self.type = type; self.text = text; self.session = session; self.by = by
        self.stream = stream; self.shouldResume = shouldResume; self.level = level; self.reason = reason
    }
}

/// `pw-policy set --app APP …`, written at subject 0 under `appOverridePrefix + appKey`.
public struct AppOverrideRequest: Codable, Sendable, Equatable {
    public var category: String
    public var options: [String]
    public var mode: String?
    /// Keep it across agent restarts (stored in the agent's state file).
    public var persist: Bool
    public init(category: String, options: [String] = [], mode: String? = nil, persist: Bool = false) {
        self.category = category; self.options = options; self.mode = mode; self.persist = persist
    }

    /// Written by hand (`pw-metadata`), `{"category":"ambient"}` is enough.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(category: try container.decode(String.self, forKey: .category),
                  options: try container.decodeIfPresent([String].self, forKey: .options) ?? [],
                  mode: try container.decodeIfPresent(String.self, forKey: .mode),
                  persist: try container.decodeIfPresent(Bool.self, forKey: .persist) ?? false)
    }
}
