/// Turns a (merged) SPA-JSON document into a `PolicyConfig`, checking every
/// key, type, name, range and regular expression, and reporting each problem
/// at the place it was written. It collects all the problems it finds rather
/// than stopping at the first.
public struct ConfigDecoder: Sendable {
    public init() {}

    public func decode(_ document: SPAJSON) throws(ConfigError) -> PolicyConfig {
        let run = DecodeRun()
        let config = run.config(ConfigMerge.normalized(document))
        if let error = ConfigError(collecting: run.errors) { throw error }
        guard let config else {
            throw ConfigError(at: document.position, "invalid configuration")
        }
        return config
    }

    /// The sections a configuration has.
    public static let sections = ["settings", "categories", "interactions", "rules"]

    /// The keys of a `silent.do-not-disturb-sources` entry: a D-Bus property
    /// (bus-name, path, interface, property) or a GSettings key (schema, key).
    public static let doNotDisturbSourceKeys = ["name", "bus-name", "path", "interface", "property", "schema", "key", "value"]
    public static let categoryTraitKeys = ["mixable", "silenced-in-silent-mode"]
    public static let interactionKeys = ["active", "incoming", "action", "level", "resumable", "why"]
    public static let selectorKeys = ["category", "options", "without-options", "mixable", "mode"]
    public static let actionNames = ["mix", "duck", "duck-incoming", "interrupt", "hold-incoming", "silence-incoming"]
    public static let ruleKeys = ["matches", "actions"]
    public static let ruleActionKeys = ["set-category", "set-options", "set-mode", "exempt", "prefer-target"]

    static let fadeRange = 0...10_000
    static let debounceRange = 0...60_000
    static let resumeWindowRange = 0...3_600_000
}

private final class DecodeRun {
    var errors: [ConfigError] = []

    func fail(_ position: SourcePosition, _ message: String) {
        errors.append(ConfigError(at: position, message))
    }

    // MARK: - Sections

    func config(_ document: SPAJSON) -> PolicyConfig? {
        guard let sections = object(document, in: "the configuration", allowed: ConfigDecoder.sections, noun: "section") else {
            return nil
        }
        let settings = required("settings", of: sections, at: document.position, in: "the configuration").flatMap { self.settings($0) }
        let categories = required("categories", of: sections, at: document.position, in: "the configuration").flatMap { self.categories($0) }
        let interactions = required("interactions", of: sections, at: document.position, in: "the configuration").flatMap { self.interactions($0) }
        let rules: [ClassificationRule]? = if let section = sections["rules"] { self.rules(section.value) } else { [] }
        guard let settings, let categories, let interactions, let rules else { return nil }
        return PolicyConfig(settings: settings, categories: categories, interactions: interactions, rules: rules)
    }

    func settings(_ value: SPAJSON) -> Settings? {
        guard let members = object(value, in: "settings", allowed: SettingsSchema.keys) else { return nil }
        for key in SettingsSchema.requiredKeys where members[key] == nil {
            fail(value.position, "settings: missing '\(key)'")
        }
        var settings = Settings.defaults
        var valid = true
        for spec in SettingsSchema.all {
            guard let member = members[spec.key]?.value else {
                valid = valid && !spec.isRequired
                continue
            }
            valid = set(spec, from: member, in: &settings) && valid
        }
        return valid ? settings : nil
    }

    /// Reads one setting's value by its row of the schema; false when invalid.
    private func set(_ spec: SettingSpec, from value: SPAJSON, in settings: inout Settings) -> Bool {
        func store<T>(_ decoded: T?, _ path: WritableKeyPath<Settings, T>) -> Bool {
            guard let decoded else { return false }
            settings[keyPath: path] = decoded
            return true
        }
        switch spec.field {
        case .level(let path, _): return store(level(value, spec.key), path)
        case .wholeNumber(let path, let range, _): return store(integer(value, spec.key, range), path)
        case .boolean(let path, _): return store(bool(value, spec.key), path)
        case .category(let path, _): return store(category(value, spec.key), path)
        case .options(let path, _): return store(options(value, spec.key), path)
        case .doNotDisturbSources(let path, _): return store(doNotDisturbSources(value, spec.key), path)
        }
    }

