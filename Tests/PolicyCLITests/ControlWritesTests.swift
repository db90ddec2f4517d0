import Foundation
import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct OverrideSpecTests {
    @Test func parsesAndNormalises() throws {
        let spec = try OverrideSpec.parse(category: "Playback", options: ["mix-with-others,duck-others", "duck-others"], mode: "spoken-audio")
        #expect(spec == OverrideSpec(category: .playback, options: [.mixWithOthers, .duckOthers], mode: .spokenAudio))
        #expect(spec.summary == "playback [mix-with-others, duck-others] mode spoken-audio")
    }

    @Test func unknownNamesAreUsageErrorsWithSuggestions() throws {
        #expect(throws: CLIFailure(.usage, "unknown category 'playbak'; did you mean 'playback'? (expected one of: ambient, solo-ambient, playback, record, play-and-record, audio-processing, system-sound)")) {
            try OverrideSpec.parse(category: "playbak", options: [], mode: nil)
        }
        #expect(throws: CLIFailure(.usage, "unknown option 'duck'; did you mean 'duck-others'? (expected one of: mix-with-others, duck-others, interrupt-spoken-audio)")) {
            try OverrideSpec.parse(category: "playback", options: ["duck"], mode: nil)
        }
        #expect(throws: CLIFailure(.usage, "unknown mode 'loud'; expected one of: default, spoken-audio")) {
            try OverrideSpec.parse(category: "playback", options: [], mode: "loud")
        }
    }

    @Test func silentActions() throws {
        #expect(try SilentAction.parse("ON") == .on)
        #expect(SilentAction.toggle.target(current: true) == .off)
        #expect(SilentAction.toggle.target(current: false) == .on)
        #expect(SilentAction.on.target(current: true) == .on)
        #expect(try SilentAction.parse("follow").target(current: true) == .follow)
        #expect(SilentAction.status.target(current: false) == nil)
        #expect(throws: CLIFailure.self) { try SilentAction.parse("loud") }
    }
}

/// What the CLI writes is what the agent reads: the writes go through the
/// agent's own parser (ControlRequests).
@Suite struct ControlWritesTests {
    private func apply(_ writes: [MetadataWrite], to metadata: Graph.Metadata = Fixtures.metadata([])) -> Graph.Metadata {
        var metadata = metadata
        for write in writes {
            if let value = write.value {
                metadata.entries[write.subject, default: [:]][write.key] =
                    Graph.MetadataEntry(subject: write.subject, key: write.key, type: write.type, value: value)
            } else {
                metadata.entries[write.subject]?[write.key] = nil
                if metadata.entries[write.subject]?.isEmpty == true { metadata.entries[write.subject] = nil }
            }
        }
        return metadata
    }

    @Test func aStreamOverrideIsReadBackByTheAgent() throws {
        let spec = OverrideSpec(category: .playAndRecord, options: [.duckOthers, .mixWithOthers], mode: .spokenAudio)
        let writes = ControlWrites.setStream(57, spec)
        #expect(writes.last?.key == AgentProtocol.categoryKey)
        let requests = ControlRequests.parse(apply(writes))
        #expect(requests.nodeOverrides[57] == ClassificationOverride(category: .playAndRecord, options: [.duckOthers, .mixWithOthers], mode: .spokenAudio))
        #expect(requests.streamWarnings.isEmpty)
    }

    @Test func setReplacesOptionsAndModeAndUnsetRemovesAll() {
        let first = apply(ControlWrites.setStream(57, OverrideSpec(category: .playback, options: [.duckOthers], mode: .spokenAudio)))
        let replaced = apply(ControlWrites.setStream(57, OverrideSpec(category: .ambient)), to: first)
        #expect(ControlRequests.parse(replaced).nodeOverrides[57] == ClassificationOverride(category: .ambient))
        let removed = apply(ControlWrites.unsetStream(57), to: replaced)
        #expect(removed.entries[57] == nil)
        #expect(ControlRequests.parse(removed).nodeOverrides.isEmpty)
    }

    @Test func anAppOverrideIsReadBackByTheAgent() {
        let spec = OverrideSpec(category: .playback, options: [.duckOthers], mode: .spokenAudio)
        let metadata = apply(ControlWrites.setApp("org.gnome.Maps", spec, persist: true))
        let requests = ControlRequests.parse(metadata)
        #expect(requests.appOverrides["org.gnome.Maps"] == AppOverrideRequest(category: "playback", options: ["duck-others"], mode: "spoken-audio", persist: true))
        #expect(requests.overrideTable.byApp["org.gnome.Maps"] == ClassificationOverride(category: .playback, options: [.duckOthers], mode: .spokenAudio))
        #expect(ControlRequests.parse(apply(ControlWrites.unsetApp("org.gnome.Maps"), to: metadata)).appOverrides.isEmpty)
    }

    @Test func silentModeAndResume() {
        for choice in SilentChoice.allCases {
            #expect(ControlRequests.parse(apply(ControlWrites.silentMode(choice))).silentMode == choice)
        }
        #expect(ControlRequests.parse(apply(ControlWrites.resume(63))).resumeRequests == [63])
    }
}
