/// What users asked for through the `pw-policy` metadata (AgentProtocol),
/// parsed and checked. Garbage never throws: it becomes a warning on the
/// stream it was meant for (or a global one) and is otherwise ignored, so a
/// bad value keeps the previous behaviour.
public struct ControlRequests: Sendable, Equatable {
    /// The user's silent switch, if written (`true`, `false`, `follow`).
    public var silentMode: SilentChoice?
    /// Per-stream overrides from policy.category / policy.options / policy.mode.
    public var nodeOverrides: [UInt32: ClassificationOverride] = [:]
    public var appOverrides: [String: AppOverrideRequest] = [:]
    public var resumeRequests: Set<UInt32> = []
    /// Problems with values aimed at a stream, by node id.
    public var streamWarnings: [UInt32: [String]] = [:]
    /// Problems with global values.
    public var warnings: [String] = []

    public init() {}

    /// Reads the requests out of the `pw-policy` metadata entries.
    /// `previousNodeOverrides` keeps a stream's category when only a broken
    /// value was written for it.
    public static func parse(_ metadata: Graph.Metadata?,
                             previousNodeOverrides: [UInt32: ClassificationOverride] = [:]) -> ControlRequests {
        var requests = ControlRequests()
        guard let metadata else { return requests }
        for (subject, entries) in metadata.entries.sorted(by: { $0.key < $1.key }) {
            if subject == 0 {
                requests.parseGlobal(entries)
            } else {
                requests.parseStream(subject, entries, previous: previousNodeOverrides[subject])
            }
        }
        return requests
    }

    private mutating func parseGlobal(_ entries: [String: Graph.MetadataEntry]) {
        if let raw = entries[AgentProtocol.silentModeKey]?.value {
            switch ControlRequests.unquote(raw).lowercased() {
            case "true", "on", "1": silentMode = .on
            case "false", "off", "0": silentMode = .off
            case "follow": silentMode = .follow
            default:
                warnings.append("\(AgentProtocol.silentModeKey) = '\(ControlRequests.abbreviate(raw))' is not true, false or follow; ignored")
            }
        }
        for (key, entry) in entries.sorted(by: { $0.key < $1.key }) where key.hasPrefix(AgentProtocol.appOverridePrefix) {
            let appKey = String(key.dropFirst(AgentProtocol.appOverridePrefix.count))
            let shownKey = ControlRequests.abbreviate(key)
            guard !appKey.isEmpty,
                  let request = try? JSONValueDecoder.decode(AppOverrideRequest.self, from: entry.value.utf8) else {
                warnings.append("\(shownKey): expected {\"category\": …, \"options\": […]}, got '\(ControlRequests.abbreviate(entry.value))'; ignored")
                continue
            }
            guard StreamPropertyPolicy.parseCategory(request.category) != nil else {
                warnings.append("\(shownKey): '\(ControlRequests.abbreviate(request.category))' is not a category; ignored")
                continue
            }
            // Like a stream override: what is understood applies, the rest is reported.
            let unknownOptions = StreamPropertyPolicy.parseOptions(request.options.joined(separator: " ")).unknown
            if !unknownOptions.isEmpty {
                warnings.append("\(shownKey): unknown options \(unknownOptions.map { "'\(ControlRequests.abbreviate($0))'" }.joined(separator: ", ")); ignored")
            }
            if let mode = request.mode, StreamPropertyPolicy.parseMode(mode) == nil {
                warnings.append("\(shownKey): '\(ControlRequests.abbreviate(mode))' is not a mode; ignored")
            }
            appOverrides[appKey] = request
        }
    }

    private mutating func parseStream(_ id: UInt32, _ entries: [String: Graph.MetadataEntry],
                                      previous: ClassificationOverride?) {
        if entries[AgentProtocol.resumeKey] != nil { resumeRequests.insert(id) }
        guard let rawCategory = entries[AgentProtocol.categoryKey]?.value else {
            if entries[AgentProtocol.optionsKey] != nil || entries[AgentProtocol.modeKey] != nil {
                streamWarnings[id, default: []].append("policy.options/policy.mode need policy.category in the same override; ignored")
            }
            return
        }
        guard let category = StreamPropertyPolicy.parseCategory(ControlRequests.unquote(rawCategory)) else {
            streamWarnings[id, default: []].append(
                "override policy.category '\(ControlRequests.abbreviate(rawCategory))' is not a category; expected one of: "
                + Category.allCases.map(\.rawValue).joined(separator: ", ") + "; keeping the previous category")
            if let previous { nodeOverrides[id] = previous }
            return
        }
        var override = ClassificationOverride(category: category)
        if let rawOptions = entries[AgentProtocol.optionsKey]?.value {
            let (options, unknown) = StreamPropertyPolicy.parseOptions(rawOptions)
            override.options = options
            if !unknown.isEmpty {
                streamWarnings[id, default: []].append("override policy.options: unknown \(unknown.map { "'\(ControlRequests.abbreviate($0))'" }.joined(separator: ", ")); ignored")
            }
        }
        if let rawMode = entries[AgentProtocol.modeKey]?.value {
            if let mode = StreamPropertyPolicy.parseMode(ControlRequests.unquote(rawMode)) {
                override.mode = mode
            } else {
                streamWarnings[id, default: []].append("override policy.mode '\(ControlRequests.abbreviate(rawMode))' is not a mode; ignored")
            }
        }
        nodeOverrides[id] = override
    }

    /// The override table the classifier uses: stream overrides, then app
    /// overrides (a stream override beats its app's).
    public var overrideTable: OverrideTable {
        var byApp: [String: ClassificationOverride] = [:]
        for (key, request) in appOverrides {
            guard let category = StreamPropertyPolicy.parseCategory(request.category) else { continue }
            let (options, _) = StreamPropertyPolicy.parseOptions(request.options.joined(separator: " "))
            byApp[key] = ClassificationOverride(category: category, options: options,
                                                mode: request.mode.flatMap(StreamPropertyPolicy.parseMode) ?? .default)
        }
        return OverrideTable(byNode: nodeOverrides, byApp: byApp)
    }

    /// JSON strings arrive quoted when written as JSON ("\"playback\"").
    static func unquote(_ raw: String) -> String {
        let trimmed = raw.trimmingWhitespace()
        if trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") {
            return String(trimmed.dropFirst().dropLast())
        }
        return trimmed
    }

    /// Keeps hostile or huge values out of logs and status.
    static func abbreviate(_ raw: String, limit: Int = 64) -> String {
        let printable = String(raw.unicodeScalars.map { $0.properties.isPrintable || $0 == " " ? Character($0) : "?" })
        return printable.count > limit ? String(printable.prefix(limit)) + "…" : printable
    }
}

private extension Unicode.Scalar.Properties {
    var isPrintable: Bool {
        switch generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: false
        default: true
        }
    }
}