    func doNotDisturbSources(_ value: SPAJSON, _ path: String) -> [DoNotDisturbSource]? {
        guard let elements = value.elements else {
            fail(value.position, "\(path): expected an array of sources, got \(describe(value))")
            return nil
        }
        let sources = elements.enumerated().map { doNotDisturbSource($1, "\(path) #\($0 + 1)") }
        return sources.contains(where: { $0 == nil }) ? nil : sources.compactMap { $0 }
    }

    func doNotDisturbSource(_ value: SPAJSON, _ path: String) -> DoNotDisturbSource? {
        guard let members = object(value, in: path, allowed: ConfigDecoder.doNotDisturbSourceKeys) else { return nil }
        func text(_ key: String) -> String?? {
            guard let member = members[key] else { return .some(nil) }
            guard let text = string(member.value, "\(path).\(key)") else { return nil }
            guard !text.isEmpty else {
                fail(member.value.position, "\(path).\(key): must not be empty")
                return nil
            }
            return .some(text)
        }
        guard let busName = text("bus-name"), let objectPath = text("path"), let interface = text("interface"),
              let property = text("property"), let schema = text("schema"), let key = text("key") else { return nil }
        let mechanism: DoNotDisturbSource.Mechanism
        switch (busName, objectPath, interface, property, schema, key) {
        case let (busName?, objectPath?, interface?, property?, nil, nil):
            guard objectPath.hasPrefix("/") else {
                fail(members["path"]!.value.position, "\(path).path: a D-Bus object path starts with '/', got '\(objectPath)'")
                return nil
            }
            mechanism = .busProperty(busName: busName, path: objectPath, interface: interface, property: property)
        case let (nil, nil, nil, nil, schema?, key?):
            mechanism = .gsettings(schema: schema, key: key)
        default:
            fail(value.position, "\(path): expected either bus-name, path, interface and property (a D-Bus property) "
                 + "or schema and key (a GSettings key)")
            return nil
        }
        guard let valueMember = members["value"] else {
            fail(value.position, "\(path): missing 'value' (what the source says while Do Not Disturb is on)")
            return nil
        }
        let doNotDisturbValue: String
        if let bool = valueMember.value.bool {
            doNotDisturbValue = bool ? "true" : "false"
        } else if let number = valueMember.value.number, number.rounded() == number, abs(number) < 1e15 {
            doNotDisturbValue = String(Int64(number))
        } else if let string = valueMember.value.string {
            doNotDisturbValue = string
        } else {
            fail(valueMember.value.position, "\(path).value: expected a boolean, a whole number or a string, got \(describe(valueMember.value))")
            return nil
        }
        guard let name = text("name") else { return nil }
        let source = DoNotDisturbSource(name: "", mechanism: mechanism, doNotDisturbValue: doNotDisturbValue)
        return DoNotDisturbSource(name: name ?? source.location, mechanism: mechanism, doNotDisturbValue: doNotDisturbValue)
    }

    func categories(_ value: SPAJSON) -> [Category: CategoryTraits]? {
        guard let members = value.members else {
            fail(value.position, "categories: expected an object, got \(describe(value))")
            return nil
        }
        var result: [Category: CategoryTraits] = [:]
        var complete = true
        for member in members {
            guard let category = Category(rawValue: member.key) else {
                fail(member.keyPosition, "unknown category '\(member.key)' in categories; expected one of: \(categoryList)")
                complete = false
                continue
            }
            let path = "categories.\(member.key)"
            guard let traits = object(member.value, in: path, allowed: ConfigDecoder.categoryTraitKeys) else {
                complete = false
                continue
            }
            let mixable = required("mixable", of: traits, at: member.value.position, in: path).flatMap { bool($0, "\(path).mixable") }
            let silenced = required("silenced-in-silent-mode", of: traits, at: member.value.position, in: path)
                .flatMap { bool($0, "\(path).silenced-in-silent-mode") }
            guard let mixable, let silenced else {
                complete = false
                continue
            }
            result[category] = CategoryTraits(mixable: mixable, silencedInSilentMode: silenced)
        }
        for category in Category.allCases where result[category] == nil && !members.contains(where: { $0.key == category.rawValue }) {
            fail(value.position, "categories: missing category '\(category.rawValue)'; every category must be defined")
            complete = false
        }
        return complete ? result : nil
    }

    // MARK: - Interactions

