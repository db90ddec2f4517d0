import PolicyCore

/// `pw-policy status` as a tree in the style of `wpctl status`, and as JSON.
public enum StatusRenderer {
    public static func text(_ view: StatusView, style: TextStyle = .plain) -> String {
        var out = agentSection(view, style: style)
        out += "\n" + outputsSection(view, style: style)
        out += "\n" + sessionsSection(view, style: style)
        let warnings = warningLines(view)
        if !warnings.isEmpty {
            out += "\n" + style.bold("Warnings") + "\n"
            out += warnings.map { "    " + style.yellow($0) + "\n" }.joined()
        }
        return out
    }

    public static func json(_ view: StatusView) -> String {
        var entries = [CLIJSON.Entry(id: 0, type: CLIJSON.agentType,
                                     info: AgentInfo(remote: view.remote, snapshot: view.snapshot, stack: view.stack))]
        entries += view.outputs.map { CLIJSON.Entry(id: $0.id, type: CLIJSON.outputType, info: $0) }
        entries += view.streams.sorted { $0.id < $1.id }.map {
            CLIJSON.Entry(id: $0.id, type: CLIJSON.streamType, info: StreamInfo(candidate: $0, includeProps: false))
        }
        for (key, request) in view.snapshot.appOverrides.sorted(by: { $0.key < $1.key }) {
            entries.append(CLIJSON.Entry(id: 0, type: CLIJSON.overrideType, info: AppOverrideInfo(appKey: key, request: request)))
        }
        return CLIJSON.render(entries)
    }

    // MARK: - sections

    static func agentSection(_ view: StatusView, style: TextStyle) -> String {
        var rows: [(String, [String])] = []
        let snapshot = view.snapshot
        // What runs matters most when nothing happens: shown with or without the agent.
        let stackRow = view.stack.map { ("Stack", [stackLine($0, style: style)]) }
        if let agent = snapshot.agent {
            var state = style.green("running") + " (pid \(agent.pid), version \(agent.version))"
            if agent.dryRun { state += " " + style.yellow("DRY RUN: changes nothing") }
            rows.append(("State", [state]))
            rows.append(("PipeWire", ["'\(view.remote)'"]))
            if let stackRow { rows.append(stackRow) }
            rows.append(("Config", agent.configFiles.isEmpty ? ["(none)"] : agent.configFiles))
            if let error = agent.configError {
                rows.append(("Config error", error.split(separator: "\n").map { style.red(String($0)) }
                             + ["(the previous configuration stays in force)"]))
            }
            rows.append(("Silent mode", [(agent.silentMode ? style.magenta("on") : "off")
                                         + (agent.silentModeReason.map { " (\($0))" } ?? "")]))
            if let doNotDisturb = agent.doNotDisturb { rows.append(("Do Not Disturb", [doNotDisturb])) }
            if let presenting = agent.presenting { rows.append(("Presenting", presentingLines(presenting, style: style))) }
            if let lock = agent.screenLock { rows.append(("Screen lock", [screenLockLine(lock, style: style)])) }
            if let players = agent.players { rows.append(("Players", [players])) }
            if let keys = agent.mediaKeys {
                rows.append(("Media keys", ["→ " + keys.text] + (keys.lastKey.map { ["last key: " + $0] } ?? [])))
            }
            if let sessions = agent.audioSessions { rows.append(("Audio sessions", audioSessionLines(sessions, style: style))) }
        } else if snapshot.isRunning {
            rows.append(("State", [style.yellow("starting") + " (its metadata exists but it has published no status yet)"]))
            rows.append(("PipeWire", ["'\(view.remote)'"]))
            if let stackRow { rows.append(stackRow) }
        } else {
            rows.append(("State", [style.red("not running") + "; start it with 'pw-policy run' (no policy is applied)"]))
            rows.append(("PipeWire", ["'\(view.remote)'"]))
            if let stackRow { rows.append(stackRow) }
        }
        if !view.snapshot.appOverrides.isEmpty {
            rows.append(("App overrides", view.snapshot.appOverrides.sorted { $0.key < $1.key }.map { key, request in
                "\(key): \(describe(request))"
            }))
        }
        let width = rows.map(\.0.count).max() ?? 0
        var out = style.bold("Agent") + "\n"
        for (index, row) in rows.enumerated() {
            let last = index == rows.count - 1
            let label = row.0 + ":" + String(repeating: " ", count: width - row.0.count + 1)
            for (lineIndex, line) in row.1.enumerated() {
                if lineIndex == 0 {
                    out += (last ? " └─ " : " ├─ ") + label + line + "\n"
                } else {
                    out += (last ? "    " : " │  ") + String(repeating: " ", count: label.count) + line + "\n"
                }
            }
        }
        return out
    }

