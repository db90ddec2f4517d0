import Testing
@testable import PolicyCore

@Suite struct SemanticVersionTests {
    struct ParseCase: CustomTestStringConvertible, Sendable {
        var text: String
        var version: SemanticVersion?
        var testDescription: String { "\"\(text)\" → \(version.map(\.description) ?? "unknown")" }
    }

    static let parseCases: [ParseCase] = [
        // The two stacks (design: Debian 12, and bookworm-backports / current distributions).
        ParseCase(text: "0.3.65", version: SemanticVersion(0, 3, 65)),
        ParseCase(text: "1.4.2", version: SemanticVersion(1, 4, 2)),
        ParseCase(text: "0.5.8", version: SemanticVersion(0, 5, 8)),
        ParseCase(text: "0.4.13", version: SemanticVersion(0, 4, 13)),
        // Suffixes of distributions and git builds.
        ParseCase(text: "1.4.2-1~bpo12+1", version: SemanticVersion(1, 4, 2)),
        ParseCase(text: "0.3.65-3+deb12u1", version: SemanticVersion(0, 3, 65)),
        ParseCase(text: "1.1.82-dirty", version: SemanticVersion(1, 1, 82)),
        ParseCase(text: "0.5.8rc1", version: SemanticVersion(0, 5, 8)),
        ParseCase(text: "1.2.3.4", version: SemanticVersion(1, 2, 3)),
        ParseCase(text: "  1.0.0", version: SemanticVersion(1, 0, 0)),
        ParseCase(text: "1.4", version: SemanticVersion(1, 4, 0)),
        ParseCase(text: "1.4-git", version: SemanticVersion(1, 4, 0)),
        // Garbage: unknown, never a guess.
        ParseCase(text: "", version: nil),
        ParseCase(text: "   ", version: nil),
        ParseCase(text: "1", version: nil),
        ParseCase(text: "1.", version: nil),
        ParseCase(text: "1.2.", version: nil),
        ParseCase(text: "1.2.x", version: nil),
        ParseCase(text: "1..2", version: nil),
        ParseCase(text: ".1.2", version: nil),
        ParseCase(text: "v1.2.3", version: nil),
        ParseCase(text: "-1.2.3", version: nil),
        ParseCase(text: "x.y.z", version: nil),
        ParseCase(text: "99999999999999999999.1.1", version: nil),
        ParseCase(text: "1.٣.2", version: nil),
        ParseCase(text: "unknown", version: nil),
    ]

    @Test(arguments: parseCases)
    func parse(_ example: ParseCase) {
        #expect(SemanticVersion(parsing: example.text) == example.version)
    }

    @Test func ordersByMajorMinorPatch() {
        let ordered = ["0.3.9", "0.3.65", "0.3.68", "0.3.100", "0.4.0", "1.0.0", "1.4.2", "10.0.0"]
            .compactMap(SemanticVersion.init(parsing:))
        #expect(ordered.count == 8)
        #expect(ordered == ordered.sorted())
        #expect(Set(ordered).count == ordered.count)
    }

    @Test func anyTextParsesWithoutCrashing() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789.-+~ab \u{0663}")
        for _ in 0..<2000 {
            let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            if let version = SemanticVersion(parsing: text) {
                #expect(version.major >= 0 && version.minor >= 0 && version.patch >= 0)
            }
        }
    }
}

@Suite struct StackCapabilitiesTests {
    struct RampCase: CustomTestStringConvertible, Sendable {
        var pipewire: String?
        var native: Bool
        var testDescription: String { "PipeWire \(pipewire ?? "unknown") → \(native ? "native" : "stepped")" }
    }

    static let rampCases: [RampCase] = [
        RampCase(pipewire: "0.3.65", native: false),
        RampCase(pipewire: "0.3.67", native: false),
        RampCase(pipewire: "0.3.68", native: true),
        RampCase(pipewire: "0.3.85", native: true),
        RampCase(pipewire: "1.4.2", native: true),
        RampCase(pipewire: "1.4.2-1~bpo12+1", native: true),
        RampCase(pipewire: "0.2.99", native: false),
        // Unknown: what every version has.
        RampCase(pipewire: nil, native: false),
        RampCase(pipewire: "", native: false),
        RampCase(pipewire: "garbage", native: false),
    ]

