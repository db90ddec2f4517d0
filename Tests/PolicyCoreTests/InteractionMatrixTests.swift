import Foundation
import Testing
@testable import PolicyCore
import PolicyFiles

@Suite struct InteractionMatrixTests {
    let engine = PolicyEngine(config: DefaultPolicyConfig.config)

    func sessionClass(_ category: Category, _ options: Set<PolicyOption> = [], _ mode: AudioMode = .default) -> SessionClass {
        SessionClass(category: category, options: options, mode: mode, config: DefaultPolicyConfig.config)
    }

    /// One side of a matrix cell.
    struct Side: Sendable {
        var category: Category
        var options: Set<PolicyOption> = []
        var mode: AudioMode = .default
    }

    static func side(_ category: Category, _ options: Set<PolicyOption> = [], _ mode: AudioMode = .default) -> Side {
        Side(category: category, options: options, mode: mode)
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var active: Side
        var incoming: Side
        /// 1-based, as explanations number rules.
        var rule: Int
        var action: InteractionAction
        var testDescription: String {
            "\(active.category.rawValue)\(active.options.sorted()) × \(incoming.category.rawValue)\(incoming.options.sorted()) → rule \(rule)"
        }

        init(_ active: Side, _ incoming: Side, rule: Int, _ action: InteractionAction) {
            self.active = active; self.incoming = incoming; self.rule = rule; self.action = action
        }

        init(_ active: Category, _ incoming: Category, rule: Int, _ action: InteractionAction) {
            self.init(side(active), side(incoming), rule: rule, action)
        }
    }

    static let defaultCells: [Cell] = [
        Cell(.audioProcessing, .playback, rule: 1, .mix),
        Cell(.playback, .audioProcessing, rule: 2, .mix),
        Cell(.record, .systemSound, rule: 3, .silenceIncoming),
        Cell(.record, .soloAmbient, rule: 4, .mix),
        Cell(.record, .playAndRecord, rule: 4, .mix),
        Cell(.playback, .record, rule: 5, .mix),
        Cell(side(.playAndRecord), side(.playback, [.duckOthers]), rule: 6, .mix),
        Cell(side(.playback, [.duckOthers]), side(.playAndRecord), rule: 7, .mix),
        Cell(.playAndRecord, .systemSound, rule: 8, .silenceIncoming),
        Cell(.playAndRecord, .playAndRecord, rule: 9, .interrupt(resumable: true)),
        Cell(.playAndRecord, .playback, rule: 10, .holdIncoming),
        Cell(side(.playAndRecord, [.mixWithOthers]), side(.playback), rule: 17, .mix),
        Cell(.systemSound, .soloAmbient, rule: 11, .mix),
        Cell(.playback, .playAndRecord, rule: 12, .interrupt(resumable: true)),
        Cell(.ambient, .playAndRecord, rule: 12, .interrupt(resumable: true)),
        Cell(side(.playback), side(.playAndRecord, [.mixWithOthers]), rule: 18, .mix),
        Cell(.soloAmbient, .systemSound, rule: 13, .mix),
        Cell(side(.playback, [], .spokenAudio), side(.playback, [.duckOthers, .interruptSpokenAudio]), rule: 14,
             .interrupt(resumable: true)),
        Cell(side(.playback), side(.playback, [.duckOthers]), rule: 15, .duck(level: nil)),
        Cell(side(.playback, [.duckOthers]), side(.playback), rule: 16, .duckIncoming(level: nil)),
        Cell(.ambient, .playback, rule: 17, .mix),
        Cell(.playback, .ambient, rule: 18, .mix),
        Cell(side(.playback), side(.playback, [.mixWithOthers]), rule: 18, .mix),
        Cell(.playback, .playback, rule: 19, .interrupt(resumable: false)),
        Cell(.playback, .soloAmbient, rule: 19, .interrupt(resumable: false)),
        Cell(.soloAmbient, .playback, rule: 19, .interrupt(resumable: false)),
    ]

