import ArgumentParser
import PolicyCLI
import PolicyCore

/// `pw-policy unset`: removes an override set with `set`.
struct UnsetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset",
        abstract: "Remove the category override of a stream or an app.",
        discussion: """
        The stream then gets its category as if no override had been set (the app's own \
        properties, a config rule, inference or the default). Exits 1 when there is no \
        such override.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var target: TargetOptions
    @OptionGroup var color: ColorOptions

    func run() throws {
        try reportingFailures {
            let session = try PipeWireSession.open(remote: remote.remote)
            _ = try session.requireAgent()
            let snapshot = session.snapshot
            if let app = target.app {
                try unsetApp(app, session: session, snapshot: snapshot)
                return
            }
            let stream = try StreamResolver.resolve(target.stream ?? "", among: session.streams, graph: session.graph)
            guard snapshot.nodeOverrides[stream.id]?.category != nil else {
                if snapshot.appOverrides[stream.appKey] != nil {
                    throw CLIFailure(.notFound, "stream \(stream.id) has no override of its own; its app has one: "
                                                + "'pw-policy unset --app \(stream.appKey)'")
                }
                throw CLIFailure(.notFound, "stream \(stream.id) \"\(stream.app)\" has no override")
            }
            try session.write(ControlWrites.unsetStream(stream.id))
            let confirmed = session.waitForAgent { snapshot in
                snapshot.nodeOverrides[stream.id] == nil
                    && snapshot.streams[stream.id].map { $0.source != ClassificationSource.override.rawValue } ?? true
            }
            let now = session.snapshot.streams[stream.id].map { " now \($0.category) (\($0.source))" } ?? ""
            print("stream \(stream.id) \"\(stream.app)\": override removed;" + (confirmed ? now : " the agent has not confirmed it yet"))
        }
    }

    private func unsetApp(_ query: String, session: PipeWireSession, snapshot: AgentSnapshot) throws(CLIFailure) {
        let keys = Array(snapshot.appOverrides.keys).sorted()
        let (key, _) = try StreamResolver.appKey(for: query, among: session.streams, existingOverrides: keys)
        guard snapshot.appOverrides[key] != nil else {
            var message = "app '\(key)' has no override"
            if let close = EditDistance.closest(to: query, in: keys) {
                message += "; did you mean '\(close)'?"
            } else if !keys.isEmpty {
                message += " (overrides exist for: \(keys.joined(separator: ", ")))"
            }
            throw CLIFailure(.notFound, message)
        }
        try session.write(ControlWrites.unsetApp(key))
        let confirmed = session.waitForAgent { $0.appOverrides[key] == nil }
        print("app '\(key)': override removed" + (confirmed ? "" : " (the agent has not confirmed it yet)"))
    }
}