    func interactions(_ value: SPAJSON) -> [InteractionRule]? {
        guard let elements = value.elements else {
            fail(value.position, "interactions: expected an array, got \(describe(value))")
            return nil
        }
        var rules: [InteractionRule] = []
        var complete = true
        for (index, element) in elements.enumerated() {
            if let rule = interaction(element, "interaction #\(index + 1)") {
                rules.append(rule)
            } else {
                complete = false
            }
        }
        return complete ? rules : nil
    }

    func interaction(_ value: SPAJSON, _ path: String) -> InteractionRule? {
        guard let members = object(value, in: path, allowed: ConfigDecoder.interactionKeys) else { return nil }
        let active = required("active", of: members, at: value.position, in: path).flatMap { selector($0, "\(path) active") }
        let incoming = required("incoming", of: members, at: value.position, in: path).flatMap { selector($0, "\(path) incoming") }
        let why = members["why"].flatMap { string($0.value, "\(path) why") } ?? ""
        guard let actionValue = required("action", of: members, at: value.position, in: path),
              let actionName = string(actionValue, "\(path) action")
        else { return nil }

        guard ConfigDecoder.actionNames.contains(actionName) else {
            fail(actionValue.position, "\(path) action: unknown action '\(actionName)'; expected one of: \(ConfigDecoder.actionNames.joined(separator: ", "))")
            return nil
        }
        let levelMember = members["level"]
        let resumableMember = members["resumable"]
        if let levelMember, actionName != "duck", actionName != "duck-incoming" {
            fail(levelMember.keyPosition, "\(path): 'level' only applies to duck and duck-incoming, not \(actionName)")
            return nil
        }
        if let resumableMember, actionName != "interrupt" {
            fail(resumableMember.keyPosition, "\(path): 'resumable' only applies to interrupt, not \(actionName)")
            return nil
        }
        let action: InteractionAction
        switch actionName {
        case "duck", "duck-incoming":
            var duckLevel: Double?
            if let levelMember {
                guard let parsed = level(levelMember.value, "\(path) level") else { return nil }
                duckLevel = parsed
            }
            action = actionName == "duck" ? .duck(level: duckLevel) : .duckIncoming(level: duckLevel)
        case "interrupt":
            guard let resumableMember else {
                fail(value.position, "\(path): interrupt needs 'resumable = true' (the interrupted session resumes after) or 'resumable = false'")
                return nil
            }
            guard let resumable = bool(resumableMember.value, "\(path) resumable") else { return nil }
            action = .interrupt(resumable: resumable)
        case "hold-incoming": action = .holdIncoming
        case "silence-incoming": action = .silenceIncoming
        default: action = .mix
        }
        guard let active, let incoming else { return nil }
        return InteractionRule(active: active, incoming: incoming, action: action, why: why,
                               origin: value.position.fileAndLine)
    }

    func selector(_ value: SPAJSON, _ path: String) -> SessionSelector? {
        if let name = value.string {
            if name == "*" { return .any }
            guard let category = Category(rawValue: name) else {
                fail(value.position, "\(path): unknown category '\(name)'; expected \"*\" or one of: \(categoryList)")
                return nil
            }
            return SessionSelector(categories: [category])
        }
        guard value.members != nil else {
            fail(value.position, "\(path): expected \"*\", a category name or an object, got \(describe(value))")
            return nil
        }
        guard let members = object(value, in: path, allowed: ConfigDecoder.selectorKeys) else { return nil }
        var selector = SessionSelector()
        var complete = true
        if let member = members["category"] {
            if let categories = categoryList(member.value, "\(path).category") {
                selector.categories = categories
            } else {
                complete = false
            }
        }
        if let member = members["options"] {
            if let options = options(member.value, "\(path).options") { selector.options = options } else { complete = false }
        }
        if let member = members["without-options"] {
            if let options = options(member.value, "\(path).without-options") { selector.withoutOptions = options } else { complete = false }
        }
        if let member = members["mixable"] {
            if let mixable = bool(member.value, "\(path).mixable") { selector.mixable = mixable } else { complete = false }
        }
        if let member = members["mode"] {
            if let mode = mode(member.value, "\(path).mode") { selector.mode = mode } else { complete = false }
        }
        return complete ? selector : nil
    }

