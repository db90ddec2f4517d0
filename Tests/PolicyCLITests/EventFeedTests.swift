import Foundation
import PolicyCore
import PolicyFiles
import Testing
@testable import PolicyCLI

@Suite struct EventFeedTests {
    private func metadata(event: EventRecord?) -> Graph.Metadata {
        Fixtures.metadata(event.map { [(UInt32(0), AgentProtocol.eventKey, Fixtures.json($0))] } ?? [])
    }

    private let duck = EventRecord(seq: 7, type: .duckBegan, text: "\"Spotify\" ducked to 0.20 by \"Maps\"",
                                   session: "pid:57/playback", by: "pid:60/playback", level: 0.2)

    @Test func theEventPresentAtStartIsOldNews() {
        var feed = EventFeed(initial: metadata(event: duck))
        #expect(feed.update(metadata(event: duck)).isEmpty)
        var next = duck
        next.seq = 8; next.type = .duckEnded
        #expect(feed.update(metadata(event: next)) == [next])
        #expect(feed.update(metadata(event: next)).isEmpty)
    }

    @Test func eventsOverwrittenUnseenAreCounted() {
        var feed = EventFeed(initial: metadata(event: duck))
        var later = duck
        later.seq = 10
        let events = feed.update(metadata(event: later))
        #expect(events.map(\.type) == [.eventsMissed, .duckBegan])
        #expect(events.first?.text.hasPrefix("2 events came too fast") == true)
    }

    @Test func theAgentComingAndGoingIsReported() {
        var feed = EventFeed(initial: nil)
        let started = feed.update(metadata(event: nil))
        #expect(started.map(\.type) == [.agentStarted])
        #expect(feed.update(nil).map(\.type) == [.agentStopped])
        // A restarted agent counts from 1 again: its events are new.
        var first = duck
        first.seq = 1
        #expect(feed.update(metadata(event: first)).map(\.type) == [.agentStarted, .duckBegan])
    }

    @Test func linesAsTextAndJSON() throws {
        let text = EventRenderer.text(duck, time: "12:03:04")
        #expect(text == "12:03:04  duck-began          \"Spotify\" ducked to 0.20 by \"Maps\"")
        let json = EventRenderer.json(duck, time: "2024-01-01T12:03:04.000Z")
        #expect(!json.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["id"] as? Int == 7 && object["type"] as? String == "PwPolicy:Event")
        let info = try #require(object["info"] as? [String: Any])
        #expect(info["type"] as? String == "duck-began" && info["level"] as? Double == 0.2 && info["time"] as? String != nil)
    }
}

@Suite struct ConfigReportTests {
    @Test func errorsAsJSONCarryTheirPlace() throws {
        let error = ConfigError(file: "a.conf", line: 3, column: 7, message: "unknown key 'x'",
                                additionalErrors: [ConfigError(file: "a.conf", line: 9, column: 1, message: "bad")])
        #expect(ConfigReport.errorText(error) == "a.conf:3:7: unknown key 'x'\na.conf:9:1: bad")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ConfigReport.errorJSON(error).utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.count == 2)
        #expect(errors[0]["line"] as? Int == 3 && errors[0]["column"] as? Int == 7 && errors[0]["file"] as? String == "a.conf")
    }

    @Test func theEffectiveConfigAsJSONParses() throws {
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("conf/pw-policy.conf").path
        let loaded = try ConfigLoader(environment: [:], fileSystem: .live).load(file: shipped)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ConfigReport.json(loaded).utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == true)
        #expect(object["files"] as? [String] == [shipped])
        let settings = (object["config"] as? [String: Any])?["settings"] as? [String: Any]
        #expect(settings?["duck.level"] as? Double == loaded.config.settings.duckLevel)
        let text = ConfigReport.text(loaded)
        #expect(text.contains("#   \(shipped)\n"))
        // The text is itself a configuration that loads to the same policy.
        let rendered = FileManager.default.temporaryDirectory.appendingPathComponent("pw-policy-rendered-\(getpid()).conf").path
        try text.write(toFile: rendered, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: rendered) }
        let reloaded = try ConfigLoader(environment: [:], fileSystem: .live).load(file: rendered)
        func withoutOrigins(_ config: PolicyConfig) -> PolicyConfig {
            var config = config
            for index in config.interactions.indices { config.interactions[index].origin = "" }
            for index in config.rules.indices { config.rules[index].origin = "" }
            return config
        }
        #expect(withoutOrigins(reloaded.config) == withoutOrigins(loaded.config))
    }
}
