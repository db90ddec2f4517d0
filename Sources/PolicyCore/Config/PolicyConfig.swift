/// The whole configuration the policy runs on. It is produced by loading
/// `pw-policy.conf` (and drop-ins); the shipped `conf/pw-policy.conf` holds
/// every default, so no policy constant lives in code.
public struct PolicyConfig: Sendable, Equatable {
    public var settings: Settings
    /// Per-category behaviour; every category has an entry.
    public var categories: [Category: CategoryTraits]
    /// The interaction matrix, as ordered rules: the first that matches a pair wins.
    public var interactions: [InteractionRule]
    /// Classification rules, in order: all that match a stream apply, later ones overriding.
    public var rules: [ClassificationRule]

    public init(settings: Settings, categories: [Category: CategoryTraits],
                interactions: [InteractionRule], rules: [ClassificationRule]) {
        self.settings = settings; self.categories = categories
        self.interactions = interactions; self.rules = rules
    }

    public func traits(of category: Category) -> CategoryTraits {
        categories[category] ?? CategoryTraits(mixable: false, silencedInSilentMode: false)
    }
}

public struct Settings: Sendable, Equatable {
    /// Linear policy gain of a ducked stream (0…1).
    public var duckLevel: Double
    /// Fade durations in milliseconds (0 = step at once).
    public var fadeDownMs: Int
    public var fadeUpMs: Int
    /// Activity gaps shorter than this do not end a duck or an interruption.
    public var debounceMs: Int
    /// What an unclassified stream gets.
    public var defaultCategory: Category
    public var defaultOptions: Set<PolicyOption>
    /// Whether built-in inference (docs/CLASSIFICATION.md, step 4) runs at all.
    public var inference: Bool
    /// A stream held because its output went away plays again (its player
    /// too) when that output comes back within `resumeOnReturnMs`
    /// (docs/POLICY.md, "Route changes"); off: it stays held until resumed.
    public var resumeOnReturn: Bool
    public var resumeOnReturnMs: Int
    /// A session that ducks others (duck-others, interrupt-spoken-audio)
    /// counts as active only while its streams carry sound, as a meter on
    /// them measures, and for `duckQuietHoldMs` after: a screen reader's
    /// stream stays open and running between utterances (docs/POLICY.md,
    /// "Ducking while audible"). Off: by node state, as other sessions.
    public var duckWhileAudible: Bool
    public var duckQuietHoldMs: Int
    /// A solo-ambient session (a game with its soundtrack) that starts while
    /// another app's playback is active mixes as ambient while that plays,
    /// as the seeds ask games to choose: starting a game never stops the
    /// music a person chose (docs/POLICY.md, "Games and the music").
    public var soloAmbientMixesWithPlaying: Bool
    /// Silent mode follows the desktop's Do Not Disturb unless the user
    /// chose on or off since it last changed (docs/POLICY.md, "Do Not
    /// Disturb").
    public var followDoNotDisturb: Bool
    /// Do Not Disturb mechanisms beyond the built-in ones (KDE Plasma,
    /// GNOME, dunst).
    public var doNotDisturbSources: [DoNotDisturbSource]
    /// Own `org.mpris.MediaPlayer2.pw_policy` on the session bus: a proxy
    /// player that sends the media keys to the player a person means
    /// (docs/PLAYERS.md, "Media keys").
    public var mediaKeys: Bool
    /// While the screen is shared (a screen cast linked to a consumer), system
    /// sounds are silenced as during a recording (docs/POLICY.md, "Presenting").
    public var presentingSilencesAlerts: Bool
    /// While the session is locked, what silent mode silences is silenced
    /// too (docs/POLICY.md, "Screen lock").
    public var silenceWhileLocked: Bool
    /// Own the audio-session service on the session bus, through which
    /// apps declare their sessions and are told what happens to them
    /// (docs/API.md).
    public var audioSessionService: Bool

    /// Every Do Not Disturb mechanism watched: the built-in ones, then the config's.
    public var allDoNotDisturbSources: [DoNotDisturbSource] { DoNotDisturbSource.builtIn + doNotDisturbSources }
}

extension Settings {
    /// Every setting at its default (SettingsSchema).
    public static let defaults: Settings = {
        var settings = Settings(duckLevel: 0, fadeDownMs: 0, fadeUpMs: 0, debounceMs: 0, defaultCategory: .playback,
                                defaultOptions: [], inference: false, resumeOnReturn: false, resumeOnReturnMs: 0,
                                duckWhileAudible: false, duckQuietHoldMs: 0, soloAmbientMixesWithPlaying: false,
                                followDoNotDisturb: false, doNotDisturbSources: [], mediaKeys: false,
                                presentingSilencesAlerts: false, silenceWhileLocked: false, audioSessionService: false)
        for spec in SettingsSchema.all { spec.field.setDefault(in: &settings) }
        return settings
    }()

