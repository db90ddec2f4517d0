/// Which step of the classification precedence (docs/CLASSIFICATION.md, "Precedence") decided.
public enum ClassificationSource: String, Sendable, Codable, Hashable {
    /// `pw-policy set …`: a runtime override by the user.
    case override
    /// What the app declared through its audio session on the session bus
    /// (docs/API.md): the app's own word, as its stream properties are,
    /// and taken before them.
    case audioSession = "audio-session"
    /// `policy.category` / `policy.options` the app put on its own stream.
    case streamProperties = "stream-properties"
    /// A `rules` entry of the config.
    case rule
    /// What the desktop knows about the app: its desktop entry, the launcher
    /// that started it, who started it (docs/CLASSIFICATION.md, "App knowledge").
    case app
    /// Built-in inference (media.role, direction, app identity…).
    case inference
    /// Nothing applied: the configured default.
    case `default`
}

/// A stream's category with the reason it has it.
public struct Classification: Sendable, Equatable, Hashable {
    public var category: Category
    public var options: Set<PolicyOption>
    public var mode: AudioMode
    /// The policy leaves this stream alone entirely (a config rule's `exempt`).
    public var exempt: Bool
    public var source: ClassificationSource
    /// Why, for humans: what decided, with the values, e.g.
    /// `media.role = "Music" → playback` or `rule #3 (pw-policy.conf:120): application.process.binary = "spotify"`.
    public var reason: String
    /// Problems met on the way (e.g. an unknown `policy.category` value the app set),
    /// shown by `status` and `explain`; classification still succeeded.
    public var warnings: [String]
    /// Where this stream prefers to play, from a rule's `prefer-target`.
    public var preferredTarget: TargetPreference?

    public init(category: Category, options: Set<PolicyOption> = [], mode: AudioMode = .default,
                exempt: Bool = false, source: ClassificationSource, reason: String,
                warnings: [String] = [], preferredTarget: TargetPreference? = nil) {
        self.category = category; self.options = options; self.mode = mode; self.exempt = exempt
        self.source = source; self.reason = reason; self.warnings = warnings
        self.preferredTarget = preferredTarget
    }
}

/// What an app declared for a stream through its audio session (docs/API.md):
/// its category, options and mode, and which session said so, for the reason.
public struct AppDeclaration: Sendable, Equatable, Hashable {
    public var category: Category
    public var options: Set<PolicyOption>
    public var mode: AudioMode
    /// `audio session 3 of :1.42 (pid 4242)`.
    public var label: String
    /// The app instance its streams belong to: the session's owner
    /// (`pid:4242`), whichever of its processes plays them, so that the
    /// streams of one app are one engine session per category and never
    /// act on each other (docs/POLICY.md, "One app").
    public var instance: String
    public init(category: Category, options: Set<PolicyOption> = [], mode: AudioMode = .default, label: String,
                instance: String) {
        self.category = category; self.options = options; self.mode = mode; self.label = label
        self.instance = instance
    }
}

/// A runtime override from the user (`pw-policy set`), for one stream or an app.
public struct ClassificationOverride: Sendable, Equatable, Hashable, Codable {
    public var category: Category
    public var options: Set<PolicyOption>
    public var mode: AudioMode
    public init(category: Category, options: Set<PolicyOption> = [], mode: AudioMode = .default) {
        self.category = category; self.options = options; self.mode = mode
    }
}

/// What the classifier looks at for one stream. Everything is copied from the
/// graph so the classifier stays pure.
public struct StreamFacts: Sendable, Equatable {
    public var nodeID: UInt32
    public var direction: StreamDirection
    /// The stream node's properties.
    public var nodeProps: [String: String]
    /// Its client's properties (application.*, pipewire.access…); empty if unknown.
    public var clientProps: [String: String]
    /// The user's runtime override for this stream or its app, if any.
    public var override: ClassificationOverride?
    /// What its app declared for it through its audio session, if any (docs/API.md).
    public var declared: AppDeclaration? = nil
    /// What the other streams of the same app instance do (`InstanceFacts`):
    /// a call's other side, a microphone, a screen cast.
    public var instance: InstanceFacts
    /// What the desktop knows about the stream's app (its desktop entry,
    /// launcher, process), found by the adapter; nil when it found nothing,
    /// and classification is as without it.
    public var app: AppFacts?

    public init(nodeID: UInt32, direction: StreamDirection, nodeProps: [String: String],
                clientProps: [String: String] = [:], override: ClassificationOverride? = nil,
                instance: InstanceFacts = .alone, app: AppFacts? = nil) {
        self.nodeID = nodeID; self.direction = direction; self.nodeProps = nodeProps
        self.clientProps = clientProps; self.override = override
        self.instance = instance
        self.app = app
    }

    /// `appAlsoStreamsOtherDirection`: the instance has a running stream of
    /// the other direction, named nowhere (unit tests' shorthand).
    public init(nodeID: UInt32, direction: StreamDirection, nodeProps: [String: String],
                clientProps: [String: String] = [:], override: ClassificationOverride? = nil,
                appAlsoStreamsOtherDirection: Bool, app: AppFacts? = nil) {
        let other: StreamDirection = direction == .playback ? .capture : .playback
        self.init(nodeID: nodeID, direction: direction, nodeProps: nodeProps, clientProps: clientProps,
                  override: override,
                  instance: InstanceFacts(otherSide: appAlsoStreamsOtherDirection
                      ? InstanceStream(nodeID: nil, name: nil, direction: other, activity: .running) : nil),
                  app: app)
    }

    /// The same app instance has, besides this stream, a stream of the
    /// other direction, running or opening: it plays and captures at once (a call).
    public var appAlsoStreamsOtherDirection: Bool { instance.otherSide != nil }

    /// Node properties over client properties: what rules match against.
    public var mergedProps: [String: String] {
        clientProps.merging(nodeProps) { _, node in node }
    }
}