    /// `category = X` or `category = [ X Y ]`.
    func categoryList(_ value: SPAJSON, _ path: String) -> Set<Category>? {
        if value.string != nil {
            return category(value, path).map { [$0] }
        }
        guard let elements = value.elements else {
            fail(value.position, "\(path): expected a category name or an array of them, got \(describe(value))")
            return nil
        }
        if elements.isEmpty {
            fail(value.position, "\(path): the list of categories is empty; it would match nothing")
            return nil
        }
        let categories = elements.map { category($0, path) }
        guard categories.allSatisfy({ $0 != nil }) else { return nil }
        return Set(categories.compactMap { $0 })
    }

    // MARK: - Classification rules

    func rules(_ value: SPAJSON) -> [ClassificationRule]? {
        guard let elements = value.elements else {
            fail(value.position, "rules: expected an array, got \(describe(value))")
            return nil
        }
        var rules: [ClassificationRule] = []
        var complete = true
        for (index, element) in elements.enumerated() {
            if let rule = rule(element, "rule #\(index + 1)") {
                rules.append(rule)
            } else {
                complete = false
            }
        }
        return complete ? rules : nil
    }

    func rule(_ value: SPAJSON, _ path: String) -> ClassificationRule? {
        guard let members = object(value, in: path, allowed: ConfigDecoder.ruleKeys) else { return nil }
        let matches = required("matches", of: members, at: value.position, in: path).flatMap { matchList($0, "\(path) matches") }
        let actions = required("actions", of: members, at: value.position, in: path).flatMap { ruleActions($0, "\(path) actions") }
        guard let matches, let actions else { return nil }
        return ClassificationRule(matches: matches, actions: actions, origin: value.position.fileAndLine)
    }

    func ruleActions(_ value: SPAJSON, _ path: String) -> RuleActions? {
        guard let members = object(value, in: path, allowed: ConfigDecoder.ruleActionKeys) else { return nil }
        if members.isEmpty {
            fail(value.position, "\(path): no actions; expected at least one of: \(ConfigDecoder.ruleActionKeys.joined(separator: ", "))")
            return nil
        }
        var actions = RuleActions()
        var complete = true
        if let member = members["set-category"] {
            if let category = category(member.value, "\(path).set-category") { actions.category = category } else { complete = false }
        }
        if let member = members["set-options"] {
            if let options = options(member.value, "\(path).set-options") { actions.options = options } else { complete = false }
        }
        if let member = members["set-mode"] {
            if let mode = mode(member.value, "\(path).set-mode") { actions.mode = mode } else { complete = false }
        }
        if let member = members["exempt"] {
            if let exempt = bool(member.value, "\(path).exempt") { actions.exempt = exempt } else { complete = false }
        }
        if let member = members["prefer-target"] {
            if let matches = matchList(member.value, "\(path).prefer-target") {
                actions.preferTarget = TargetPreference(matches: matches)
            } else {
                complete = false
            }
        }
        return complete ? actions : nil
    }

    /// PipeWire's `matches`: an array of objects of property conditions.
    func matchList(_ value: SPAJSON, _ path: String) -> [[String: PropertyMatch]]? {
        guard let elements = value.elements else {
            fail(value.position, "\(path): expected an array of objects, got \(describe(value))")
            return nil
        }
        if elements.isEmpty {
            fail(value.position, "\(path): empty; it would never match (write [ {} ] to match everything)")
            return nil
        }
        var entries: [[String: PropertyMatch]] = []
        var complete = true
        for element in elements {
            guard let members = element.members else {
                fail(element.position, "\(path): expected an object of property conditions, got \(describe(element))")
                complete = false
                continue
            }
            var entry: [String: PropertyMatch] = [:]
            for member in members {
                if let match = propertyMatch(member.value, "\(path): value of '\(member.key)'") {
                    entry[member.key] = match
                } else {
                    complete = false
                }
            }
            entries.append(entry)
        }
        return complete ? entries : nil
    }

    /// `"~regex"`, `null` or a value compared as a string, as in PipeWire.
    func propertyMatch(_ value: SPAJSON, _ path: String) -> PropertyMatch? {
        if value.isNull { return .absent }
        guard let text = value.scalarText else {
            fail(value.position, "\(path) must be a string, number, boolean or null, got \(describe(value))")
            return nil
        }
        guard value.string != nil, text.hasPrefix("~") else { return .equals(text) }
        let pattern = String(text.dropFirst())
        do {
            _ = try POSIXRegex(pattern)
        } catch {
            fail(value.position, error.description)
            return nil
        }
        return .regex(pattern)
    }

    // MARK: - Values