    @Test(arguments: rampCases)
    func nativeVolumeRampsFrom0368(_ example: RampCase) {
        let stack = PipeWireStack(pipewire: example.pipewire, wirePlumber: nil)
        #expect(stack.capabilities.nativeVolumeRamps == example.native)
        #expect(StackStatus(stack).capabilities == stack.capabilities)
    }
}

@Suite struct PipeWireStackTests {
    /// WirePlumber 0.4.13's clients on this Debian 12 machine (pw-dump), trimmed.
    static let wirePlumber04: [String: String] = [
        "application.name": "WirePlumber", "application.process.binary": "wireplumber",
        "application.process.id": "1931", "pipewire.sec.pid": "1931", "core.version": "0.3.65",
        "wireplumber.daemon": "true", "wireplumber.export-core": "true",
    ]
    static let wirePlumber04Export = wirePlumber04.merging(["application.name": "WirePlumber [export]"]) { $1 }
    /// What WirePlumber 0.5.8 sets (its src/main.c and the export-core component).
    static let wirePlumber05: [String: String] = [
        "application.name": "WirePlumber", "application.version": "0.5.8", "application.process.id": "2001",
        "pipewire.sec.pid": "2001", "core.version": "1.4.2", "wireplumber.daemon": "true", "wireplumber.profile": "main",
    ]
    static let wirePlumber05Export = wirePlumber05.merging([
        "application.name": "WirePlumber [export]", "wireplumber.export-core": "true",
    ]) { $1 }

