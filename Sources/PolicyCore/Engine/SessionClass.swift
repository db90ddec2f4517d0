/// Everything the interaction matrix looks at in a session: two sessions of
/// the same class meet every other session with the same rule.
public struct SessionClass: Sendable, Hashable, CustomStringConvertible {
    public var category: Category
    public var options: Set<PolicyOption>
    public var mode: AudioMode
    /// The category mixes, or the session asks to (`mix-with-others`, `duck-others`).
    public var mixable: Bool

    public init(category: Category, options: Set<PolicyOption> = [], mode: AudioMode = .default, mixable: Bool) {
        self.category = category; self.options = options; self.mode = mode; self.mixable = mixable
    }

    /// Derives `mixable` the way the engine does (docs/POLICY.md, "Categories").
    public init(category: Category, options: Set<PolicyOption> = [], mode: AudioMode = .default, config: PolicyConfig) {
        let mixable = config.traits(of: category).mixable
            || options.contains(.mixWithOthers) || options.contains(.duckOthers)
        self.init(category: category, options: options, mode: mode, mixable: mixable)
    }

    public var description: String {
        var text = category.rawValue
        if !options.isEmpty { text += " [" + options.sorted().map(\.rawValue).joined(separator: ", ") + "]" }
        if mode != .default { text += " mode=\(mode.rawValue)" }
        return text + (mixable ? " (mixable)" : "")
    }
}

/// A session class packed into a small integer, so the matrix is a flat table
/// indexed by two of them. `mixable` is left out: the engine derives it from
/// the other three.
struct ClassCode {
    static let categories = Category.allCases
    static let optionList = PolicyOption.allCases
    static let modes = AudioMode.allCases
    static let optionCombinations = 1 << optionList.count
    static let count = categories.count * optionCombinations * modes.count

    // Switches rather than lookups: hashing these String-backed enums would
    // cost more than the rest of a session's work. Positions are those of
    // `allCases` (a test checks), and a new case fails to compile here.
    static func categoryIndex(_ category: Category) -> Int {
        switch category {
        case .ambient: 0
        case .soloAmbient: 1
        case .playback: 2
        case .record: 3
        case .playAndRecord: 4
        case .audioProcessing: 5
        case .systemSound: 6
        }
    }

    static func optionBit(_ option: PolicyOption) -> Int {
        switch option {
        case .mixWithOthers: 1
        case .duckOthers: 2
        case .interruptSpokenAudio: 4
        }
    }

    static func optionMask(_ options: Set<PolicyOption>) -> Int {
        var mask = 0
        for option in options { mask |= optionBit(option) }
        return mask
    }

    static func modeIndex(_ mode: AudioMode) -> Int {
        switch mode {
        case .default: 0
        case .spokenAudio: 1
        }
    }

    static func index(category: Int, options: Int, mode: Int) -> Int {
        (category * optionCombinations + options) * modes.count + mode
    }

    static func index(_ category: Category, _ options: Set<PolicyOption>, _ mode: AudioMode) -> Int {
        index(category: categoryIndex(category), options: optionMask(options), mode: modeIndex(mode))
    }

    /// The parts of a packed class, inverse of `index`.
    static func parts(of code: Int) -> (category: Int, options: Int, mode: Int) {
        let mode = code % modes.count
        let rest = code / modes.count
        return (rest / optionCombinations, rest % optionCombinations, mode)
    }
}
