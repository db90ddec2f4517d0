/// The `settings` section, declared once: each setting's key, type, range,
/// default, whether a configuration must state it, and what it means. The
/// decoder reads by this table, `Settings.defaults` comes from it, and so
/// does docs/CONFIG.md's table (ConfigTests checks it; adding a setting is
/// one row here and one stored property of `Settings`).
public enum SettingsSchema {
    public static let all: [SettingSpec] = [
        SettingSpec("duck.level", .level(\.duckLevel, default: 0.2), required: true,
                    doc: "linear gain of a ducked stream; 0.2 ≈ −14 dB (Android's level; WirePlumber uses 0.3)"),
        SettingSpec("fade.down-ms", .wholeNumber(\.fadeDownMs, ConfigDecoder.fadeRange, default: 250), required: true,
                    doc: "fade time when a stream is lowered (duck, silence, hold); 0 = at once"),
        SettingSpec("fade.up-ms", .wholeNumber(\.fadeUpMs, ConfigDecoder.fadeRange, default: 500), required: true,
                    doc: "fade time when it comes back"),
        SettingSpec("debounce-ms", .wholeNumber(\.debounceMs, ConfigDecoder.debounceRange, default: 300), required: true,
                    doc: "a session that stops for less than this is still active, so short gaps (between a prompt's sentences, at a track change) do not end a duck or resume a held stream"),
        SettingSpec("default.category", .category(\.defaultCategory, default: .playback), required: true,
                    doc: "what a stream gets when nothing classifies it"),
        SettingSpec("default.options", .options(\.defaultOptions, default: [.mixWithOthers]), required: true,
                    doc: "with the default category: unknown streams mix, as they do without pw-policy"),
        SettingSpec("inference", .boolean(\.inference, default: true), required: true,
                    doc: "built-in classification from `media.role`, direction and well-known apps (docs/CLASSIFICATION.md)"),
        SettingSpec("route.resume-on-return", .boolean(\.resumeOnReturn, default: false),
                    doc: "a stream held because its private output went away (headphones unplugged) plays again by itself — and its player, if pw-policy paused it — when the same output comes back within `route.resume-on-return-ms`; off: it stays held (and paused) until `pw-policy resume` (docs/PLAYERS.md)"),
        SettingSpec("route.resume-on-return-ms", .wholeNumber(\.resumeOnReturnMs, ConfigDecoder.resumeWindowRange, default: 30_000),
                    doc: "the window for `route.resume-on-return`"),
        SettingSpec("duck.while-audible", .boolean(\.duckWhileAudible, default: true),
                    doc: "a session that ducks others (`duck-others`, `interrupt-spoken-audio`) is active only while its playback streams carry sound, as a peak meter on each measures, not while its node merely runs: a screen reader keeps its stream open and running between utterances (docs/POLICY.md, \"Ducking while audible\"); off: by node state"),
        SettingSpec("duck.quiet-hold-ms", .wholeNumber(\.duckQuietHoldMs, ConfigDecoder.fadeRange, default: 300),
                    doc: "how long such a session stays active once its streams went quiet: the pauses between words do not end the duck; it replaces `debounce-ms` for it"),
        SettingSpec("players.media-keys", .boolean(\.mediaKeys, default: true),
                    doc: "own `org.mpris.MediaPlayer2.pw_policy` on the session bus: a proxy player the desktop's media keys and playerctl reach, which sends each key to the player you mean — the audible one, else the one pw-policy paused (Play resumes it), else the most recently active — and starts nothing while a call holds the music (docs/PLAYERS.md, \"Media keys\"); off: the name is released"),
        SettingSpec("solo-ambient.mix-with-playing", .boolean(\.soloAmbientMixesWithPlaying, default: true),
                    doc: "a `solo-ambient` session (a game with its soundtrack) that starts while another app's `playback` is active mixes as `ambient` while that plays, as the seeds ask games to choose; with nothing else playing it is `solo-ambient` (docs/POLICY.md, \"Games and the music\")"),
        SettingSpec("silent.follow-do-not-disturb", .boolean(\.followDoNotDisturb, default: true),
                    doc: "silent mode follows the desktop's Do Not Disturb (KDE Plasma, GNOME, dunst, and the sources below) unless the user chose on or off since it last changed (docs/POLICY.md, \"Do Not Disturb\"); off: silent mode is only what the user sets"),
        SettingSpec("silent.do-not-disturb-sources", .doNotDisturbSources(\.doNotDisturbSources, default: []),
                    doc: "more Do Not Disturb mechanisms, beside the built-in ones. Each is an object: `bus-name`, `path`, `interface`, `property` (a D-Bus property, followed through PropertiesChanged) **or** `schema`, `key` (a GSettings key, read with `gsettings get` when dconf says it changed); `value`: what it reads while Do Not Disturb is on (a boolean, a whole number or a string); `name` (optional): how status names it. E.g. `{ name = \"my notifier\" bus-name = \"org.example.Notifier\" path = \"/org/example/Notifier\" interface = \"org.example.Notifier\" property = \"DoNotDisturb\" value = true }`"),
        SettingSpec("presenting.silence-alerts", .boolean(\.presentingSilencesAlerts, default: true),
                    doc: "while the screen is shared (a screen cast of GNOME Shell, KWin or xdg-desktop-portal-wlr linked to an app receiving it), `system-sound` streams are silenced as during a recording, until the sharing ends (docs/POLICY.md, \"Presenting\"); off: alerts play while presenting"),
        SettingSpec("silent.while-locked", .boolean(\.silenceWhileLocked, default: true),
                    doc: "while the session is locked (`org.freedesktop.ScreenSaver` as KDE Plasma and others offer it, GNOME's `org.gnome.ScreenSaver`, logind's `LockedHint` where the system bus is reachable), what silent mode silences is silenced too: `ambient`, `solo-ambient` and `system-sound` (the categories with `silenced-in-silent-mode`); playback, recordings and calls go on; unlocking restores them (docs/POLICY.md, \"Screen lock\"); off: locking changes nothing"),
        SettingSpec("audio-sessions.service", .boolean(\.audioSessionService, default: true),
                    doc: "own `org.pwpolicy.AudioSession1` on the session bus: the audio-session service through which apps declare their category, ask whether other audio plays and are told what happens to them (docs/API.md); off: the name is released and declared sessions end"),
    ]

