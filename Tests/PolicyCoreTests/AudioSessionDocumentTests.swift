import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import PolicyCore

/// docs/API.md and the introspection XML shipped in `dbus/` describe exactly
/// what the agent exports: the files are the agent's own introspection
/// (`AudioSessionIntrospection`, comments aside), and API.md's member
/// tables name the same members with the same signatures, no more, no fewer.
@Suite struct AudioSessionDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The text without XML comments and without blank lines.
    static func withoutComments(_ xml: String) throws -> String {
        xml.replacing(try Regex(#"(?s)<!--.*?-->\n?"#), with: "")
            .split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n") + "\n"
    }

    @Test(arguments: [(AudioSessionAPI.managerInterface, AudioSessionIntrospection.managerInterface),
                      (AudioSessionAPI.sessionInterface, AudioSessionIntrospection.sessionInterface)])
    func theShippedXMLIsTheAgentsIntrospection(_ name: String, _ interface: String) throws {
        let shipped = try Self.withoutComments(try Self.read("dbus/\(name).xml"))
        let exported = AudioSessionIntrospection.file(interface)
        print("dbus/\(name).xml: \(shipped.count) characters without comments; the agent's: \(exported.count)")
        #expect(shipped == exported)
    }

    /// "member kind signature" for every member of `interface` in an
    /// introspection document: `CreateSession method sass→o`.
    static func members(of interface: String, in xml: String) throws -> Set<String> {
        let document = try XMLDocument(xmlString: xml, options: [])
        guard let node = try document.nodes(forXPath: "//interface[@name='\(interface)']").first as? XMLElement else {
            Issue.record("no interface \(interface)")
            return []
        }
        var members: Set<String> = []
        for element in node.children?.compactMap({ $0 as? XMLElement }) ?? [] {
            let name = element.attribute(forName: "name")?.stringValue ?? "?"
            let arguments = (element.children ?? []).compactMap { $0 as? XMLElement }.filter { $0.name == "arg" }
            func signature(_ direction: String?) -> String {
                arguments.filter { direction == nil || ($0.attribute(forName: "direction")?.stringValue ?? "in") == direction }
                    .compactMap { $0.attribute(forName: "type")?.stringValue }.joined()
            }
            switch element.name {
            case "method": members.insert("\(name) method \(signature("in"))→\(signature("out"))")
            case "signal": members.insert("\(name) signal \(signature(nil))")
            case "property": members.insert("\(name) property \(element.attribute(forName: "type")?.stringValue ?? "?")")
            default: break
            }
        }
        return members
    }

    /// The same from API.md's table under "### `interface`".
    static func documented(_ interface: String, in markdown: String) throws -> Set<String> {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "### `\(interface)`") else {
            Issue.record("API.md has no section for \(interface)")
            return []
        }
        let row = try Regex(#"^\| `(\w+)` \| (method|signal|property) \| (.*?) \|"#)
        var members: Set<String> = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            guard let match = String(line).firstMatch(of: row) else { continue }
            let name = String(match.output[1].substring ?? ""), kind = String(match.output[2].substring ?? "")
            let signature = String(match.output[3].substring ?? "").replacing("`", with: "").replacing("—", with: "")
                .replacing(" ", with: "")
            members.insert("\(name) \(kind) \(signature)")
        }
        return members
    }

    @Test(arguments: [(AudioSessionAPI.managerInterface, AudioSessionIntrospection.managerInterface),
                      (AudioSessionAPI.sessionInterface, AudioSessionIntrospection.sessionInterface)])
    func apiMarkdownNamesExactlyTheExportedMembers(_ name: String, _ interface: String) throws {
        let exported = try Self.members(of: name, in: AudioSessionIntrospection.file(interface))
        let documented = try Self.documented(name, in: try Self.read("docs/API.md"))
        print("\(name): \(exported.count) members exported, \(documented.count) documented")
        #expect(exported.count >= 1)
        #expect(documented.subtracting(exported).isEmpty, "documented, not exported: \(documented.subtracting(exported).sorted())")
        #expect(exported.subtracting(documented).isEmpty, "exported, not documented: \(exported.subtracting(documented).sorted())")
    }

    /// What the manager and a session answer to Introspect is well-formed
    /// and carries the interface, with the standard ones.
    @Test func theObjectsIntrospectionIsWellFormed() throws {
        for xml in [AudioSessionIntrospection.manager, AudioSessionIntrospection.session, AudioSessionIntrospection.emptyNode] {
            let document = try XMLDocument(xmlString: xml, options: [])
            let names = try document.nodes(forXPath: "/node/interface/@name").compactMap(\.stringValue)
            print("introspection interfaces: \(names)")
        }
        #expect(try Self.members(of: AudioSessionAPI.sessionInterface, in: AudioSessionIntrospection.session)
                == Self.members(of: AudioSessionAPI.sessionInterface, in: AudioSessionIntrospection.file(AudioSessionIntrospection.sessionInterface)))
        #expect(AudioSessionIntrospection.manager.contains("<interface name=\"org.freedesktop.DBus.Properties\">"))
    }
}