    /// The members of an object by key, reporting keys that are not allowed.
    func object(_ value: SPAJSON, in path: String, allowed: [String], noun: String = "key") -> [String: SPAJSON.Member]? {
        guard let members = value.members else {
            fail(value.position, "\(path): expected an object, got \(describe(value))")
            return nil
        }
        var result: [String: SPAJSON.Member] = [:]
        var complete = true
        for member in members {
            guard allowed.contains(member.key) else {
                fail(member.keyPosition, "unknown \(noun) '\(member.key)' in \(path); expected one of: \(allowed.joined(separator: ", "))")
                complete = false
                continue
            }
            result[member.key] = member
        }
        return complete ? result : nil
    }

    func required(_ key: String, of members: [String: SPAJSON.Member], at position: SourcePosition, in path: String) -> SPAJSON? {
        guard let member = members[key] else {
            fail(position, "\(path): missing '\(key)'")
            return nil
        }
        return member.value
    }

    func number(_ value: SPAJSON, _ path: String) -> Double? {
        guard let number = value.number else {
            fail(value.position, "\(path): expected a number, got \(describe(value))")
            return nil
        }
        return number
    }

    /// A linear gain between 0 and 1.
    func level(_ value: SPAJSON, _ path: String) -> Double? {
        guard let level = number(value, path) else { return nil }
        guard (0...1).contains(level) else {
            fail(value.position, "\(path) must be between 0 and 1, got \(text(of: value))")
            return nil
        }
        return level
    }

    func integer(_ value: SPAJSON, _ path: String, _ range: ClosedRange<Int>) -> Int? {
        guard let number = number(value, path) else { return nil }
        guard number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            fail(value.position, "\(path) must be between \(range.lowerBound) and \(range.upperBound), got \(text(of: value))")
            return nil
        }
        guard number.rounded() == number else {
            fail(value.position, "\(path): expected a whole number, got \(text(of: value))")
            return nil
        }
        return Int(number)
    }

    func bool(_ value: SPAJSON, _ path: String) -> Bool? {
        guard let bool = value.bool else {
            fail(value.position, "\(path): expected a boolean (true or false), got \(describe(value))")
            return nil
        }
        return bool
    }

    func string(_ value: SPAJSON, _ path: String) -> String? {
        guard let string = value.string else {
            fail(value.position, "\(path): expected a string, got \(describe(value))")
            return nil
        }
        return string
    }

    func category(_ value: SPAJSON, _ path: String) -> Category? {
        guard let name = string(value, path) else { return nil }
        guard let category = Category(rawValue: name) else {
            fail(value.position, "\(path): unknown category '\(name)'; expected one of: \(categoryList)")
            return nil
        }
        return category
    }

    func options(_ value: SPAJSON, _ path: String) -> Set<PolicyOption>? {
        guard let elements = value.elements else {
            fail(value.position, "\(path): expected an array of options, got \(describe(value))")
            return nil
        }
        var options: Set<PolicyOption> = []
        var complete = true
        for element in elements {
            guard let name = string(element, path) else {
                complete = false
                continue
            }
            guard let option = PolicyOption(rawValue: name) else {
                let known = PolicyOption.allCases.map(\.rawValue).joined(separator: ", ")
                fail(element.position, "\(path): unknown option '\(name)'; expected one of: \(known)")
                complete = false
                continue
            }
            options.insert(option)
        }
        return complete ? options : nil
    }

    func mode(_ value: SPAJSON, _ path: String) -> AudioMode? {
        guard let name = string(value, path) else { return nil }
        guard let mode = AudioMode(rawValue: name) else {
            let known = AudioMode.allCases.map(\.rawValue).joined(separator: ", ")
            fail(value.position, "\(path): unknown mode '\(name)'; expected one of: \(known)")
            return nil
        }
        return mode
    }

    private var categoryList: String { Category.allCases.map(\.rawValue).joined(separator: ", ") }

    /// "a string \"0.2\"", "an array": the kind, with the value when it is short.
    private func describe(_ value: SPAJSON) -> String {
        switch value.value {
        case .string(let string): "a string \"\(string)\""
        case .number(_, let text): "a number \(text)"
        case .bool(let bool): "a boolean \(bool)"
        default: value.kindDescription
        }
    }

    private func text(of value: SPAJSON) -> String {
        value.scalarText ?? value.kindDescription
    }
}
