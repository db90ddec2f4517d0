/// What an app asked for on its own stream (docs/CLASSIFICATION.md, step 2):
/// `policy.category`, `policy.options` and `policy.mode`, set e.g. with
/// `PIPEWIRE_PROPS='{ policy.category=playback policy.options=[ duck-others ] }'`
/// or `PULSE_PROP='policy.category=playback'`.
///
/// Only node properties are read: both mechanisms land there, and a value on
/// the client would silently apply to every stream the app opens.
/// Values the policy does not understand become warnings, never failures: a
/// typo in an app's environment must not take its audio down.
public struct StreamPropertyPolicy: Sendable, Equatable {
    public static let categoryKey = "policy.category"
    public static let optionsKey = "policy.options"
    public static let modeKey = "policy.mode"

    public var category: Category?
    /// nil when the stream sets no (usable) `policy.options`; an empty set when
    /// it explicitly sets none (`policy.options=[]`).
    public var options: Set<PolicyOption>?
    public var mode: AudioMode?
    /// The understood properties as `key = "raw value"`, for reasons.
    public var evidence: [String]
    public var warnings: [String]

    public init(nodeProps: [String: String]) {
        category = nil; options = nil; mode = nil; evidence = []; warnings = []

        if let raw = nodeProps[Self.categoryKey] {
            if let parsed = Self.parseCategory(raw) {
                category = parsed
                evidence.append("\(Self.categoryKey) = \"\(raw)\"")
            } else {
                let expected = Category.allCases.map(\.rawValue).joined(separator: ", ")
                warnings.append("\(Self.categoryKey) \"\(raw)\" is not a category; expected one of \(expected); ignored")
            }
        }

        if let raw = nodeProps[Self.optionsKey] {
            let parsed = Self.parseOptions(raw)
            let expected = PolicyOption.allCases.map(\.rawValue).joined(separator: ", ")
            let unknown = parsed.unknown.map { "\"\($0)\"" }.joined(separator: ", ")
            if parsed.unknown.isEmpty || !parsed.options.isEmpty {
                options = parsed.options
                evidence.append("\(Self.optionsKey) = \"\(raw)\"")
            }
            if !parsed.unknown.isEmpty {
                let verb = parsed.unknown.count == 1 ? "is not an option" : "are not options"
                let outcome = parsed.options.isEmpty ? "ignored" : "\(unknown) ignored"
                warnings.append("\(Self.optionsKey) \"\(raw)\": \(unknown) \(verb); expected any of \(expected); \(outcome)")
            }
        }

        if let raw = nodeProps[Self.modeKey] {
            if let parsed = Self.parseMode(raw) {
                mode = parsed
                evidence.append("\(Self.modeKey) = \"\(raw)\"")
            } else {
                let expected = AudioMode.allCases.map(\.rawValue).joined(separator: " or ")
                warnings.append("\(Self.modeKey) \"\(raw)\" is not a mode; expected \(expected); ignored")
            }
        }
    }

    /// True when the stream asked for nothing usable.
    public var isEmpty: Bool { category == nil && options == nil && mode == nil }

    /// A category name, tolerant of case, quotes and separators:
    /// `play-and-record`, `"Play_And_Record"` and `playAndRecord` are the same.
    public static func parseCategory(_ raw: String) -> Category? {
        let wanted = looseName(raw)
        return Category.allCases.first { looseName($0.rawValue) == wanted }
    }

    public static func parseMode(_ raw: String) -> AudioMode? {
        let wanted = looseName(raw)
        return AudioMode.allCases.first { looseName($0.rawValue) == wanted }
    }

    /// An option list in any of the spellings people write: SPA-JSON
    /// `[ duck-others mix-with-others ]`, JSON `["duck-others","mix-with-others"]`,
    /// bare `duck-others mix-with-others` or comma-separated. Returns the
    /// options understood and the tokens that were not.
    public static func parseOptions(_ raw: String) -> (options: Set<PolicyOption>, unknown: [String]) {
        var body = raw.classifierTrimmed()
        if body.first == "[" { body = body.dropFirst() }
        if body.last == "]" { body = body.dropLast() }
        let separators: Set<Character> = [" ", "\t", "\n", "\r", ","]
        var options: Set<PolicyOption> = []
        var unknown: [String] = []
        for token in body.split(whereSeparator: { separators.contains($0) }) {
            let name = token.classifierTrimmed(["\"", "'"])
            guard !name.isEmpty else { continue }
            if let option = PolicyOption.allCases.first(where: { looseName($0.rawValue) == looseName(name) }) {
                options.insert(option)
            } else {
                unknown.append(String(name))
            }
        }
        return (options, unknown)
    }

    /// Lower case, without quotes, blanks, `-` and `_`: the parts of a name
    /// people spell differently.
    static func looseName<S: StringProtocol>(_ name: S) -> String {
        String(name.lowercased().filter { !"-_ \t\"'".contains($0) })
    }
}

extension StringProtocol {
    /// Named apart from Foundation's `trimmingCharacters(in:)` so that files
    /// importing Foundation never meet an ambiguous call.
    func classifierTrimmed(_ set: Set<Character> = [" ", "\t", "\n", "\r"]) -> Substring {
        let this = Substring(self)
        guard let start = this.firstIndex(where: { !set.contains($0) }),
              let end = this.lastIndex(where: { !set.contains($0) }) else { return this[this.endIndex...] }
        return this[start...end]
    }
}
