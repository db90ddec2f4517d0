import Testing
@testable import PolicyCore
import PolicyTestSupport

@Suite struct ControlRequestsTests {
    /// The `pw-policy` metadata holding these (subject, key, value) entries.
    static func metadata(_ entries: [(UInt32, String, String)]) -> Graph.Metadata? {
        var graph = Graph()
        for (subject, key, value) in entries { graph.setPolicyEntry(subject: subject, key: key, value: value) }
        return graph.metadata(named: AgentProtocol.metadataName)
    }

    static func parse(_ entries: [(UInt32, String, String)],
                      previous: [UInt32: ClassificationOverride] = [:]) -> ControlRequests {
        ControlRequests.parse(metadata(entries), previousNodeOverrides: previous)
    }

    @Test func noMetadataNoRequests() {
        let requests = ControlRequests.parse(nil)
        #expect(requests == ControlRequests())
        #expect(requests.silentMode == nil && requests.overrideTable.isEmpty)
    }

    // MARK: silent mode

    @Test(arguments: [
        ("true", SilentChoice.on), ("false", .off), ("on", .on), ("off", .off), ("1", .on), ("0", .off),
        (" TRUE ", .on), ("Off", .off), ("\"true\"", .on), ("\"off\"", .off), ("follow", .follow), ("\"Follow\"", .follow),
    ])
    func silentModeValues(_ raw: String, _ expected: SilentChoice) {
        let requests = Self.parse([(0, AgentProtocol.silentModeKey, raw)])
        #expect(requests.silentMode == expected)
        #expect(requests.warnings.isEmpty)
    }

    @Test(arguments: ["yes please", "", "2", "{}", "truee"])
    func silentModeGarbageWarns(_ raw: String) {
        let requests = Self.parse([(0, AgentProtocol.silentModeKey, raw)])
        #expect(requests.silentMode == nil)
        #expect(requests.warnings.count == 1)
        #expect(requests.warnings.first?.contains(AgentProtocol.silentModeKey) == true)
    }

    @Test func silentModeAbsentIsNil() {
        #expect(Self.parse([(0, "something.else", "true")]).silentMode == nil)
    }

    // MARK: stream overrides

    struct OverrideCase: CustomTestStringConvertible, Sendable {
        var label: String
        var category: String?
        var options: String?
        var mode: String?
        var expected: ClassificationOverride?
        var warnings: Int = 0
        var testDescription: String { label }
    }

    static let overrideCases: [OverrideCase] = [
        OverrideCase(label: "plain category", category: "ambient",
                     expected: ClassificationOverride(category: .ambient)),
        OverrideCase(label: "JSON-quoted category", category: "\"solo-ambient\"",
                     expected: ClassificationOverride(category: .soloAmbient)),
        OverrideCase(label: "loose spelling", category: "Play_And_Record",
                     expected: ClassificationOverride(category: .playAndRecord)),
        OverrideCase(label: "category with JSON options", category: "playback", options: "[\"duck-others\"]",
                     expected: ClassificationOverride(category: .playback, options: [.duckOthers])),
        OverrideCase(label: "category with SPA-JSON options and a mode", category: "playback",
                     options: "[ duck-others mix-with-others ]", mode: "spoken-audio",
                     expected: ClassificationOverride(category: .playback, options: [.duckOthers, .mixWithOthers],
                                                      mode: .spokenAudio)),
        OverrideCase(label: "JSON-quoted mode", category: "playback", mode: "\"spoken-audio\"",
                     expected: ClassificationOverride(category: .playback, mode: .spokenAudio)),
        OverrideCase(label: "unknown option kept out, warned", category: "playback", options: "[\"duck-others\",\"bogus\"]",
                     expected: ClassificationOverride(category: .playback, options: [.duckOthers]), warnings: 1),
        OverrideCase(label: "unknown mode warned, category kept", category: "record", mode: "loud",
                     expected: ClassificationOverride(category: .record), warnings: 1),
        OverrideCase(label: "options without category", options: "[\"duck-others\"]", expected: nil, warnings: 1),
        OverrideCase(label: "mode without category", mode: "spoken-audio", expected: nil, warnings: 1),
        OverrideCase(label: "unknown category, nothing before", category: "loudest", expected: nil, warnings: 1),
    ]

