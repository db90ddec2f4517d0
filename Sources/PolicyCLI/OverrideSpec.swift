import PolicyCore

/// A category override as given on the command line (`--category`,
/// `--options`, `--mode`), validated against `Category`, `PolicyOption` and
/// `AudioMode` before anything is written.
public struct OverrideSpec: Sendable, Equatable {
    public var category: Category
    public var options: [PolicyOption]
    public var mode: AudioMode?

    public init(category: Category, options: [PolicyOption] = [], mode: AudioMode? = nil) {
        self.category = category; self.options = options; self.mode = mode
    }

    /// Options may be repeated (`--options a --options b`) or comma-separated.
    public static func parse(category: String, options: [String], mode: String?) throws(CLIFailure) -> OverrideSpec {
        guard let parsedCategory = Category(rawValue: category.trimmingSpaces.lowercased()) else {
            throw CLIFailure(.usage, unknownName("category", category, known: Category.allCases.map(\.rawValue)))
        }
        var parsedOptions: [PolicyOption] = []
        for raw in options.flatMap({ $0.split(separator: ",") }) {
            let name = String(raw).trimmingSpaces
            guard !name.isEmpty else { continue }
            guard let option = PolicyOption(rawValue: name.lowercased()) else {
                throw CLIFailure(.usage, unknownName("option", name, known: PolicyOption.allCases.map(\.rawValue)))
            }
            if !parsedOptions.contains(option) { parsedOptions.append(option) }
        }
        var parsedMode: AudioMode?
        if let mode {
            guard let value = AudioMode(rawValue: mode.trimmingSpaces.lowercased()) else {
                throw CLIFailure(.usage, unknownName("mode", mode, known: AudioMode.allCases.map(\.rawValue)))
            }
            parsedMode = value
        }
        return OverrideSpec(category: parsedCategory, options: parsedOptions.sorted(), mode: parsedMode)
    }

    /// `unknown category 'playbak'; did you mean 'playback'? (expected one of: …)`
    static func unknownName(_ what: String, _ given: String, known: [String]) -> String {
        let expected = "expected one of: " + known.joined(separator: ", ")
        if let close = EditDistance.closest(to: given, in: known) {
            return "unknown \(what) '\(given)'; did you mean '\(close)'? (\(expected))"
        }
        return "unknown \(what) '\(given)'; \(expected)"
    }

    /// `playback [duck-others] mode spoken-audio`, for confirmations.
    public var summary: String {
        var text = category.rawValue
        if !options.isEmpty { text += " [" + options.map(\.rawValue).joined(separator: ", ") + "]" }
        if let mode { text += " mode \(mode.rawValue)" }
        return text
    }

    public var appRequest: AppOverrideRequest {
        AppOverrideRequest(category: category.rawValue, options: options.map(\.rawValue), mode: mode?.rawValue)
    }
}

/// The metadata writes of `set`, `unset`, `silent` and `resume`, as
/// AgentProtocol documents them.
public enum ControlWrites {
    /// A stream's own override; options and mode not given are removed. The
    /// category goes last, so the agent never applies the new category with
    /// the previous options for a moment.
    public static func setStream(_ id: UInt32, _ spec: OverrideSpec) -> [MetadataWrite] {
        let options = spec.options.isEmpty ? nil : CLIJSON.line(spec.options.map(\.rawValue))
        return [
            MetadataWrite(subject: id, key: AgentProtocol.modeKey, type: spec.mode == nil ? nil : AgentProtocol.stringType,
                          value: spec.mode?.rawValue),
            MetadataWrite(subject: id, key: AgentProtocol.optionsKey, type: options == nil ? nil : AgentProtocol.jsonType,
                          value: options),
            MetadataWrite(subject: id, key: AgentProtocol.categoryKey, type: AgentProtocol.stringType,
                          value: spec.category.rawValue),
        ]
    }

    /// Removes a stream's own override: the category first, so what is left
    /// for a moment (options without a category) is ignored by the agent.
    public static func unsetStream(_ id: UInt32) -> [MetadataWrite] {
        [AgentProtocol.categoryKey, AgentProtocol.optionsKey, AgentProtocol.modeKey].map {
            MetadataWrite(subject: id, key: $0, type: nil, value: nil)
        }
    }

    public static func setApp(_ appKey: String, _ spec: OverrideSpec, persist: Bool) -> [MetadataWrite] {
        var request = spec.appRequest
        request.persist = persist
        return [.agent(subject: 0, AgentProtocol.appOverrideKey(appKey), CLIJSON.line(request))]
    }

    public static func unsetApp(_ appKey: String) -> [MetadataWrite] {
        [.agent(subject: 0, AgentProtocol.appOverrideKey(appKey), nil)]
    }

    public static func silentMode(_ choice: SilentChoice) -> [MetadataWrite] {
        [.agent(subject: 0, AgentProtocol.silentModeKey, AgentProtocol.silentModeValue(choice))]
    }

    public static func resume(_ id: UInt32) -> [MetadataWrite] {
        [.agent(subject: id, AgentProtocol.resumeKey, "true")]
    }
}

/// `silent on|off|toggle|status`.
public enum SilentAction: String, CaseIterable, Sendable {
    case on, off, toggle, follow, status

    public static func parse(_ raw: String) throws(CLIFailure) -> SilentAction {
        guard let action = SilentAction(rawValue: raw.trimmingSpaces.lowercased()) else {
            throw CLIFailure(.usage, OverrideSpec.unknownName("action", raw, known: allCases.map(\.rawValue)))
        }
        return action
    }

    /// The choice to write, given whether silent mode is on now; nil for
    /// `status`. A toggle is an explicit choice: the other state.
    public func target(current: Bool) -> SilentChoice? {
        switch self {
        case .on: .on
        case .off: .off
        case .toggle: current ? .off : .on
        case .follow: .follow
        case .status: nil
        }
    }
}