    /// The settings every configuration states; the others at their defaults.
    public init(duckLevel: Double, fadeDownMs: Int, fadeUpMs: Int, debounceMs: Int,
                defaultCategory: Category, defaultOptions: Set<PolicyOption>, inference: Bool? = nil) {
        self = .defaults
        self.duckLevel = duckLevel; self.fadeDownMs = fadeDownMs; self.fadeUpMs = fadeUpMs
        self.debounceMs = debounceMs; self.defaultCategory = defaultCategory; self.defaultOptions = defaultOptions
        if let inference { self.inference = inference }
    }
}

public struct CategoryTraits: Sendable, Equatable {
    /// Mixes with other audio without options (ambient, system-sound…).
    public var mixable: Bool
    /// Silent mode sets this category's playback streams to gain 0.
    public var silencedInSilentMode: Bool
    public init(mixable: Bool, silencedInSilentMode: Bool) {
        self.mixable = mixable; self.silencedInSilentMode = silencedInSilentMode
    }
}

/// Picks sessions for one side of an interaction rule. Every field that is set
/// must match; an empty selector matches any session.
public struct SessionSelector: Sendable, Equatable, Hashable {
    /// Any of these categories; nil = any category.
    public var categories: Set<Category>?
    /// All of these options must be present.
    public var options: Set<PolicyOption>
    /// None of these options may be present.
    public var withoutOptions: Set<PolicyOption>
    /// Whether the session mixes (category trait, `mix-with-others` or `duck-others`).
    public var mixable: Bool?
    public var mode: AudioMode?

    public init(categories: Set<Category>? = nil, options: Set<PolicyOption> = [],
                withoutOptions: Set<PolicyOption> = [], mixable: Bool? = nil, mode: AudioMode? = nil) {
        self.categories = categories; self.options = options; self.withoutOptions = withoutOptions
        self.mixable = mixable; self.mode = mode
    }

    public static let any = SessionSelector()
}

/// What happens when a session (`incoming`) becomes active while another
/// (`active`) already is.
public enum InteractionAction: Sendable, Equatable, Hashable {
    /// Both play.
    case mix
    /// The active session is ducked while the incoming one plays; nil level = settings.duckLevel.
    case duck(level: Double?)
    /// The incoming session is ducked while the active one plays.
    case duckIncoming(level: Double?)
    /// The active session is held while the incoming one plays; resumable:
    /// whether it should resume when the interruption ends.
    case interrupt(resumable: Bool)
    /// The incoming session waits (held) until the active one ends.
    case holdIncoming
    /// The incoming session plays at gain 0 while the active one is active.
    case silenceIncoming
}

public struct InteractionRule: Sendable, Equatable, Hashable {
    public var active: SessionSelector
    public var incoming: SessionSelector
    public var action: InteractionAction
    /// Why this cell is what it is (shown by `explain`).
    public var why: String
    /// Where it was defined ("pw-policy.conf:88"), for `explain` and errors.
    public var origin: String

    public init(active: SessionSelector, incoming: SessionSelector, action: InteractionAction,
                why: String = "", origin: String = "") {
        self.active = active; self.incoming = incoming; self.action = action
        self.why = why; self.origin = origin
    }
}

/// One property condition in a rule's `matches` entry (PipeWire rule syntax).
public enum PropertyMatch: Sendable, Equatable, Hashable {
    /// The property equals this string.
    case equals(String)
    /// `~pattern`: the property matches this POSIX extended regex (as PipeWire's).
    case regex(String)
    /// `null`: the property is absent.
    case absent
}

/// Where a rule wants the stream to play: the first sink whose properties
/// match (same syntax as `matches`).
public struct TargetPreference: Sendable, Equatable, Hashable {
    public var matches: [[String: PropertyMatch]]
    public init(matches: [[String: PropertyMatch]]) { self.matches = matches }
}

public struct RuleActions: Sendable, Equatable, Hashable {
    public var category: Category?
    public var options: Set<PolicyOption>?
    public var mode: AudioMode?
    public var exempt: Bool?
    public var preferTarget: TargetPreference?
    public init(category: Category? = nil, options: Set<PolicyOption>? = nil, mode: AudioMode? = nil,
                exempt: Bool? = nil, preferTarget: TargetPreference? = nil) {
        self.category = category; self.options = options; self.mode = mode
        self.exempt = exempt; self.preferTarget = preferTarget
    }
}

/// A classification rule: any `matches` entry may match; all keys of an entry must match.
public struct ClassificationRule: Sendable, Equatable, Hashable {
    public var matches: [[String: PropertyMatch]]
    public var actions: RuleActions
    /// "pw-policy.conf:120" — where the rule was defined.
    public var origin: String
    public init(matches: [[String: PropertyMatch]], actions: RuleActions, origin: String = "") {
        self.matches = matches; self.actions = actions; self.origin = origin
    }
}
