import ArgumentParser
import PolicyCLI
import PolicyCore

/// `pw-policy set`: a runtime category override for a stream or an app.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Override the category of a stream or of every stream of an app.",
        discussion: """
        A stream's override lasts as long as the stream. An app's override (--app) applies \
        to all its streams, now and later, until the agent stops; with --persist the agent \
        remembers it across restarts. '--persist' with a stream sets the override for the \
        stream's app. Overrides beat everything else (docs/CLASSIFICATION.md); remove them \
        with 'pw-policy unset'.

        Examples:
          pw-policy set 57 --category playback --options duck-others
          pw-policy set spotify --category playback --persist
          pw-policy set --app org.gnome.Maps --category playback --options duck-others
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var target: TargetOptions
    @OptionGroup var override: OverrideOptions
    @Flag(help: "Remember the app's override across agent restarts (applies to the stream's app when a stream is given).")
    var persist = false
    @OptionGroup var color: ColorOptions

    func run() throws {
        try reportingFailures {
            let spec = try override.spec()
            let session = try PipeWireSession.open(remote: remote.remote)
            _ = try session.requireAgent()
            if let app = target.app {
                try setApp(app, spec: spec, session: session)
                return
            }
            let stream = try StreamResolver.resolve(target.stream ?? "", among: session.streams, graph: session.graph,
                                                    ambiguityHint: "or use --app to set every stream of an app")
            if persist {
                try setApp(stream.appKey, spec: spec, session: session)
                return
            }
            try session.write(ControlWrites.setStream(stream.id, spec))
            let confirmed = session.waitForAgent { snapshot in
                guard let status = snapshot.streams[stream.id] else { return false }
                return status.source == ClassificationSource.override.rawValue && status.category == spec.category.rawValue
            }
            print("stream \(stream.id) \"\(stream.app)\": \(spec.summary) while the stream lasts" + (confirmed ? "" : notConfirmed))
            printWarnings(of: [stream.id], session: session)
        }
    }

    private func setApp(_ query: String, spec: OverrideSpec, session: PipeWireSession) throws {
        let (key, streams) = try StreamResolver.appKey(for: query, among: session.streams,
                                                       existingOverrides: Array(session.snapshot.appOverrides.keys))
        try session.write(ControlWrites.setApp(key, spec, persist: persist))
        var confirmed = session.waitForAgent { $0.appOverrides[key]?.category == spec.category.rawValue }
        if confirmed, !streams.isEmpty {
            confirmed = session.waitForAgent { snapshot in
                streams.allSatisfy { snapshot.streams[$0.id].map { $0.category == spec.category.rawValue } ?? true }
            }
        }
        let scope = persist ? "remembered across restarts" : "until the agent stops (add --persist to remember it)"
        let running = streams.isEmpty ? "no stream of it is playing now" : "\(streams.count) stream\(streams.count == 1 ? "" : "s") now"
        print("app '\(key)': \(spec.summary), \(scope); \(running)" + (confirmed ? "" : notConfirmed))
        printWarnings(of: streams.map(\.id), session: session)
    }

    private var notConfirmed: String { " (requested; the agent has not confirmed it yet)" }

    private func printWarnings(of ids: [UInt32], session: PipeWireSession) {
        let snapshot = session.snapshot
        for id in ids {
            for warning in snapshot.streams[id]?.warnings ?? [] { printError("stream \(id): \(warning)") }
        }
    }
}