    @Test(arguments: overrideCases)
    func nodeOverride(_ example: OverrideCase) {
        var entries: [(UInt32, String, String)] = []
        if let category = example.category { entries.append((42, AgentProtocol.categoryKey, category)) }
        if let options = example.options { entries.append((42, AgentProtocol.optionsKey, options)) }
        if let mode = example.mode { entries.append((42, AgentProtocol.modeKey, mode)) }
        let requests = Self.parse(entries)
        #expect(requests.nodeOverrides[42] == example.expected)
        #expect(requests.nodeOverrides.count == (example.expected == nil ? 0 : 1))
        #expect(requests.streamWarnings[42, default: []].count == example.warnings)
        #expect(requests.warnings.isEmpty, "stream problems are not global ones")
    }

    @Test func unknownCategoryKeepsThePreviousOverride() {
        let previous = ClassificationOverride(category: .ambient, options: [.mixWithOthers])
        let requests = Self.parse([(42, AgentProtocol.categoryKey, "not-a-category"),
                                   (43, AgentProtocol.categoryKey, "also-not")],
                                  previous: [42: previous, 7: ClassificationOverride(category: .record)])
        #expect(requests.nodeOverrides == [42: previous])
        #expect(requests.streamWarnings[42]?.count == 1)
        #expect(requests.streamWarnings[42]?.first?.contains("not-a-category") == true)
        #expect(requests.streamWarnings[43]?.count == 1)
    }

    @Test func removedCategoryDropsThePreviousOverride() {
        let requests = Self.parse([], previous: [42: ClassificationOverride(category: .ambient)])
        #expect(requests.nodeOverrides.isEmpty)
    }

    @Test func resumeRequestsAreCollected() {
        let requests = Self.parse([(42, AgentProtocol.resumeKey, "1"), (43, AgentProtocol.resumeKey, "anything"),
                                   (44, AgentProtocol.categoryKey, "playback")])
        #expect(requests.resumeRequests == [42, 43])
        #expect(requests.nodeOverrides.keys.sorted() == [44])
    }

    // MARK: app overrides

