/// The interaction rules of the config, compiled to bit masks, with the first
/// matching rule of every (active class, incoming class) pair worked out once
/// when the engine is built: a decision then looks a pair up in a flat table
/// instead of walking the rule list.
struct InteractionMatrix: Sendable {
    let rules: [InteractionRule]
    /// `rules[i].action`, apart so the hot loops read small values.
    let actions: [InteractionAction]
    /// `rules[i]` as explanations cite it, written once.
    let references: [String]
    private let selectors: [(active: CompiledSelector, incoming: CompiledSelector)]
    /// Per category index: the category's own `mixable` trait.
    let categoryMixes: [Bool]
    /// Per category index: silent mode silences it.
    let categorySilenced: [Bool]
    /// `firstRule[active * ClassCode.count + incoming]`: the index of the first
    /// matching rule, or -1 when none does.
    private let firstRule: [Int32]
    private let classCount = ClassCode.count
    /// Per active class: some newcomer would wait, or be silenced or ducked,
    /// while a session of this class plays (the start gate, docs/POLICY.md).
    let quietsSomeNewcomer: [Bool]

    init(config: PolicyConfig) {
        rules = config.interactions
        actions = config.interactions.map(\.action)
        references = config.interactions.enumerated().map { InteractionNotation.rule($0.element, index: $0.offset) }
        selectors = config.interactions.map { (CompiledSelector($0.active), CompiledSelector($0.incoming)) }
        categoryMixes = ClassCode.categories.map { config.traits(of: $0).mixable }
        categorySilenced = ClassCode.categories.map { config.traits(of: $0).silencedInSilentMode }
        var table = [Int32](repeating: -1, count: ClassCode.count * ClassCode.count)
        let probes = (0..<ClassCode.count).map { [categoryMixes] in Self.probe(code: $0, categoryMixes: categoryMixes) }
        for active in 0..<ClassCode.count {
            for incoming in 0..<ClassCode.count {
                if let rule = Self.firstMatch(selectors, active: probes[active], incoming: probes[incoming]) {
                    table[active * ClassCode.count + incoming] = Int32(rule)
                }
            }
        }
        firstRule = table
        quietsSomeNewcomer = (0..<ClassCode.count).map { [actions] active in
            (0..<ClassCode.count).contains { incoming in
                let rule = table[active * ClassCode.count + incoming]
                guard rule >= 0 else { return false }
                switch actions[Int(rule)] {
                case .holdIncoming, .silenceIncoming, .duckIncoming: return true
                default: return false
                }
            }
        }
    }

    /// The hot path: the first rule for a pair of packed classes, -1 if none.
    @inline(__always)
    func ruleIndex(active: Int, incoming: Int) -> Int {
        Int(firstRule[active * classCount + incoming])
    }

    /// The first rule matching a pair given in full (for `explain`); walks the list.
    func firstMatch(active: SessionClass, incoming: SessionClass) -> Int? {
        Self.firstMatch(selectors, active: SelectorProbe(active), incoming: SelectorProbe(incoming))
    }

    private static func firstMatch(_ selectors: [(active: CompiledSelector, incoming: CompiledSelector)],
                                   active: SelectorProbe, incoming: SelectorProbe) -> Int? {
        selectors.firstIndex { $0.active.matches(active) && $0.incoming.matches(incoming) }
    }

    private static func probe(code: Int, categoryMixes: [Bool]) -> SelectorProbe {
        let parts = ClassCode.parts(of: code)
        let mixable = categoryMixes[parts.category]
            || parts.options & (PolicyOption.mixWithOthers.bit | PolicyOption.duckOthers.bit) != 0
        return SelectorProbe(category: parts.category, options: parts.options, mode: parts.mode, mixable: mixable)
    }
}

/// A session class in the form selectors compare against.
struct SelectorProbe {
    var category: Int
    var options: Int
    var mode: Int
    var mixable: Bool

    init(category: Int, options: Int, mode: Int, mixable: Bool) {
        self.category = category; self.options = options; self.mode = mode; self.mixable = mixable
    }

    init(_ sessionClass: SessionClass) {
        self.init(category: ClassCode.categoryIndex(sessionClass.category),
                  options: ClassCode.optionMask(sessionClass.options),
                  mode: ClassCode.modeIndex(sessionClass.mode), mixable: sessionClass.mixable)
    }
}

/// A `SessionSelector` as masks: every set field must match.
struct CompiledSelector: Sendable {
    /// Bit per category index; all ones = any category.
    var categories: Int
    var required: Int
    var forbidden: Int
    var mixable: Bool?
    var mode: Int?

    init(_ selector: SessionSelector) {
        if let set = selector.categories {
            categories = set.reduce(0) { $0 | 1 << ClassCode.categoryIndex($1) }
        } else {
            categories = ~0
        }
        required = ClassCode.optionMask(selector.options)
        forbidden = ClassCode.optionMask(selector.withoutOptions)
        mixable = selector.mixable
        mode = selector.mode.map(ClassCode.modeIndex)
    }

    func matches(_ probe: SelectorProbe) -> Bool {
        categories & (1 << probe.category) != 0
            && probe.options & required == required
            && probe.options & forbidden == 0
            && (mixable == nil || mixable == probe.mixable)
            && (mode == nil || mode == probe.mode)
    }
}

extension PolicyOption {
    var bit: Int { ClassCode.optionBit(self) }
}