    /// WirePlumber 0.5.15's client context (lib/wp/private/client-context.c):
    /// a third client, which may get a lower id than the main one.
    static let wirePlumber0515 = PipeWireStackTests.wirePlumber05.merging(["application.version": "0.5.15", "core.version": "1.6.8"]) { $1 }
    static let wirePlumber0515Client = PipeWireStackTests.wirePlumber0515.merging([
        "application.name": "WirePlumber [client]", "wireplumber.client-context": "true",
    ]) { $1 }

    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var core: String? = "0.3.65"
        var clients: [UInt32: [String: String]]
        var linkedLibrary: [Int32: String] = [:]
        var expected: PipeWireStack
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "0.4.13: no version of its own, the loaded library's",
             clients: [26: wirePlumber04, 27: wirePlumber04Export, 40: ["application.name": "pw-dump"]],
             linkedLibrary: [1931: "0.4.13"],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26, pid: 1931, version: "0.4.13",
                                                                            versionSource: .linkedLibrary))),
        Case(label: "0.4.13 whose process cannot be read: running, version unknown",
             clients: [27: wirePlumber04Export, 26: wirePlumber04],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26, pid: 1931))),
        Case(label: "0.5.8: application.version, the library not asked",
             core: "1.4.2", clients: [33: wirePlumber05Export, 32: wirePlumber05], linkedLibrary: [2001: "9.9.9"],
             expected: PipeWireStack(pipewire: "1.4.2", wirePlumber: .init(client: 32, pid: 2001, version: "0.5.8",
                                                                           versionSource: .applicationVersion))),
        Case(label: "0.5.15: its [client] context, though older, is not the main client",
             core: "1.6.8", clients: [31: wirePlumber0515Client, 33: wirePlumber05Export, 34: wirePlumber0515],
             expected: PipeWireStack(pipewire: "1.6.8", wirePlumber: .init(client: 34, pid: 2001, version: "0.5.15",
                                                                           versionSource: .applicationVersion))),
        Case(label: "only the [client] context left, named so but unmarked: not running",
             core: "1.6.8", clients: [31: wirePlumber0515.merging(["application.name": "WirePlumber [client]"]) { $1 }],
             expected: PipeWireStack(pipewire: "1.6.8", wirePlumber: nil)),
        Case(label: "not running: only other clients, wpctl included",
             clients: [40: ["application.name": "wpctl", "core.version": "0.3.65"], 41: ["application.name": "pw-dump"]],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: nil)),
        Case(label: "only the export client left (the main one gone first)",
             clients: [27: wirePlumber04Export],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: nil)),
        Case(label: "the client's registry props before its info: not recognised yet",
             clients: [26: ["application.name": "WirePlumber", "pipewire.sec.pid": "1931"]],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: nil)),
        Case(label: "0.5 with a second instance of another profile: main counts",
             core: "1.4.2",
             clients: [30: wirePlumber05.merging(["wireplumber.profile": "video-only", "application.name": "WirePlumber (video-only)",
                                                   "application.version": "0.5.7", "pipewire.sec.pid": "1999"]) { $1 },
                       32: wirePlumber05],
             expected: PipeWireStack(pipewire: "1.4.2", wirePlumber: .init(client: 32, pid: 2001, version: "0.5.8",
                                                                           versionSource: .applicationVersion))),
        Case(label: "two main instances: the oldest client",
             core: "1.4.2", clients: [50: wirePlumber05.merging(["application.version": "0.5.9"]) { $1 }, 32: wirePlumber05],
             expected: PipeWireStack(pipewire: "1.4.2", wirePlumber: .init(client: 32, pid: 2001, version: "0.5.8",
                                                                           versionSource: .applicationVersion))),
        Case(label: "no pid at all: version unknown, no lookup",
             clients: [26: wirePlumber04.filter { !$0.key.hasSuffix("pid") && $0.key != "application.process.id" }],
             linkedLibrary: [1931: "0.4.13"],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26))),
        Case(label: "pipewire.sec.pid (the daemon's view) before application.process.id",
             clients: [26: wirePlumber04.merging(["application.process.id": "5"]) { $1 }],
             linkedLibrary: [1931: "0.4.13", 5: "0.4.1"],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26, pid: 1931, version: "0.4.13",
                                                                            versionSource: .linkedLibrary))),
        Case(label: "an empty application.version counts as none",
             clients: [26: wirePlumber04.merging(["application.version": ""]) { $1 }], linkedLibrary: [1931: "0.4.13"],
             expected: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26, pid: 1931, version: "0.4.13",
                                                                            versionSource: .linkedLibrary))),
        Case(label: "core info not arrived yet", core: nil, clients: [:],
             expected: PipeWireStack(pipewire: nil, wirePlumber: nil)),
    ]

    @Test(arguments: cases)
    func observed(_ example: Case) {
        var graph = Graph()
        graph.core = example.core.map { Graph.Core(version: $0) }
        for (id, props) in example.clients { graph.clients[id] = Graph.Client(id: id, props: props) }
        let stack = PipeWireStack.observed(in: graph) { example.linkedLibrary[$0] }
        #expect(stack == example.expected)
    }

    struct SummaryCase: CustomTestStringConvertible, Sendable {
        var stack: PipeWireStack
        var summary: String
        var testDescription: String { summary }
    }

    static let summaryCases: [SummaryCase] = [
        SummaryCase(stack: PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26, version: "0.4.13")),
                    summary: "PipeWire 0.3.65 · WirePlumber 0.4.13 · fades: stepped (no native volume ramps before PipeWire 0.3.68)"),
        SummaryCase(stack: PipeWireStack(pipewire: "1.4.2", wirePlumber: .init(client: 32, version: "0.5.8")),
                    summary: "PipeWire 1.4.2 · WirePlumber 0.5.8 · fades: native ramps (steps for clients older than PipeWire 0.3.68)"),
        SummaryCase(stack: PipeWireStack(pipewire: "0.3.65", wirePlumber: nil),
                    summary: "PipeWire 0.3.65 · WirePlumber not running · fades: stepped (no native volume ramps before PipeWire 0.3.68)"),
        SummaryCase(stack: PipeWireStack(pipewire: nil, wirePlumber: .init(client: 26)),
                    summary: "PipeWire (version unknown) · WirePlumber (version unknown) · fades: stepped (no native volume ramps before PipeWire 0.3.68)"),
    ]

    @Test(arguments: summaryCases)
    func summary(_ example: SummaryCase) {
        #expect(StackStatus(example.stack).summary == example.summary)
    }

    @Test func statusKeepsWhatWasFoundAndWhere() {
        let stack = PipeWireStack(pipewire: "0.3.65", wirePlumber: .init(client: 26, pid: 7, version: "0.4.13",
                                                                         versionSource: .linkedLibrary))
        #expect(StackStatus(stack) == StackStatus(
            pipewire: .init(version: "0.3.65"),
            wireplumber: .init(client: 26, pid: 7, version: "0.4.13", versionSource: "linked-library"),
            capabilities: StackCapabilities(nativeVolumeRamps: false)))
        #expect(StatusPublisher.json(StackStatus(stack)) ==
            #"{"capabilities":{"nativeVolumeRamps":false},"pipewire":{"version":"0.3.65"},"# +
            #""wireplumber":{"client":26,"pid":7,"version":"0.4.13","versionSource":"linked-library"}}"#)
    }
}