    @Test func appOverrideFromJSON() {
        let key = AgentProtocol.appOverrideKey("firefox")
        let requests = Self.parse([(0, key, #"{"category":"ambient","options":["duck-others"],"mode":"spoken-audio","persist":true}"#)])
        #expect(requests.appOverrides["firefox"] == AppOverrideRequest(category: "ambient", options: ["duck-others"],
                                                                       mode: "spoken-audio", persist: true))
        #expect(requests.warnings.isEmpty)
    }

    @Test func appOverrideNeedsOnlyACategory() {
        let requests = Self.parse([(0, AgentProtocol.appOverrideKey("mpv"), #"{"category":"ambient"}"#)])
        #expect(requests.appOverrides["mpv"] == AppOverrideRequest(category: "ambient", options: [], mode: nil, persist: false))
        #expect(requests.warnings.isEmpty)
    }

    @Test(arguments: [
        "not json", "{}", #"{"options":["duck-others"]}"#, #"{"category":"nope","options":[]}"#, "[]",
        #"{"category":"ambient","options":"duck-others","persist":false}"#,
    ])
    func badAppOverrideWarns(_ raw: String) {
        let requests = Self.parse([(0, AgentProtocol.appOverrideKey("firefox"), raw)])
        #expect(requests.appOverrides.isEmpty)
        #expect(requests.warnings.count == 1)
        #expect(requests.warnings.first?.contains("firefox") == true)
    }

    @Test func appOverrideWithEmptyAppKeyWarns() {
        let requests = Self.parse([(0, AgentProtocol.appOverridePrefix, #"{"category":"ambient","options":[],"persist":false}"#)])
        #expect(requests.appOverrides.isEmpty)
        #expect(requests.warnings.count == 1)
    }

    @Test func appOverrideWithUnknownOptionOrModeWarnsButApplies() {
        let requests = Self.parse([(0, AgentProtocol.appOverrideKey("mpv"),
                                    #"{"category":"playback","options":["duck-others","bogus"],"mode":"weird","persist":false}"#)])
        #expect(requests.appOverrides["mpv"]?.category == "playback")
        #expect(requests.warnings.count == 2)
        #expect(requests.overrideTable.byApp["mpv"] == ClassificationOverride(category: .playback, options: [.duckOthers]))
    }

    // MARK: hostile values

    @Test func longAndBinaryValuesAreAbbreviated() {
        let long = String(repeating: "x", count: 100_000)
        let binary = "evil\u{0}\u{1b}[31m\u{7f}\u{202e}\n"
        let requests = Self.parse([
            (0, AgentProtocol.silentModeKey, long),
            (0, AgentProtocol.appOverrideKey(long), "not json"),
            (42, AgentProtocol.categoryKey, binary),
            (43, AgentProtocol.categoryKey, long),
        ])
        let all = requests.warnings + requests.streamWarnings.values.flatMap { $0 }
        #expect(all.count == 4)
        for warning in all {
            #expect(warning.count < 400, "warning of \(warning.count) characters")
            #expect(!warning.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f || $0 == "\u{202e}" })
        }
        #expect(requests.streamWarnings[42]?.first?.contains("evil?") == true)
    }

    @Test(arguments: [
        ("short", "short"),
        ("a\u{0}b", "a?b"),
        ("tab\there", "tab?here"),
        ("🙂 ok", "🙂 ok"),
    ])
    func abbreviate(_ raw: String, _ expected: String) {
        #expect(ControlRequests.abbreviate(raw) == expected)
    }

    @Test func abbreviateTruncatesAtTheLimit() {
        let abbreviated = ControlRequests.abbreviate(String(repeating: "y", count: 65), limit: 64)
        #expect(abbreviated == String(repeating: "y", count: 64) + "…")
        #expect(ControlRequests.abbreviate(String(repeating: "y", count: 64), limit: 64).count == 64)
    }

    // MARK: the override table

    @Test func overrideTableMapsEverything() {
        let requests = Self.parse([
            (42, AgentProtocol.categoryKey, "ambient"),
            (42, AgentProtocol.optionsKey, "[\"mix-with-others\"]"),
            (43, AgentProtocol.categoryKey, "record"),
            (0, AgentProtocol.appOverrideKey("spotify"), #"{"category":"solo-ambient","options":["duck-others"],"persist":true}"#),
            (0, AgentProtocol.appOverrideKey("mpv"), #"{"category":"playback","options":[],"mode":"spoken-audio","persist":false}"#),
        ])
        let table = requests.overrideTable
        #expect(table.byNode == [42: ClassificationOverride(category: .ambient, options: [.mixWithOthers]),
                                 43: ClassificationOverride(category: .record)])
        #expect(table.byApp == ["spotify": ClassificationOverride(category: .soloAmbient, options: [.duckOthers]),
                                "mpv": ClassificationOverride(category: .playback, mode: .spokenAudio)])
        // A stream override beats its app's.
        #expect(table.override(nodeID: 42, appKey: "spotify")?.category == .ambient)
        #expect(table.override(nodeID: 99, appKey: "spotify")?.category == .soloAmbient)
    }

    @Test func parseIsDeterministic() {
        let entries: [(UInt32, String, String)] = (1...30).map { ($0, AgentProtocol.categoryKey, "bad-\($0)") }
            + [(0, AgentProtocol.appOverrideKey("b"), "x"), (0, AgentProtocol.appOverrideKey("a"), "y")]
        let first = Self.parse(entries)
        let second = Self.parse(entries.reversed())
        #expect(first == second)
        #expect(first.warnings.first?.contains("app-override.a") == true)
    }
}