    @Test(arguments: defaultCells)
    func defaultMatrixCell(_ cell: Cell) throws {
        let active = sessionClass(cell.active.category, cell.active.options, cell.active.mode)
        let incoming = sessionClass(cell.incoming.category, cell.incoming.options, cell.incoming.mode)
        let found = try #require(engine.interaction(active: active, incoming: incoming))
        #expect(found.index + 1 == cell.rule)
        #expect(found.rule.action == cell.action)
        #expect(found.rule == DefaultPolicyConfig.interactions[found.index])
    }

    @Test func mixableComesFromTheCategoryOrTheOptions() {
        #expect(sessionClass(.ambient).mixable)
        #expect(sessionClass(.systemSound).mixable)
        #expect(!sessionClass(.playback).mixable)
        #expect(!sessionClass(.soloAmbient).mixable)
        #expect(sessionClass(.playback, [.mixWithOthers]).mixable)
        #expect(sessionClass(.playback, [.duckOthers]).mixable)
        #expect(!sessionClass(.playback, [.interruptSpokenAudio]).mixable)
    }

    /// A matrix of one rule with one selector on the active side, probed with sessions.
    func matches(_ selector: SessionSelector, _ probe: SessionClass) -> Bool {
        let config = PolicyConfig(settings: DefaultPolicyConfig.config.settings,
                                  categories: DefaultPolicyConfig.config.categories,
                                  interactions: [InteractionRule(active: selector, incoming: .any, action: .holdIncoming)],
                                  rules: [])
        return PolicyEngine(config: config).interaction(active: probe, incoming: sessionClass(.playback)) != nil
    }

    @Test func selectorFieldsMustAllMatch() {
        let music = sessionClass(.playback)
        let game = sessionClass(.soloAmbient)
        let navigation = sessionClass(.playback, [.duckOthers, .interruptSpokenAudio])
        let book = sessionClass(.playback, [], .spokenAudio)

        #expect(matches(.any, music))
        #expect(matches(SessionSelector(categories: [.playback, .soloAmbient]), game))
        #expect(!matches(SessionSelector(categories: [.playback, .ambient]), game))
        #expect(matches(SessionSelector(options: [.duckOthers]), navigation))
        #expect(!matches(SessionSelector(options: [.duckOthers, .mixWithOthers]), navigation))
        #expect(!matches(SessionSelector(withoutOptions: [.interruptSpokenAudio]), navigation))
        #expect(matches(SessionSelector(withoutOptions: [.interruptSpokenAudio]), music))
        #expect(matches(SessionSelector(mixable: true), navigation))
        #expect(!matches(SessionSelector(mixable: true), music))
        #expect(matches(SessionSelector(mode: .spokenAudio), book))
        #expect(!matches(SessionSelector(mode: .spokenAudio), music))
        #expect(!matches(SessionSelector(categories: [.playback], mixable: true), music))
    }

    @Test func firstMatchWinsAndNoMatchMeansNoRule() {
        let rules = [
            InteractionRule(active: SessionSelector(categories: [.ambient]), incoming: .any, action: .mix, why: "first"),
            InteractionRule(active: .any, incoming: SessionSelector(categories: [.playback]), action: .holdIncoming, why: "second"),
            InteractionRule(active: .any, incoming: .any, action: .interrupt(resumable: false), why: "third"),
        ]
        let config = PolicyConfig(settings: DefaultPolicyConfig.config.settings,
                                  categories: DefaultPolicyConfig.config.categories, interactions: rules, rules: [])
        let engine = PolicyEngine(config: config)
        #expect(engine.interaction(active: sessionClass(.ambient), incoming: sessionClass(.playback))?.index == 0)
        #expect(engine.interaction(active: sessionClass(.record), incoming: sessionClass(.playback))?.index == 1)
        #expect(engine.interaction(active: sessionClass(.record), incoming: sessionClass(.ambient))?.index == 2)

        let empty = PolicyEngine(config: PolicyConfig(settings: config.settings, categories: config.categories,
                                                      interactions: [], rules: []))
        #expect(empty.interaction(active: sessionClass(.playback), incoming: sessionClass(.playback)) == nil)
    }

