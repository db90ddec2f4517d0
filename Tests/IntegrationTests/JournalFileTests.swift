import Foundation
import PolicyCore
import PolicyFiles
import PolicyAgent
import PolicyPipeWire
import Testing

/// The journal on disk (`JournalFile`): replaced whole through a temporary
/// file, a missing one is no journal, a corrupt one an error the agent reports.
@Suite struct JournalFileTests {
    static var sample: AgentJournal {
        var journal = AgentJournal()
        journal.silentChoice = .on
        journal.appOverrides["mpv"] = AppOverrideRequest(category: "ambient", persist: true)
        return journal
    }

    /// A fresh directory, removed after `body`.
    static func inTemporaryDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pw-policy-journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    @Test func saveLoadRoundTrip() throws {
        try Self.inTemporaryDirectory { (directory: String) throws in
            let path = directory + "/nested/pw-policy/state.json"
            try JournalFile.save(Self.sample, to: path)
            #expect(try JournalFile.load(from: path) == Self.sample)
        }
    }

    @Test func savedFileIsValidJSONAndReplacedWhole() throws {
        try Self.inTemporaryDirectory { (directory: String) throws in
            let path = directory + "/state.json"
            try JournalFile.save(Self.sample, to: path)
            let smaller = AgentJournal()
            try JournalFile.save(smaller, to: path, sync: false)
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            #expect(object?["silentMode"] as? Bool == false)
            #expect(try JournalFile.load(from: path) == smaller)
            // Written through a temporary file and renamed: nothing else is left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["state.json"])
        }
    }

    @Test func missingFileLoadsNil() throws {
        try Self.inTemporaryDirectory { (directory: String) throws in
            #expect(try JournalFile.load(from: directory + "/absent.json") == nil)
        }
    }

    @Test func corruptFileThrows() throws {
        try Self.inTemporaryDirectory { (directory: String) throws in
            let path = directory + "/state.json"
            try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: (any Error).self) { try JournalFile.load(from: path) }
        }
    }

    @Test func saveIntoAnUnwritablePlaceThrows() throws {
        try Self.inTemporaryDirectory { (directory: String) throws in
            // A file where the directory should be.
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/blocker"))
            #expect(throws: (any Error).self) { try JournalFile.save(AgentJournal(), to: directory + "/blocker/state.json") }
        }
    }
}

/// The journal's two files (`JournalFiles`): the whole journal in the
/// runtime directory before acting; what outlives the session in the state
/// directory, written by a thread of its own and only when it changes.
@Suite struct JournalFilesTests {
    static func environment(_ directory: String) -> [String: String] {
        ["XDG_RUNTIME_DIR": directory + "/runtime", "XDG_STATE_HOME": directory + "/state"]
    }

    static var ducking: AgentJournal {
        var journal = JournalFileTests.sample
        journal.applied[10] = AppliedStream(serial: 5010, commandedGain: 0.2, held: false)
        journal.wirePlumberKeys["Output/Audio:application.name:mpv"] = .init(channelVolumes: [1, 1], mute: false)
        return journal
    }

    @Test func theWholeJournalInTheRuntimeDirectoryWhatOutlivesTheSessionOnDisk() throws {
        try JournalFileTests.inTemporaryDirectory { (directory: String) throws in
            let files = JournalFiles(environment: Self.environment(directory))
            try files.save(Self.ducking, sync: true)
            #expect(files.finish() == nil)
            let runtime = directory + "/runtime/pw-policy/journal.json"
            #expect(files.restoresFrom == runtime)
            #expect(try JournalFile.load(from: runtime) == Self.ducking)
            #expect(try JournalFile.load(from: directory + "/state/pw-policy/state.json") == Self.ducking.outlivingTheSession)
            // Sticky: kept from the runtime directory's clean-up (the XDG spec).
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: runtime)[.posixPermissions] as? Int)
            #expect(mode == 0o1600)
            #expect(files.load().journal == Self.ducking)
        }
    }

    @Test func theStateFileIsWrittenOnlyWhenWhatOutlivesTheSessionChanges() throws {
        try JournalFileTests.inTemporaryDirectory { (directory: String) throws in
            let files = JournalFiles(environment: Self.environment(directory))
            let state = directory + "/state/pw-policy/state.json"
            try files.save(Self.ducking, sync: false)
            #expect(files.finish() == nil)
            try FileManager.default.removeItem(atPath: state)
            var released = Self.ducking
            released.applied = [:]
            try files.save(released, sync: false)
            #expect(files.finish() == nil)
            #expect(!FileManager.default.fileExists(atPath: state), "only the streams changed")
            #expect(try JournalFile.load(from: directory + "/runtime/pw-policy/journal.json") == released)
            released.wirePlumberKeys = [:]
            try files.save(released, sync: false)
            #expect(files.finish() == nil)
            #expect(try JournalFile.load(from: state) == released.outlivingTheSession)
        }
    }

    /// After a reboot or a new login the runtime file is gone: the state
    /// file is read, as it is when written whole by an agent before the split.
    @Test func withoutARuntimeFileTheStateFileIsRead() throws {
        try JournalFileTests.inTemporaryDirectory { (directory: String) throws in
            try JournalFile.save(Self.ducking, to: directory + "/state/pw-policy/state.json")
            let files = JournalFiles(environment: Self.environment(directory))
            let loaded = files.load()
            #expect(loaded.journal == Self.ducking && loaded.unreadable.isEmpty)
        }
    }

    @Test func anUnreadableRuntimeFileIsReportedAndTheStateFileRead() throws {
        try JournalFileTests.inTemporaryDirectory { (directory: String) throws in
            let files = JournalFiles(environment: Self.environment(directory))
            try files.save(Self.ducking, sync: true)
            #expect(files.finish() == nil)
            try Data("{ torn".utf8).write(to: URL(fileURLWithPath: directory + "/runtime/pw-policy/journal.json"))
            let loaded = files.load()
            #expect(loaded.journal == Self.ducking.outlivingTheSession, "the user's settings are kept")
            #expect(loaded.unreadable.count == 1 && loaded.unreadable[0].hasPrefix(directory + "/runtime/pw-policy/journal.json"))
        }
    }

    @Test func withoutARuntimeDirectoryTheWholeJournalGoesToDisk() throws {
        try JournalFileTests.inTemporaryDirectory { (directory: String) throws in
            let files = JournalFiles(environment: ["XDG_STATE_HOME": directory + "/state"])
            #expect(files.runtimePath == nil && files.restoresFrom == directory + "/state/pw-policy/state.json")
            try files.save(Self.ducking, sync: false)
            #expect(try JournalFile.load(from: files.statePath) == Self.ducking, "written before save returns")
        }
    }

    @Test func aStateFileThatCannotBeWrittenIsReported() throws {
        try JournalFileTests.inTemporaryDirectory { (directory: String) throws in
            // A file where the state directory should be.
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/state"))
            let files = JournalFiles(environment: Self.environment(directory))
            // Told by this save when the thread failed before it returned, else at exit.
            var failure: FileError?
            do { try files.save(Self.ducking, sync: false) } catch { failure = error as? FileError }
            failure = failure ?? files.finish()
            #expect(failure?.code == ENOTDIR && failure?.path == files.statePath, "\(String(describing: failure))")
            #expect(try JournalFile.load(from: directory + "/runtime/pw-policy/journal.json") == Self.ducking,
                    "the runtime file is written all the same")
            #expect(files.finish() == nil, "told once")
        }
    }
}
