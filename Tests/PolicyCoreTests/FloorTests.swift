import Foundation
import Testing

/// PolicyCore's folders are floors that depend one way (docs/ARCHITECTURE.md,
/// "Where things are"): a folder uses types of the folders below it, never
/// of one above. Read from the sources: every top-level type a folder
/// declares, and the folders whose types each file names; a circle among
/// them fails, named with the files that make it.
struct FloorTests {
    static let core = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/PolicyCore")

    /// The swift files under each top-level folder of PolicyCore.
    static func folders() throws -> [String: [URL]] {
        var result: [String: [URL]] = [:]
        let enumerator = FileManager.default.enumerator(at: core, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let folder = url.path.dropFirst(core.path.count + 1).split(separator: "/").first.map(String.init) ?? ""
            result[folder, default: []].append(url)
        }
        return result
    }

    /// Which folder declares each top-level type.
    static func homes(_ folders: [String: [URL]]) throws -> [String: String] {
        let declaration = try Regex(#"(?m)^(?:public |internal |private |fileprivate )?(?:final )?(?:indirect )?(?:struct|enum|class|protocol|typealias|actor) (\w+)"#)
        var homes: [String: String] = [:]
        for (folder, files) in folders {
            for file in files {
                for match in try String(contentsOf: file, encoding: .utf8).matches(of: declaration) {
                    if let name = match.output[1].substring { homes[String(name)] = folder }
                }
            }
        }
        return homes
    }

    /// folder → folder it uses → "File.swift: Type" that shows it.
    static func uses() throws -> [String: [String: String]] {
        let folders = try folders()
        let homes = try homes(folders)
        let word = try Regex(#"\b[A-Z]\w*\b"#)
        var uses: [String: [String: String]] = [:]
        for (folder, files) in folders {
            for file in files {
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .map { $0.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                    .joined(separator: "\n")
                for match in code.matches(of: word) {
                    let name = String(code[match.range])
                    guard let home = homes[name], home != folder else { continue }
                    uses[folder, default: [:]][home] = uses[folder]?[home] ?? "\(file.lastPathComponent): \(name)"
                }
            }
        }
        return uses
    }

    @Test func policyCoresFoldersDependOneWay() throws {
        let uses = try Self.uses()
        let folders = try Self.folders()
        try #require(folders.count >= 10 && uses.count >= 5, "the sources were not found under \(Self.core.path)")
        // Peel off folders that use none of those left; what cannot be
        // peeled is a circle.
        var left = Set(uses.keys).union(uses.values.flatMap(\.keys))
        var floors: [[String]] = []
        while !left.isEmpty {
            let floor = left.filter { folder in (uses[folder] ?? [:]).keys.allSatisfy { !left.contains($0) } }.sorted()
            guard !floor.isEmpty else { break }
            floors.append(floor)
            left.subtract(floor)
        }
        print("PolicyCore's floors, lowest first: " + floors.map { $0.joined(separator: ", ") }.joined(separator: " | "))
        let circle = left.sorted().flatMap { folder in
            (uses[folder] ?? [:]).filter { left.contains($0.key) }.map { "\(folder) → \($0.key) (\($0.value))" }
        }
        #expect(left.isEmpty, "folders in a circle: \(circle.sorted().joined(separator: "; "))")
    }
}
