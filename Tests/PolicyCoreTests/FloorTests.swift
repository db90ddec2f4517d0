import Foundation
import Testing

/// PolicyCore's folders are floors in a documented order (docs/ARCHITECTURE.md,
/// "Where things are"): a folder uses types of the floors below it only,
/// never of its own floor's other folders or of one above. Read from the
/// sources: every top-level type each folder declares (a subfolder is a
/// folder of its own), and the folders whose types each file names.
struct FloorTests {
    /// The floors, lowest first. A new folder fails the test until it has a
    /// floor. Below them all are modules of their own — the graph model
    /// (PolicyModel), the stack (PolicyStack), the wire protocol
    /// (PolicyProtocol) — which the compiler keeps from naming anything
    /// here; "." is the files at PolicyCore's top (its imports of them).
    static let order: [[String]] = [
        [".", "Text", "JSON", "Desktop"],
        ["Config", "PipeWireDump"],
        ["Classification/AppKnowledge"],
        ["Classification"],
        ["Engine"],
        ["Players"],
        ["AudioSessions"],
        // The control loop's rooms, then the loop.
        ["AgentCore/MediaKeys", "AgentCore/SilentSwitch"],
        ["AgentCore"],
        ["AgentCore/Journal"],
        ["AgentCore/Effects"],
        ["AgentCore/Publishing", "AgentCore/WirePlumberMemory"],
        ["AgentCore/Loop"],
        // The control loop run on a graph in memory (a pw-dump's, a test's).
        ["Simulation"],
    ]

    static let core = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/PolicyCore")

    /// One source file: its name and text.
    struct Source {
        var name: String
        var text: String
    }

    /// The swift files of each folder of PolicyCore, by path below it.
    static func folders() throws -> [String: [Source]] {
        var result: [String: [Source]] = [:]
        let enumerator = FileManager.default.enumerator(at: core, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let folder = url.deletingLastPathComponent().path.dropFirst(core.path.count + 1)
            result[folder.isEmpty ? "." : String(folder), default: []].append(Source(name: url.lastPathComponent,
                                                              text: try String(contentsOf: url, encoding: .utf8)))
        }
        return result
    }

    /// A declaration at the top level, whatever its attributes and modifiers:
    /// `@MainActor public final class`, `package struct`, `indirect enum`.
    static var declaration: Regex<(Substring, Substring)> { #/(?m)^(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated)\s+)*(?:struct|enum|class|protocol|typealias|actor)\s+(\w+)/# }

    /// folder → folder it uses → "File.swift: Type" that shows it.
    static func uses(_ folders: [String: [Source]]) -> [String: [String: String]] {
        var homes: [String: String] = [:]
        for (folder, files) in folders {
            for file in files {
                for match in file.text.matches(of: declaration) { homes[String(match.output.1)] = folder }
            }
        }
        var uses: [String: [String: String]] = [:]
        for (folder, files) in folders {
            for file in files.sorted(by: { $0.name < $1.name }) {
                let code = file.text.split(separator: "\n")
                    .map { $0.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                    .joined(separator: "\n")
                // Simple word boundaries: Unicode's would read `InterpreterBinary.runsManyApps`
                // as one word, and miss every use through a member.
                for match in code.matches(of: #/\b[A-Z]\w*\b/#.wordBoundaryKind(.simple)) {
                    let name = String(code[match.range])
                    guard let home = homes[name], home != folder else { continue }
                    uses[folder, default: [:]][home] = uses[folder]?[home] ?? "\(file.name): \(name)"
                }
            }
        }
        return uses
    }

    /// What breaks the order: a folder without a floor, or a use of a folder
    /// that is not below.
    static func violations(_ folders: [String: [Source]], order: [[String]]) -> [String] {
        var floor: [String: Int] = [:]
        for (level, names) in order.enumerated() { for name in names { floor[name] = level } }
        var found = folders.keys.filter { floor[$0] == nil }.sorted().map { "\($0) has no floor in FloorTests.order" }
        for (folder, used) in uses(folders).sorted(by: { $0.key < $1.key }) {
            guard let own = floor[folder] else { continue }
            for (home, evidence) in used.sorted(by: { $0.key < $1.key }) where (floor[home] ?? .max) >= own {
                found.append("\(folder) → \(home) (\(evidence)): \(home) is not below \(folder)")
            }
        }
        return found
    }

    @Test func policyCoresFoldersUseOnlyTheFloorsBelow() throws {
        let folders = try Self.folders()
        try #require(folders.count >= 12, "the sources were not found under \(Self.core.path)")
        let violations = Self.violations(folders, order: Self.order)
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
        #expect(Set(Self.order.joined()).subtracting(folders.keys).isEmpty, "FloorTests.order names a folder that is gone")
    }

    /// The check sees what it is for: an upward use planted in the real
    /// sources, from a subfolder, through a type declared with attributes.
    @Test func aPlantedUpwardUseFails() throws {
        var folders = try Self.folders()
        folders["JSON", default: []].append(Source(name: "Planted.swift", text: "let planted: AgentCore? = nil\n"))
        folders["Classification/AppKnowledge", default: []].append(Source(name: "Upward.swift", text: "typealias Up = Classifier\n"))
        folders["AgentCore", default: []].append(Source(name: "Hidden.swift", text: "@MainActor package final class HiddenRoom {}\n"))
        folders["Text", default: []].append(Source(name: "Reach.swift", text: "let reach = HiddenRoom.self\n"))
        folders["Unplaced", default: []].append(Source(name: "New.swift", text: "struct New {}\n"))
        let violations = Self.violations(folders, order: Self.order)
        #expect(violations.contains { $0.hasPrefix("JSON → AgentCore/Loop (Planted.swift: AgentCore)") }, "\(violations)")
        #expect(violations.contains { $0.hasPrefix("Classification/AppKnowledge → Classification (Upward.swift: Classifier)") },
                "\(violations)")
        #expect(violations.contains { $0.hasPrefix("Text → AgentCore (Reach.swift: HiddenRoom)") }, "\(violations)")
        #expect(violations.contains("Unplaced has no floor in FloorTests.order"), "\(violations)")
        #expect(violations.count == 4, "\(violations)")
    }

    /// Two folders on one floor do not use each other either.
    @Test func aSiblingUseFails() throws {
        var folders = try Self.folders()
        folders["Text", default: []].append(Source(name: "Sideways.swift", text: "let sideways = DoNotDisturb.self\n"))
        #expect(Self.violations(folders, order: Self.order).contains { $0.hasPrefix("Text → Desktop") })
    }
}
