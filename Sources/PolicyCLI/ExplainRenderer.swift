import Foundation
import PolicyCore

/// `pw-policy explain`: why a stream has its category (the rule or property,
/// with values), and why it has its gain or hold (which session, which matrix rule).
public enum ExplainRenderer {
    /// The properties classification looks at, in the order people read them.
    static let telltaleKeys = [
        "application.name", "application.id", "application.process.binary", "application.process.id",
        "pipewire.access.portal.app_id", "media.role", "media.name", "media.class", "node.name",
        "policy.category", "policy.options", "policy.mode", "stream.monitor", "stream.capture.sink",
    ]

    public static func text(_ stream: StreamCandidate, snapshot: AgentSnapshot, style: TextStyle = .plain) -> String {
        var out = style.bold("\(stream.id). \(stream.app)") + " (\(stream.direction.rawValue) stream, \(stream.state))"
        if let output = stream.status?.output { out += " → \(output)" }
        if let via = stream.status?.via { out += " via WirePlumber's role loopback \"\(via)\"" }
        out += "\n"
        var rows: [(String, [String])] = []
        if let status = stream.status {
            var category = status.category
            if !status.options.isEmpty { category += ", options " + status.options.joined(separator: ", ") }
            if status.mode != AudioMode.default.rawValue { category += ", mode \(status.mode)" }
            rows.append(("Category", [style.cyan(category)]))
            rows.append(("Decided by", [sourceDescription(status.source)]))
            rows.append(("Because", [status.reason]))
            rows.append(("Session", [status.session]))
            let effect = PolicyEffect.of(status)
            rows.append(("Effect", [effect.map(style.effect) ?? "none: plays at full gain", "policy gain \(PolicyEffect.formatGain(status.gain))"]))
            if !status.explanation.isEmpty { rows.append(("Why", status.explanation)) }
            switch status.hold?.app {
            case "stopped": rows.append(("App", ["stopped while held: it plays on from there when released"]))
            case "running": rows.append(("App", [style.yellow("keeps running while held: what it plays meanwhile is lost")]))
            default: break
            }
            if let player = status.player {
                let name = player.identity.map { "\($0) (\(player.busName))" } ?? player.busName
                rows.append(("Player", ["\(name): \(player.status)", "matched by \(player.matchedBy)"]
                             + (player.pausedByAgent.map { [$0] } ?? [])))
            }
            if !status.warnings.isEmpty { rows.append(("Warnings", status.warnings.map(style.yellow))) }
            if snapshot.pendingResumes.contains(stream.id) { rows.append(("Pending", ["a resume request the agent has not handled yet"])) }
        } else if snapshot.isRunning {
            rows.append(("Category", ["not classified yet (the agent has published nothing for this stream)"]))
        } else {
            rows.append(("Category", ["unknown: the agent is not running, so no policy applies to this stream"]))
        }
        let props = telltaleKeys.compactMap { key in stream.props[key].map { "\(key) = \"\($0)\"" } }
        rows.append(("Properties", props.isEmpty ? ["(none that classification uses)"] : props))
        rows.append(("Change it", [
            "pw-policy set \(stream.id) --category CATEGORY     (this stream)",
            "pw-policy set --app \(shellWord(stream.appKey)) --category CATEGORY --persist     (every stream of the app, remembered)",
        ]))
        let width = rows.map(\.0.count).max() ?? 0
        for (label, lines) in rows {
            for (index, line) in lines.enumerated() {
                let head = index == 0 ? label + ":" : ""
                out += "  " + style.bold(StatusRenderer.pad(head, width + 1)) + " " + line + "\n"
            }
        }
        return out
    }

    public static func json(_ stream: StreamCandidate) -> String {
        CLIJSON.render([CLIJSON.Entry(id: stream.id, type: CLIJSON.streamType,
                                      info: StreamInfo(candidate: stream, includeProps: true))])
    }

    /// Which step of the precedence (docs/CLASSIFICATION.md) decided, in words.
    public static func sourceDescription(_ source: String) -> String {
        switch ClassificationSource(rawValue: source) {
        case .override: "a runtime override (pw-policy set) — step 1 of 6"
        case .audioSession: "the app's audio session on the session bus (docs/API.md) — step 2 of 6"
        case .streamProperties: "properties the app set on its own stream — step 2 of 6"
        case .rule: "a rule in the configuration — step 3 of 6"
        case .app: "what the desktop knows about the app (desktop entry, launcher) — step 4 of 6"
        case .inference: "built-in inference from the stream's properties — step 5 of 6"
        case .default: "nothing else applied: the configured default — step 6 of 6"
        case nil: source
        }
    }

    /// Quotes an app key for a command line when it needs it.
    static func shellWord(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-+@/:".unicodeScalars.contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