    /// `no`, or one line per screen cast shared, then what it does to alerts:
    /// `yes: GNOME Shell screen cast, node 42, to node 57` / `alerts silenced (presenting.silence-alerts)`.
    static func presentingLines(_ presenting: PresentingStatus, style: TextStyle) -> [String] {
        guard presenting.isPresenting else { return ["no"] }
        let casts = presenting.screenCasts.enumerated().map { index, cast in
            (index == 0 ? style.magenta("yes") + ": " : "") + cast.description + ", to "
                + cast.consumers.map { "node \($0)" }.joined(separator: ", ")
        }
        return casts + [presenting.silencesAlerts ? "alerts silenced (\(SettingsSchema.key(\Settings.presentingSilencesAlerts)))"
                                                  : "alerts play (\(SettingsSchema.key(\Settings.presentingSilencesAlerts)) = false)"]
    }

    /// `org.pwpolicy.AudioSession1 on the session bus; 1 session`, then one
    /// line per session: `/org/pwpolicy/AudioSession1/session/1 (:1.42, pid 4242): ambient → stream 57: active`.
    static func audioSessionLines(_ status: AudioSessionsStatus, style: TextStyle) -> [String] {
        let count = status.sessions.count
        let head = (status.available ? status.text : style.yellow(status.text))
            + (count == 0 ? "; no session" : "; \(count) \(count == 1 ? "session" : "sessions")")
        return [head] + status.sessions.map { session in
            let owner = session.owner + (session.pid.map { ", pid \($0)" } ?? "")
            let streams = session.streams.isEmpty ? "no stream"
                : (session.streams.count == 1 ? "stream " : "streams ") + session.streams.map(String.init).joined(separator: ", ")
            return "\(session.path) (\(owner)): \(session.declared) → \(streams): \(session.state)"
        }
    }

    /// `locked (GNOME): silences what silent mode silences (silent.while-locked)`, `unlocked (screen saver)`.
    static func screenLockLine(_ lock: ScreenLockStatus, style: TextStyle) -> String {
        guard lock.locked else { return lock.text }
        return style.magenta(lock.text) + ": "
            + (lock.silences ? "silences what silent mode silences (\(SettingsSchema.key(\Settings.silenceWhileLocked)))"
                             : "silences nothing (\(SettingsSchema.key(\Settings.silenceWhileLocked)) = false)")
    }

    /// `PipeWire 0.3.65 · WirePlumber 0.4.13 · fades: stepped (no native volume ramps before PipeWire 0.3.68)`,
    /// a missing WirePlumber in red: nothing links new streams without it.
    static func stackLine(_ stack: StackStatus, style: TextStyle) -> String {
        let missing = "WirePlumber not running"
        return stack.wireplumber == nil ? stack.summary.replacing(missing, with: style.red(missing)) : stack.summary
    }

    static func outputsSection(_ view: StatusView, style: TextStyle) -> String {
        var out = style.bold("Outputs") + "\n"
        guard !view.outputs.isEmpty else { return out + "        (none)\n" }
        let nameWidth = view.outputs.map { displayName($0).count }.max() ?? 0
        for output in view.outputs.sorted(by: { $0.id < $1.id }) {
            let marker = output.isDefault ? style.bold("*") : " "
            let name = displayName(output)
            var tags: [String] = []
            if let port = output.port { tags.append("port: \(port)") }
            if output.isPrivate { tags.append("private") }
            if !output.isAvailable { tags.append("unavailable") }
            if output.description != output.name { tags.append(output.name) }
            let tagText = tags.isEmpty ? "" : String(repeating: " ", count: nameWidth - name.count) + "  " + style.dim("[\(tags.joined(separator: ", "))]")
            out += "  \(marker) " + pad("\(output.id).", 5, left: true) + " " + (output.isDefault ? style.bold(name) : name) + tagText + "\n"
        }
        return out
    }