@Suite struct LinkedWirePlumberLibraryTests {
    /// WirePlumber 0.5.15's client context (lib/wp/private/client-context.c):
    /// a third client, which may get a lower id than the main one.
    static let wirePlumber0515 = PipeWireStackTests.wirePlumber05.merging(["application.version": "0.5.15", "core.version": "1.6.8"]) { $1 }
    static let wirePlumber0515Client = PipeWireStackTests.wirePlumber0515.merging([
        "application.name": "WirePlumber [client]", "wireplumber.client-context": "true",
    ]) { $1 }

    struct Case: CustomTestStringConvertible, Sendable {
        var label: String
        var maps: String
        var version: SemanticVersion?
        var testDescription: String { label }
    }

    static func line(_ path: String, suffix: String = "") -> String {
        "7f2c1a400000-7f2c1a42a000 r--p 00000000 fe:01 1056823                    \(path)\(suffix)"
    }

    static let cases: [Case] = [
        Case(label: "0.4.13 as on Debian 12",
             maps: [line("/usr/bin/wireplumber"), line("/usr/lib/x86_64-linux-gnu/libwireplumber-0.4.so.0.4.13"),
                    line("/usr/lib/x86_64-linux-gnu/libpipewire-0.3.so.0.365.0")].joined(separator: "\n"),
             version: SemanticVersion(0, 4, 13)),
        Case(label: "0.5.8's encoded library version",
             maps: line("/usr/lib/x86_64-linux-gnu/libwireplumber-0.5.so.0.508.0"), version: SemanticVersion(0, 5, 8)),
        Case(label: "0.5.12",
             maps: line("/usr/lib/libwireplumber-0.5.so.0.512.0"), version: SemanticVersion(0, 5, 12)),
        Case(label: "library replaced by an upgrade while running: the loaded one",
             maps: line("/usr/lib/x86_64-linux-gnu/libwireplumber-0.4.so.0.4.13", suffix: " (deleted)"),
             version: SemanticVersion(0, 4, 13)),
        Case(label: "modules only, not the library",
             maps: line("/usr/lib/x86_64-linux-gnu/wireplumber-0.4/libwireplumber-module-lua-scripting.so"), version: nil),
        Case(label: "no WirePlumber in this process", maps: line("/usr/bin/bash") + "\n" + line("[heap]"), version: nil),
        Case(label: "empty", maps: "", version: nil),
        Case(label: "library version not matching its API",
             maps: line("/usr/lib/libwireplumber-0.4.so.0.5.1"), version: nil),
        Case(label: "unversioned development symlink",
             maps: line("/usr/lib/libwireplumber-0.4.so"), version: nil),
        Case(label: "garbage", maps: "libwireplumber-\n/ / /libwireplumber-.so.\n\u{0}", version: nil),
    ]

    @Test(arguments: cases)
    func versionInMaps(_ example: Case) {
        #expect(LinkedWirePlumberLibrary.version(inMaps: example.maps) == example.version)
    }
}