    public static var keys: [String] { all.map(\.key) }

    /// The key of the setting that sets `path`, as messages name it: the key
    /// is spelled only in its row.
    public static func key(_ path: PartialKeyPath<Settings>) -> String {
        guard let spec = all.first(where: { $0.field.path == path }) else { preconditionFailure("no setting sets \(path)") }
        return spec.key
    }
    /// The keys every configuration states once fragments are merged; the
    /// others were added later, and a configuration without them keeps working.
    public static var requiredKeys: [String] { all.filter(\.isRequired).map(\.key) }

    /// docs/CONFIG.md's table of settings.
    public static var markdownTable: String {
        (["| key | type | range | default | required | meaning |", "|---|---|---|---|---|---|"]
            + all.map { "| `\($0.key)` | \($0.field.typeName) | \($0.field.rangeText) | `\($0.field.defaultText)` | "
                + "\($0.isRequired ? "yes" : "") | \($0.doc) |" })
            .joined(separator: "\n")
    }
}

/// One setting: a row of `SettingsSchema.all`.
public struct SettingSpec: Sendable {
    public let key: String
    /// Its type, the `Settings` property it sets, and its default.
    public let field: Field
    public let isRequired: Bool
    /// What it means (docs/CONFIG.md's "meaning").
    public let doc: String

    init(_ key: String, _ field: Field, required: Bool = false, doc: String) {
        self.key = key; self.field = field; self.isRequired = required; self.doc = doc
    }

    public enum Field: Sendable {
        /// A linear gain, 0 … 1.
        case level(WritableKeyPath<Settings, Double> & Sendable, default: Double)
        case wholeNumber(WritableKeyPath<Settings, Int> & Sendable, ClosedRange<Int>, default: Int)
        case boolean(WritableKeyPath<Settings, Bool> & Sendable, default: Bool)
        case category(WritableKeyPath<Settings, Category> & Sendable, default: Category)
        case options(WritableKeyPath<Settings, Set<PolicyOption>> & Sendable, default: Set<PolicyOption>)
        case doNotDisturbSources(WritableKeyPath<Settings, [DoNotDisturbSource]> & Sendable, default: [DoNotDisturbSource])

        /// The `Settings` property it sets.
        var path: PartialKeyPath<Settings> {
            switch self {
            case .level(let path, _): path
            case .wholeNumber(let path, _, _): path
            case .boolean(let path, _): path
            case .category(let path, _): path
            case .options(let path, _): path
            case .doNotDisturbSources(let path, _): path
            }
        }

        var typeName: String {
            switch self {
            case .level: "number"
            case .wholeNumber: "whole number"
            case .boolean: "boolean"
            case .category: "category"
            case .options: "array of options"
            case .doNotDisturbSources: "array of sources"
            }
        }

        var rangeText: String {
            switch self {
            case .level: "0 … 1"
            case .wholeNumber(_, let range, _): "\(range.lowerBound) … \(range.upperBound)"
            default: ""
            }
        }

        var defaultText: String {
            switch self {
            case .level(_, let value): "\(value)"
            case .wholeNumber(_, _, let value): String(value)
            case .boolean(_, let value): String(value)
            case .category(_, let value): value.rawValue
            case .options(_, let value): "[ " + value.sorted().map(\.rawValue).map { $0 + " " }.joined() + "]"
            case .doNotDisturbSources(_, let value): value.isEmpty ? "[ ]" : "[ … ]"
            }
        }

        func setDefault(in settings: inout Settings) {
            switch self {
            case .level(let path, let value): settings[keyPath: path] = value
            case .wholeNumber(let path, _, let value): settings[keyPath: path] = value
            case .boolean(let path, let value): settings[keyPath: path] = value
            case .category(let path, let value): settings[keyPath: path] = value
            case .options(let path, let value): settings[keyPath: path] = value
            case .doNotDisturbSources(let path, let value): settings[keyPath: path] = value
            }
        }
    }
}