    static func displayName(_ output: OutputStatus) -> String {
        output.description.isEmpty ? output.name : output.description
    }

    static func sessionsSection(_ view: StatusView, style: TextStyle) -> String {
        var out = style.bold("Sessions") + "\n"
        let groups = view.groups
        guard !groups.isEmpty else { return out + "        (no audio streams)\n" }
        let rows = view.streams.map { StreamRow($0) }
        let widths = StreamRow.Widths(rows)
        for (index, group) in groups.enumerated() {
            let last = index == groups.count - 1
            let title = group.category ?? (view.snapshot.isRunning ? "not classified yet" : "streams (no policy: the agent is not running)")
            out += (last ? " └─ " : " ├─ ") + style.cyan(title) + ":\n"
            let prefix = last ? "    " : " │  "
            for stream in group.streams {
                out += prefix + StreamRow(stream).render(widths: widths, style: style) + "\n"
            }
            if !last { out += " │  \n" }
        }
        return out
    }

    static func warningLines(_ view: StatusView) -> [String] {
        var lines = view.snapshot.problems
        for stream in view.streams.sorted(by: { $0.id < $1.id }) {
            for warning in stream.status?.warnings ?? [] { lines.append("\(stream.id). \(stream.app): \(warning)") }
        }
        return lines
    }

    static func describe(_ request: AppOverrideRequest) -> String {
        var text = request.category
        if !request.options.isEmpty { text += " [\(request.options.joined(separator: ", "))]" }
        if let mode = request.mode, mode != AudioMode.default.rawValue { text += " mode \(mode)" }
        if request.persist { text += " (persistent)" }
        return text
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}

/// One stream's line: `57. Spotify  playback  running  duck-others  → speakers  [effect]`.
struct StreamRow {
    var id: String
    var app: String
    var direction: String
    var state: String
    var options: String
    var output: String
    var effect: PolicyEffect?

    init(_ stream: StreamCandidate) {
        id = "\(stream.id)."
        app = stream.app
        direction = stream.direction.rawValue
        state = stream.state
        var tags = stream.status?.options ?? []
        if let mode = stream.status?.mode, mode != AudioMode.default.rawValue { tags.append(mode) }
        if stream.status?.source == ClassificationSource.override.rawValue { tags.append("override") }
        if let player = stream.status?.player { tags.append("player=\(player.identity ?? player.busName)") }
        options = tags.joined(separator: ",")
        output = stream.status?.output.map { "→ \($0)" + (stream.status?.via.map { " via \($0)" } ?? "") } ?? ""
        effect = stream.status.flatMap(PolicyEffect.of)
    }

    struct Widths {
        var id = 0, app = 0, direction = 0, state = 0, options = 0, output = 0
        init(_ rows: [StreamRow]) {
            for row in rows {
                id = max(id, row.id.count); app = max(app, row.app.count)
                direction = max(direction, row.direction.count); state = max(state, row.state.count)
                options = max(options, row.options.count); output = max(output, row.output.count)
            }
        }
    }

    func render(widths: Widths, style: TextStyle) -> String {
        var columns = [StatusRenderer.pad(id, widths.id + 4, left: true) + " " + StatusRenderer.pad(app, widths.app),
                       StatusRenderer.pad(direction, widths.direction), StatusRenderer.pad(state, widths.state)]
        if widths.options > 0 { columns.append(StatusRenderer.pad(options, widths.options)) }
        if widths.output > 0 { columns.append(StatusRenderer.pad(output, widths.output)) }
        if let effect { columns.append(style.effect(effect)) }
        var line = columns.joined(separator: "  ")
        while line.last == " " { line.removeLast() }
        return line
    }
}

struct AppOverrideInfo: Encodable {
    var appKey: String
    var request: AppOverrideRequest

    enum Keys: String, CodingKey { case appKey }

    func encode(to encoder: Encoder) throws {
        try request.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(appKey, forKey: .appKey)
    }
}
