import Foundation
import PolicyCore
import PolicyCLI
import PolicyFiles
import Testing

/// `pw-policy simulate` on dumps made by hand in pw-dump's shape: the agent
/// run in memory on them, and what `status` and `explain` would print.
struct SimulationReportTests {
    static let shipped: LoadedConfig = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("conf/pw-policy.conf").path
        return try! ConfigLoader(environment: [:], fileSystem: .live).load(file: root)
    }()
    static let identity = AgentCore.Identity(pid: 0, version: "test", startedAt: "2026-11-27T00:00:00Z", dryRun: false)

    /// pw-dump's objects, as it prints them (numbers and booleans bare).
    static func object(_ id: Int, _ type: String, _ info: [String: Any], extra: [String: Any] = [:]) -> [String: Any] {
        ["id": id, "type": "PipeWire:Interface:" + type, "info": info].merging(extra) { $1 }
    }
    static func node(_ id: Int, _ props: [String: Any], state: String = "running", volume: Double = 1) -> [String: Any] {
        object(id, "Node", ["state": state, "props": props.merging(["object.serial": id + 1000]) { $1 },
                            "params": ["Props": [["volume": volume, "mute": false, "channelVolumes": [1.0]]]]])
    }
    static func port(_ id: Int, node: Int, _ direction: String) -> [String: Any] {
        object(id, "Port", ["direction": direction == "in" ? "input" : "output",
                            "props": ["node.id": node, "port.direction": direction, "audio.channel": "MONO"]])
    }
    static func link(_ id: Int, _ output: (node: Int, port: Int), _ input: (node: Int, port: Int)) -> [String: Any] {
        object(id, "Link", ["output-node-id": output.node, "output-port-id": output.port, "input-node-id": input.node,
                            "input-port-id": input.port, "state": "active"])
    }
    static func metadata(_ id: Int, _ name: String, _ entries: [[String: Any]]) -> [String: Any] {
        ["id": id, "type": "PipeWire:Interface:Metadata", "props": ["metadata.name": name], "metadata": entries]
    }
    static func entry(_ subject: Int, _ key: String, _ value: Any, type: String = "Spa:String:JSON") -> [String: Any] {
        ["subject": subject, "key": key, "type": type, "value": value]
    }

    /// Speakers (30), music (40, `media.role = Music`) and a prompt that
    /// ducks others (41), both playing on the speakers; WirePlumber
    /// `wirePlumber` with its version, or 0.4's client without one.
    static func scene(wirePlumber: String? = "0.5.8", extra: [[String: Any]] = []) -> [[String: Any]] {
        var wirePlumberProps: [String: Any] = ["application.name": "WirePlumber", "wireplumber.daemon": true,
                                               "pipewire.sec.pid": 99]
        if let wirePlumber { wirePlumberProps["application.version"] = wirePlumber }
        return [
            object(0, "Core", ["version": "1.4.2", "props": [:] as [String: Any]]),
            object(20, "Client", ["props": wirePlumberProps]),
            node(30, ["media.class": "Audio/Sink", "node.name": "speakers", "node.description": "Speakers"]),
            port(31, node: 30, "in"),
            node(40, ["media.class": "Stream/Output/Audio", "node.name": "music", "application.name": "Music Player",
                      "media.role": "Music"]),
            port(42, node: 40, "out"),
            node(41, ["media.class": "Stream/Output/Audio", "node.name": "prompt", "application.name": "Maps",
                      "policy.category": "playback", "policy.options": "[ duck-others ]"]),
            port(43, node: 41, "out"),
            link(50, (40, 42), (30, 31)),
            link(51, (41, 43), (30, 31)),
            metadata(60, "default", [entry(0, "default.audio.sink", ["name": "speakers"])]),
        ] + extra
    }

    static func report(_ objects: [[String: Any]], wirePlumber: String? = nil, explain: String? = nil,
                       json: Bool) throws -> SimulationReport {
        let bytes = Array(try JSONSerialization.data(withJSONObject: objects))
        return try SimulationReport(dump: bytes, name: "graph.json", config: shipped, identity: identity,
                                    wirePlumberVersion: wirePlumber, explain: explain, json: json)
    }

    /// `status --json`'s objects of one type, by id.
    static func objects(_ output: String, type: String) throws -> [Int: [String: Any]] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        var found: [Int: [String: Any]] = [:]
        for object in array where object["type"] as? String == "PwPolicy:" + type {
            found[object["id"] as! Int] = object["info"] as? [String: Any]
        }
        return found
    }

    @Test func thePromptDucksTheMusic() throws {
        let report = try Self.report(Self.scene(), json: true)
        print("simulate: \(report.output)")
        let streams = try Self.objects(report.output, type: "Stream")
        let music = try #require(streams[40]), prompt = try #require(streams[41])
        #expect(music["gain"] as? Double == 0.2, "\(music)")
        #expect((music["duckedBy"] as? [[String: Any]])?.first?["app"] as? String == "Maps", "\(music)")
        #expect(prompt["gain"] as? Double == 1 && prompt["category"] as? String == "playback", "\(prompt)")
        #expect(prompt["options"] as? [String] == ["duck-others"], "\(prompt)")
        let agent = try #require(try Self.objects(report.output, type: "Agent")[0])
        let stack = try #require(agent["stack"] as? [String: Any])
        #expect((stack["wireplumber"] as? [String: Any])?["version"] as? String == "0.5.8", "\(stack)")
        #expect((stack["pipewire"] as? [String: Any])?["version"] as? String == "1.4.2", "\(stack)")
        #expect(report.warnings.isEmpty)
    }

    @Test func theTextSaysWhatWasAssumed() throws {
        let report = try Self.report(Self.scene(wirePlumber: nil), json: false)
        print(report.output)
        #expect(report.output.hasPrefix("Simulated on graph.json, without PipeWire"))
        #expect(report.output.contains("the meters hear every running stream"))
        #expect(report.output.contains("the agent was not running when the dump was taken"))
        #expect(report.output.contains("give it with --wireplumber VERSION"), "WirePlumber 0.4 publishes no version")
        #expect(report.output.contains("DUCKED by \"Maps\""))
        let given = try Self.report(Self.scene(wirePlumber: nil), wirePlumber: "0.4.13", json: false)
        #expect(!given.output.contains("--wireplumber") && given.output.contains("WirePlumber 0.4.13"))
    }

    /// A dump taken while the agent ran: its settings and the streams'
    /// overrides hold, what it published is replaced, and the WirePlumber
    /// version it found is used.
    @Test func theAgentsOwnStateInTheDump() throws {
        let status = #"{"pid":7,"version":"0.1.0","startedAt":"x","configFiles":[],"dryRun":false,"silentMode":true,"stack":{"pipewire":{"version":"0.3.65"},"wireplumber":{"client":20,"version":"0.4.13","versionSource":"linked-library"},"capabilities":{"nativeVolumeRamps":false}}}"#
        let published = Self.metadata(70, "pw-policy", [
            Self.entry(0, "pw-policy.agent", try JSONSerialization.jsonObject(with: Data(status.utf8))),
            Self.entry(0, "pw-policy.silent-mode", true, type: "Spa:String"),
            Self.entry(40, "pw-policy.stream", ["category": "record"]),
            Self.entry(40, "policy.category", "system-sound", type: "Spa:String"),
        ])
        let report = try Self.report(Self.scene(wirePlumber: nil, extra: [published]), json: true)
        let streams = try Self.objects(report.output, type: "Stream")
        #expect(streams[40]?["category"] as? String == "system-sound", "\(streams[40] ?? [:])")
        #expect(streams[40]?["source"] as? String == "override")
        #expect(streams[40]?["silenced"] as? Bool == true, "silent mode on silences a system sound")
        let agent = try #require(try Self.objects(report.output, type: "Agent")[0])
        #expect(agent["silentMode"] as? Bool == true && agent["pid"] as? Int == 0, "\(agent)")
        #expect(((agent["stack"] as? [String: Any])?["wireplumber"] as? [String: Any])?["version"] as? String == "0.4.13")
    }

    /// pw-dump of PipeWire 1.6.8 at times leaves the agent's metadata out
    /// (1 dump in 6 in the sandbox): the user is told to take it again.
    @Test func aDumpWithTheAgentButNotItsMetadata() throws {
        let agent = Self.object(25, "Client", ["props": ["application.name": "pw-policy", "application.process.binary": "pw-policy-agent"]])
        let report = try Self.report(Self.scene(extra: [agent]), json: false)
        #expect(report.output.contains("the agent ran, but the dump holds no 'pw-policy' metadata"), "\(report.output)")
        #expect(!report.output.contains("the agent was not running"))
        #expect(try Self.report(Self.scene(), json: false).output.contains("the agent was not running when the dump was taken"))
    }

    @Test func explainsOneStream() throws {
        let report = try Self.report(Self.scene(), explain: "music", json: false)
        #expect(report.output.contains("40. Music Player (playback stream, running) → speakers"), "\(report.output)")
        #expect(report.output.contains("ducked to 0.20 by \"Maps\""), "\(report.output)")
        #expect(throws: CLIFailure.self) { try Self.report(Self.scene(), explain: "nothing-like-it", json: false) }
    }

    @Test func notADumpFailsWithItsName() {
        #expect {
            try SimulationReport(dump: Array("{}".utf8), name: "graph.json", config: Self.shipped, identity: Self.identity,
                                 json: false)
        } throws: { error in
            (error as? CLIFailure) == CLIFailure(.dataError,
                "graph.json: not a pw-dump: pw-dump prints a JSON array of objects, this is an object")
        }
    }
}