    @Test func packedClassesFollowTheCaseOrder() {
        #expect(Category.allCases.map(ClassCode.categoryIndex) == Array(Category.allCases.indices))
        #expect(PolicyOption.allCases.map(ClassCode.optionBit) == PolicyOption.allCases.indices.map { 1 << $0 })
        #expect(AudioMode.allCases.map(ClassCode.modeIndex) == Array(AudioMode.allCases.indices))
        for code in 0..<ClassCode.count {
            let parts = ClassCode.parts(of: code)
            #expect(ClassCode.index(category: parts.category, options: parts.options, mode: parts.mode) == code)
        }
    }

    /// The table built once must say what walking the rules says, for every pair of classes.
    @Test func precomputedTableAgreesWithTheRuleList() {
        let matrix = InteractionMatrix(config: DefaultPolicyConfig.config)
        var classes: [(code: Int, sessionClass: SessionClass)] = []
        for category in Category.allCases {
            for mask in 0..<(1 << PolicyOption.allCases.count) {
                let options = Set(PolicyOption.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
                for mode in AudioMode.allCases {
                    classes.append((ClassCode.index(category, options, mode), sessionClass(category, options, mode)))
                }
            }
        }
        #expect(Set(classes.map(\.code)).count == ClassCode.count)
        var disagreements = 0
        for active in classes {
            for incoming in classes {
                let walked = matrix.firstMatch(active: active.sessionClass, incoming: incoming.sessionClass) ?? -1
                if matrix.ruleIndex(active: active.code, incoming: incoming.code) != walked { disagreements += 1 }
            }
        }
        #expect(disagreements == 0)
    }

    /// The scenario and property tests use DefaultPolicyConfig; this keeps it
    /// the same policy as the shipped conf/pw-policy.conf.
    @Test func testDefaultIsTheShippedConfig() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let shipped = try ConfigLoader(environment: [:], fileSystem: .live).load(file: url.appendingPathComponent("conf/pw-policy.conf").path).config
        let expected = DefaultPolicyConfig.config
        #expect(shipped.settings == expected.settings)
        #expect(shipped.categories == expected.categories)
        #expect(shipped.interactions.count == expected.interactions.count)
        for (index, (loaded, built)) in zip(shipped.interactions, expected.interactions).enumerated() {
            #expect(loaded.active == built.active && loaded.incoming == built.incoming && loaded.action == built.action,
                    "rule \(index + 1): \(InteractionNotation.rule(loaded, index: index))")
        }
    }

    @Test func rulesAreWrittenLikeTheConfig() {
        let rules = DefaultPolicyConfig.interactions
        #expect(InteractionNotation.selector(rules[14].active) == "*")
        #expect(InteractionNotation.selector(rules[14].incoming) == "{ options = [duck-others] }")
        #expect(InteractionNotation.selector(rules[2].active) == "record")
        #expect(InteractionNotation.selector(rules[9].active) == "{ category = play-and-record, mixable = false }")
        #expect(InteractionNotation.selector(SessionSelector(categories: [.ambient, .playback], withoutOptions: [.duckOthers]))
                == "{ category = [ambient, playback], without-options = [duck-others] }")
        #expect(InteractionNotation.rule(rules[14], index: 14)
                == "rule 15: active * / incoming { options = [duck-others] } → duck: the incoming session asked to duck other audio (duck-others)")
        var located = rules[18]
        located.origin = "pw-policy.conf:88"
        #expect(InteractionNotation.rule(located, index: 18).hasPrefix("rule 19 at pw-policy.conf:88: active * / incoming * → interrupt non-resumable"))
        #expect(InteractionNotation.action(.duck(level: 0.35)) == "duck 0.35")
        #expect(InteractionNotation.formatLevel(0.2) == "0.20")
        #expect(InteractionNotation.formatLevel(1) == "1.00")
        #expect(InteractionNotation.formatLevel(0.056) == "0.06")
    }
}
