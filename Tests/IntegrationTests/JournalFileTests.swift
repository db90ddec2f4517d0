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
