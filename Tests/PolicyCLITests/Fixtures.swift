import Foundation
import PolicyCore
@testable import PolicyCLI
import PolicyTestSupport

/// Graphs and agent states as the agent would publish them, for the renderers.
enum Fixtures {
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }

    static func metadata(id: UInt32 = 90, _ entries: [(subject: UInt32, key: String, value: String)]) -> Graph.Metadata {
        var metadata = Graph.Metadata(id: id, name: AgentProtocol.metadataName)
        for entry in entries {
            metadata.entries[entry.subject, default: [:]][entry.key] =
                Graph.MetadataEntry(subject: entry.subject, key: entry.key, type: AgentProtocol.jsonType, value: entry.value)
        }
        return metadata
    }

    static let agent = AgentStatus(pid: 4242, version: "0.1.0", startedAt: "12.5",
                                   configFiles: ["/usr/share/pw-policy/pw-policy.conf", "/home/u/.config/pw-policy/pw-policy.conf.d/10-mine.conf"],
                                   configError: nil, dryRun: false, silentMode: false, stack: stack)

    static let stack = StackStatus(
        pipewire: .init(version: "0.3.65"),
        wireplumber: .init(client: 26, pid: 1931, version: "0.4.13", versionSource: "linked-library"),
        capabilities: StackCapabilities(nativeVolumeRamps: false))

    static let outputs = [
        OutputStatus(id: 31, name: "speakers", description: "Speakers", isPrivate: false, isAvailable: true, isDefault: true),
        OutputStatus(id: 36, name: "headphones", description: "Headphones", isPrivate: true, isAvailable: true, isDefault: false),
    ]

    static func stream(_ id: UInt32, app: String, category: String = "playback", session: String? = nil,
                       direction: String = "playback", options: [String] = [], gain: Double = 1,
                       hold: StreamStatus.Hold? = nil, silenced: Bool = false, duckedBy: [StreamStatus.Ducker] = [],
                       source: String = "rule", warnings: [String] = [], explanation: [String] = ["full gain: nothing holds, ducks or silences it"]) -> StreamStatus {
        StreamStatus(id: id, app: app, appKey: app.lowercased(), session: session ?? "pid:\(id)/\(category)",
                     direction: direction, state: "running", category: category, options: options, mode: "default",
                     exempt: false, source: source, reason: "rule #1 (pw-policy.conf:10): application.name = \"\(app)\"",
                     warnings: warnings, gain: gain, hold: hold, silenced: silenced, duckedBy: duckedBy,
                     output: "speakers", explanation: explanation)
    }

    /// A stream's properties as an app's `pw_stream` gives them.
    static func streamProps(app: String, binary: String? = nil, mediaName: String? = nil) -> [String: String] {
        var props = ["application.name": app, "node.name": "\(app.lowercased())-node"]
        if let binary { props["application.process.binary"] = binary }
        if let mediaName { props["media.name"] = mediaName }
        return props
    }

    /// Spotify ducked by Maps, Firefox held by Zoom, a silenced game.
    static var busyGraph: Graph {
        var graph = Graph()
        graph.addSink(31, name: "speakers", state: .running)
        graph.addStream(57, props: streamProps(app: "Spotify", binary: "spotify", mediaName: "Song"))
        graph.addStream(60, props: streamProps(app: "Maps", mediaName: "Turn left"))
        graph.addStream(63, props: streamProps(app: "Firefox", binary: "firefox"))
        graph.addStream(70, direction: .capture, props: streamProps(app: "Zoom", binary: "zoom"))
        graph.addStream(71, props: streamProps(app: "Zoom", binary: "zoom"))
        graph.addStream(80, props: streamProps(app: "Game", binary: "game"))
        let entries: [(subject: UInt32, key: String, value: String)] = [
            (0, AgentProtocol.agentKey, json(agent)),
            (0, AgentProtocol.outputsKey, json(outputs)),
            (57, AgentProtocol.streamKey, json(stream(57, app: "Spotify", gain: 0.2,
                                                      duckedBy: [.init(session: "pid:60/playback", app: "Maps")],
                                                      explanation: ["ducked to 0.20 by \"Maps\" (rule 15: …)"]))),
            (60, AgentProtocol.streamKey, json(stream(60, app: "Maps", options: ["duck-others"]))),
            (63, AgentProtocol.streamKey, json(stream(63, app: "Firefox", gain: 0,
                                                      hold: .init(kind: "interrupted", by: "pid:70/play-and-record", byApp: "Zoom", resumable: true)))),
            (70, AgentProtocol.streamKey, json(stream(70, app: "Zoom", category: "play-and-record", session: "pid:70/play-and-record", direction: "capture"))),
            (71, AgentProtocol.streamKey, json(stream(71, app: "Zoom", category: "play-and-record", session: "pid:70/play-and-record"))),
            (80, AgentProtocol.streamKey, json(stream(80, app: "Game", category: "solo-ambient", gain: 0, silenced: true,
                                                      warnings: ["policy.options \"x\": \"x\" is not an option"]))),
        ]
        let metadata = Self.metadata(entries)
        graph.metadata[metadata.id] = metadata
        return graph
    }

    static var busyView: StatusView {
        StatusView(remote: "pipewire-0", graph: busyGraph, graphOutputs: [])
    }
}
