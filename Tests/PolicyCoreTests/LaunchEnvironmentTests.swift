import Testing
@testable import PolicyCore

/// What `pw-policy launch` adds to its command's environment (docs/API.md,
/// "pw-policy launch"): after what was there, in both libraries' syntax.
@Suite struct LaunchEnvironmentTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var declaration: AudioSessionTable.Declaration
        var token: String?
        var existing: [String: String]
        var pipewire: String
        var pulse: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a game, no session", declaration: .init(category: .ambient), token: nil, existing: [:],
             pipewire: "{ policy.category=ambient policy.options=[ ] policy.mode=default }",
             pulse: "policy.category=ambient policy.mode=default"),
        Case(name: "a reader with its session", declaration: .init(category: .playback, options: [.duckOthers, .mixWithOthers],
                                                                  mode: .spokenAudio),
             token: "0123456789abcdef0123456789abcdef", existing: [:],
             pipewire: "{ policy.category=playback policy.options=[ mix-with-others duck-others ] policy.mode=spoken-audio policy.session=0123456789abcdef0123456789abcdef }",
             pulse: "policy.category=playback policy.options=mix-with-others,duck-others policy.mode=spoken-audio policy.session=0123456789abcdef0123456789abcdef"),
        Case(name: "after an object already there", declaration: .init(category: .ambient), token: "t",
             existing: ["PIPEWIRE_PROPS": " { media.role=Game } ", "PULSE_PROP": "media.role=game"],
             pipewire: "{ media.role=Game policy.category=ambient policy.options=[ ] policy.mode=default policy.session=t }",
             pulse: "media.role=game policy.category=ambient policy.mode=default policy.session=t"),
        Case(name: "after a bare list", declaration: .init(category: .ambient), token: nil,
             existing: ["PIPEWIRE_PROPS": "node.latency=256/48000"],
             pipewire: "{ node.latency=256/48000 policy.category=ambient policy.options=[ ] policy.mode=default }",
             pulse: "policy.category=ambient policy.mode=default"),
    ]

    @Test(arguments: cases)
    func theDeclarationGoesAfterWhatWasThere(_ test: Case) {
        let variables = LaunchEnvironment.variables(for: test.declaration, token: test.token, existing: test.existing)
        print("launch environment, \(test.name): PIPEWIRE_PROPS=\(variables["PIPEWIRE_PROPS"] ?? "") PULSE_PROP=\(variables["PULSE_PROP"] ?? "")")
        #expect(variables["PIPEWIRE_PROPS"] == test.pipewire)
        #expect(variables["PULSE_PROP"] == test.pulse)
        // What the classifier reads back from them is the declaration.
        let read = StreamPropertyPolicy(nodeProps: ["policy.category": test.declaration.category.rawValue,
                                                    "policy.options": test.pulse.split(separator: " ")
                                                        .first { $0.hasPrefix("policy.options=") }.map { String($0.dropFirst(15)) } ?? "[]",
                                                    "policy.mode": test.declaration.mode.rawValue])
        #expect(read.category == test.declaration.category && (read.options ?? []) == test.declaration.options
                && read.mode == test.declaration.mode && read.warnings.isEmpty, "\(read)")
    }
}
