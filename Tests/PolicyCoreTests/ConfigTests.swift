import Foundation
import Testing
@testable import PolicyCore
import PolicyFiles

/// The shipped conf/pw-policy.conf, read from the source tree.
enum ShippedConfigFile {
    static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("conf/pw-policy.conf").path
    }()

    static var text: String {
        get throws { try String(contentsOfFile: path, encoding: .utf8) }
    }

    /// Its rules: calls prefer a headset, then the corpus families'
    /// (docs/CLASSIFICATION.md): production capture, Qt sounds, call engines,
    /// game audio libraries, a call's ring.
    static let ruleCount = 5
}

@Suite struct ConfigTests {
    /// A fragment with `▸` marking where the error must be reported; the marker
    /// is removed before parsing.
    struct MarkedFragment: Sendable, CustomStringConvertible {
        var text: String
        var message: String

        init(_ marked: String, _ message: String) {
            self.text = marked; self.message = message
        }

        var source: String { text.replacingOccurrences(of: "▸", with: "") }

        /// line:column of the marker, in characters.
        var location: String {
            let before = text.components(separatedBy: "▸")[0]
            let lines = before.components(separatedBy: "\n")
            return "\(lines.count):\(lines.last!.count + 1)"
        }

        var description: String { source }
    }

    static let base = "/base"

    /// The shipped file plus one fragment, in memory.
    private func loadWithFragment(_ fragment: String) throws -> LoadedConfig {
        let files = [
            "\(Self.base)/pw-policy.conf": try ShippedConfigFile.text,
            "\(Self.base)/pw-policy.conf.d/frag.conf": fragment,
        ]
        return try ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": Self.base], fileSystem: .inMemory(files)).load()
    }

    private func errorWithFragment(_ fragment: String) throws -> ConfigError? {
        do {
            _ = try loadWithFragment(fragment)
            return nil
        } catch let error as ConfigError {
            return error
        }
    }

    // MARK: - The shipped configuration

    @Test func shippedConfigLoadsWithTheDocumentedDefaults() throws {
        let loaded = try ConfigLoader(environment: [:], fileSystem: .live).load(file: ShippedConfigFile.path)
        let config = loaded.config
        #expect(loaded.files == [ShippedConfigFile.path])
        #expect(config.settings == DefaultPolicyConfig.config.settings)
        #expect(config.categories == DefaultPolicyConfig.config.categories)
    }

    /// The matrix in the file is the one the engine tests assume, in order
    /// and with the reasons `explain` shows.
    @Test func shippedInteractionMatrixIsTheAgreedOrder() throws {
        let config = try ConfigLoader(environment: [:], fileSystem: .live).load(file: ShippedConfigFile.path).config
        let expected = DefaultPolicyConfig.interactions
        #expect(config.interactions.count == expected.count)
        for (index, (rule, want)) in zip(config.interactions, expected).enumerated() {
            #expect(rule.active == want.active, "interaction #\(index + 1) active")
            #expect(rule.incoming == want.incoming, "interaction #\(index + 1) incoming")
            #expect(rule.action == want.action, "interaction #\(index + 1) action")
            #expect(rule.why == want.why, "interaction #\(index + 1) why")
            #expect(rule.origin.hasPrefix(ShippedConfigFile.path + ":"), "origin \(rule.origin)")
        }
    }

    @Test func shippedRulesPreferAHeadsetForCallsAndSetNoCategory() throws {
        let rules = try ConfigLoader(environment: [:], fileSystem: .live).load(file: ShippedConfigFile.path).config.rules
        let rule = try #require(rules.first)
        #expect(rules.count == ShippedConfigFile.ruleCount)
        #expect(rule.actions.category == nil)
        #expect(rule.actions.options == nil)
        let stream = try PropertyMatcher(rule.matches)
        #expect(stream.matches(["media.role": "Communication"]))
        #expect(stream.matches(["media.role": "Phone"]))
        #expect(!stream.matches(["media.role": "Music"]))
        let target = try PropertyMatcher(try #require(rule.actions.preferTarget).matches)
        #expect(target.matches(["device.form-factor": "headset"]))
        #expect(!target.matches(["device.form-factor": "speaker"]))
    }

    /// The rules for the families of the real-world corpus (docs/CLASSIFICATION.md):
    /// a screen recorder's production capture records; Qt's notification sounds;
    /// call engines' streams; a call's ring. (Game audio libraries' default
    /// names are inference: RoleInferenceTests.)
    @Test func shippedRulesForCorpusFamilies() throws {
        let rules = try ConfigLoader(environment: [:], fileSystem: .live).load(file: ShippedConfigFile.path).config.rules
        try #require(rules.count == ShippedConfigFile.ruleCount)
        let production = try PropertyMatcher(rules[1].matches)
        #expect(rules[1].actions.category == .record)
        #expect(production.matches(["media.role": "production", "media.class": "Stream/Input/Audio"]))
        #expect(production.matches(["media.role": "Production", "media.class": "Stream/Input/Audio"]))
        #expect(!production.matches(["media.role": "Production", "media.class": "Stream/Output/Audio"]))
        #expect(!production.matches(["media.role": "Production", "media.class": "Stream/Input/Audio",
                                     "stream.capture.sink": "true"]))
        #expect(!production.matches(["media.role": "Production", "media.class": "Stream/Input/Audio",
                                     "stream.monitor": "true"]))
        let qt = try PropertyMatcher(rules[2].matches)
        #expect(rules[2].actions.category == .systemSound)
        #expect(qt.matches(["application.name": "QtPulseAudio:3834", "media.class": "Stream/Output/Audio"]))
        #expect(!qt.matches(["application.name": "QtPulseAudio:3834", "media.class": "Stream/Input/Audio"]))
        #expect(!qt.matches(["application.name": "QtPulseAudio", "media.class": "Stream/Output/Audio"]))
        let calls = try PropertyMatcher(rules[3].matches)
        #expect(rules[3].actions.category == .playAndRecord)
        for props in [["application.name": "ZOOM VoiceEngine"], ["node.name": "WEBRTC VoiceEngine"],
                      ["media.name": "recStream"], ["media.name": "VoIP Playback"], ["media.name": "phone"]] {
            #expect(calls.matches(props), "\(props)")
        }
        for props in [["media.name": "Playback"], ["media.name": "VoIPish"], ["media.name": "headphones"],
                      ["application.name": "Discord"]] {
            #expect(!calls.matches(props), "\(props)")
        }
        let rings = try PropertyMatcher(rules[4].matches)
        #expect(rules[4].actions.category == .systemSound)
        #expect(rings.matches(["media.name": "Ringtone", "media.class": "Stream/Output/Audio"]))
        #expect(!rings.matches(["media.name": "Ringtone", "media.class": "Stream/Input/Audio"]))
        #expect(!rings.matches(["media.name": "Ring of Fire", "media.class": "Stream/Output/Audio"]))
    }

    /// The commented-out examples at the end of the file are valid when uncommented.
    @Test func shippedExamplesAreValid() throws {
        let lines = try ShippedConfigFile.text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.contains("Examples (remove the leading #") })
        let examples = lines[(start + 1)...]
            .filter { $0.hasPrefix("    # ") }
            .map { String($0.dropFirst(6)) }
            .filter { $0.hasPrefix("{") || $0.hasPrefix("}") || $0.hasPrefix("    ") }
        let fragment = "rules = [\n" + examples.joined(separator: "\n") + "\n]\n"
        let rules = try loadWithFragment(fragment).config.rules
        // The shipped file's rules, then the 3 examples.
        let first = ShippedConfigFile.ruleCount
        #expect(rules.count == first + 3)
        #expect(rules[first].actions.category == .playback)
        #expect(rules[first + 1].actions.exempt == true)
        #expect(rules[first + 2].actions.options == [.duckOthers])
        #expect(rules[first + 2].actions.mode == .spokenAudio)
    }

    /// docs/CONFIG.md's table of settings is the schema's, row for row:
    /// `PW_POLICY_UPDATE_DOCS=1 swift test --filter settingsTableIsTheSchemas`
    /// rewrites it.
    /// Messages name a setting by the property it sets: each property is
    /// set by one row, whose key they get.
    @Test func eachSettingIsNamedByThePropertyItSets() {
        for spec in SettingsSchema.all {
            #expect(SettingsSchema.key(spec.field.path) == spec.key)
        }
        #expect(Set(SettingsSchema.all.map { "\($0.field.path)" }).count == SettingsSchema.all.count, "one row per property")
    }

    @Test func settingsTableIsTheSchemas() throws {
        var url = URL(fileURLWithPath: ShippedConfigFile.path)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        let path = url.appendingPathComponent("docs/CONFIG.md").path
        let doc = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(doc.range(of: "| key | type | range | default |")).lowerBound
        let end = doc.range(of: "\n\n", range: start..<doc.endIndex)?.lowerBound ?? doc.endIndex
        if ProcessInfo.processInfo.environment["PW_POLICY_UPDATE_DOCS"] == "1" {
            try doc.replacingCharacters(in: start..<end, with: SettingsSchema.markdownTable)
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(String(doc[start..<end]) == SettingsSchema.markdownTable,
                "docs/CONFIG.md's settings table differs from SettingsSchema; rerun with PW_POLICY_UPDATE_DOCS=1")
    }

    /// The shipped file states every setting, each at its schema default.
    @Test func shippedSettingsAreTheDefaults() throws {
        let config = try ConfigLoader(environment: [:], fileSystem: .live).load(file: ShippedConfigFile.path).config
        #expect(config.settings == Settings.defaults)
    }

    /// The examples in docs/CONFIG.md load.
    @Test func documentedExamplesAreValid() throws {
        var url = URL(fileURLWithPath: ShippedConfigFile.path)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        let doc = try String(contentsOfFile: url.appendingPathComponent("docs/CONFIG.md").path, encoding: .utf8)
        func codeBlock(after marker: String) throws -> String {
            let afterMarker = try #require(doc.range(of: marker)).upperBound
            let start = try #require(doc.range(of: "```\n", range: afterMarker..<doc.endIndex)).upperBound
            let end = try #require(doc.range(of: "\n```", range: start..<doc.endIndex)).lowerBound
            return String(doc[start..<end])
        }
        let quickStart = try loadWithFragment(try codeBlock(after: "Quick start")).config
        #expect(quickStart.settings.duckLevel == 0.1)
        #expect(quickStart.rules.last?.actions.category == .playback)
        let more = try loadWithFragment(try codeBlock(after: "More examples:")).config.rules
        // The shipped file's rules, then the document's 4.
        #expect(more.count == ShippedConfigFile.ruleCount + 4)
        #expect(more.last?.actions.preferTarget != nil)
    }

    // MARK: - Decoding

    @Test func selectorForms() throws {
        let config = try loadWithFragment("""
            interactions = [
                { active = "*" incoming = playback action = duck level = 0.5 }
                { active = { category = [ ambient solo-ambient ] options = [ duck-others ]
                             without-options = [ mix-with-others ] mixable = false mode = spoken-audio }
                  incoming = { category = record } action = duck-incoming }
            ]
            """).config
        let added = Array(config.interactions.suffix(2))
        #expect(added[0].active == .any)
        #expect(added[0].incoming == SessionSelector(categories: [.playback]))
        #expect(added[0].action == .duck(level: 0.5))
        #expect(added[0].why == "")
        #expect(added[0].origin == "/base/pw-policy.conf.d/frag.conf:2")
        #expect(added[1].active == SessionSelector(categories: [.ambient, .soloAmbient], options: [.duckOthers],
                                                   withoutOptions: [.mixWithOthers], mixable: false, mode: .spokenAudio))
        #expect(added[1].incoming == SessionSelector(categories: [.record]))
        #expect(added[1].action == .duckIncoming(level: nil))
        #expect(added[1].origin == "/base/pw-policy.conf.d/frag.conf:3")
    }

    @Test func ruleValuesFollowPipeWire() throws {
        let rules = try loadWithFragment("""
            rules = [
                { matches = [ { client.id = 42 flag = true gone = null role = "~^Mu" plain = "x" }
                              { application.name = Firefox } ]
                  actions = { set-category = playback set-options = [ mix-with-others duck-others ]
                              set-mode = spoken-audio exempt = false
                              prefer-target = [ { node.name = "~usb" } ] } }
            ]
            """).config.rules
        let rule = try #require(rules.last)
        #expect(rule.matches == [
            ["client.id": .equals("42"), "flag": .equals("true"), "gone": .absent, "role": .regex("^Mu"), "plain": .equals("x")],
            ["application.name": .equals("Firefox")],
        ])
        #expect(rule.actions == RuleActions(category: .playback, options: [.mixWithOthers, .duckOthers], mode: .spokenAudio,
                                            exempt: false, preferTarget: TargetPreference(matches: [["node.name": .regex("usb")]])))
        #expect(rule.origin == "/base/pw-policy.conf.d/frag.conf:2")
    }

    static let validationErrors: [MarkedFragment] = [
        // settings
        MarkedFragment("settings = { ▸duck.lvl = 0.3 }",
                       "unknown key 'duck.lvl' in settings; expected one of: duck.level, fade.down-ms, fade.up-ms, debounce-ms, default.category, default.options, inference"),
        MarkedFragment("settings = { duck.level = ▸1.5 }", "duck.level must be between 0 and 1, got 1.5"),
        MarkedFragment("settings = { duck.level = ▸-0.1 }", "duck.level must be between 0 and 1, got -0.1"),
        MarkedFragment("settings = { duck.level = ▸\"0.2\" }", "duck.level: expected a number, got a string \"0.2\""),
        MarkedFragment("settings = { fade.down-ms = ▸20000 }", "fade.down-ms must be between 0 and 10000, got 20000"),
        MarkedFragment("settings = { fade.up-ms = ▸2.5 }", "fade.up-ms: expected a whole number, got 2.5"),
        MarkedFragment("settings = { debounce-ms = ▸-1 }", "debounce-ms must be between 0 and 60000, got -1"),
        MarkedFragment("settings = { default.category = ▸musik }",
                       "default.category: unknown category 'musik'; expected one of: ambient, solo-ambient, playback, record, play-and-record, audio-processing, system-sound"),
        MarkedFragment("settings = { default.options = [ ▸mix-with-other ] }",
                       "default.options: unknown option 'mix-with-other'; expected one of: mix-with-others, duck-others, interrupt-spoken-audio"),
        MarkedFragment("settings = { default.options = ▸mix-with-others }",
                       "default.options: expected an array of options, got a string \"mix-with-others\""),
        MarkedFragment("settings = { inference = ▸yes }", "inference: expected a boolean (true or false), got a string \"yes\""),
        MarkedFragment("settings = { presenting.silence-alerts = ▸on }",
                       "presenting.silence-alerts: expected a boolean (true or false), got a string \"on\""),
        MarkedFragment("settings = { silent.while-locked = ▸1 }",
                       "silent.while-locked: expected a boolean (true or false), got a number 1"),
        MarkedFragment("settings = { audio-sessions.service = ▸off }",
                       "audio-sessions.service: expected a boolean (true or false), got a string \"off\""),
        MarkedFragment("settings = ▸[ 1 ]", "settings: expected an object, got an array"),
        MarkedFragment("▸colours = {}", "unknown section 'colours' in the configuration; expected one of: settings, categories, interactions, rules"),
        // categories
        MarkedFragment("categories = { ▸musik = { mixable = true silenced-in-silent-mode = true } }",
                       "unknown category 'musik' in categories; expected one of: ambient, solo-ambient, playback"),
        MarkedFragment("categories = { playback = { mixable = ▸1 } }", "categories.playback.mixable: expected a boolean (true or false), got a number 1"),
        MarkedFragment("categories = { playback = { ▸loud = true } }",
                       "unknown key 'loud' in categories.playback; expected one of: mixable, silenced-in-silent-mode"),
        MarkedFragment("categories = { override.playback = ▸{ mixable = false } }", "categories.playback: missing 'silenced-in-silent-mode'"),
        MarkedFragment("categories = ▸playback", "categories: expected an object, got a string \"playback\""),
        // interactions (the shipped file has 19, so a fragment's first is #20)
        MarkedFragment("interactions = [ { active = ▸musik incoming = \"*\" action = mix } ]",
                       "interaction #20 active: unknown category 'musik'; expected \"*\" or one of: ambient, solo-ambient"),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = ▸explode } ]",
                       "interaction #20 action: unknown action 'explode'; expected one of: mix, duck, duck-incoming, interrupt, hold-incoming, silence-incoming"),
        MarkedFragment("interactions = [ ▸{ active = \"*\" incoming = \"*\" action = interrupt } ]",
                       "interaction #20: interrupt needs 'resumable = true' (the interrupted session resumes after) or 'resumable = false'"),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = interrupt resumable = ▸maybe } ]",
                       "interaction #20 resumable: expected a boolean (true or false), got a string \"maybe\""),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = mix ▸level = 0.5 } ]",
                       "interaction #20: 'level' only applies to duck and duck-incoming, not mix"),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = duck level = ▸2 } ]",
                       "interaction #20 level must be between 0 and 1, got 2"),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = duck ▸resumable = true } ]",
                       "interaction #20: 'resumable' only applies to interrupt, not duck"),
        MarkedFragment("interactions = [ { active = { category = ▸[] } incoming = \"*\" action = mix } ]",
                       "interaction #20 active.category: the list of categories is empty; it would match nothing"),
        MarkedFragment("interactions = [ { active = { ▸colour = red } incoming = \"*\" action = mix } ]",
                       "unknown key 'colour' in interaction #20 active; expected one of: category, options, without-options, mixable, mode"),
        MarkedFragment("interactions = [ { active = { mode = ▸spoken } incoming = \"*\" action = mix } ]",
                       "interaction #20 active.mode: unknown mode 'spoken'; expected one of: default, spoken-audio"),
        MarkedFragment("interactions = [ { active = { options = [ ▸loud ] } incoming = \"*\" action = mix } ]",
                       "interaction #20 active.options: unknown option 'loud'"),
        MarkedFragment("interactions = [ { active = ▸3 incoming = \"*\" action = mix } ]",
                       "interaction #20 active: expected \"*\", a category name or an object, got a number 3"),
        MarkedFragment("interactions = [ ▸{ incoming = \"*\" action = mix } ]", "interaction #20: missing 'active'"),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = mix why = ▸[] } ]",
                       "interaction #20 why: expected a string, got an array"),
        MarkedFragment("interactions = [ { active = \"*\" incoming = \"*\" action = mix ▸when = now } ]",
                       "unknown key 'when' in interaction #20; expected one of: active, incoming, action, level, resumable, why"),
        MarkedFragment("interactions = ▸{}", "interactions: expected an array, got an object"),
        MarkedFragment("interactions = [ ▸1 ]", "interaction #20: expected an object, got a number"),
        // rules (the shipped file has 3, so a fragment's first is #4)
        MarkedFragment("rules = [ { matches = [ { media.role = ▸\"~(\" } ] actions = { set-category = playback } } ]",
                       "invalid regular expression '(': "),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { prefer-target = [ { device.form-factor = ▸\"~[\" } ] } } ]",
                       "invalid regular expression '[': "),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { set-category = ▸musik } } ]",
                       "rule #6 actions.set-category: unknown category 'musik'; expected one of: ambient"),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { ▸set-categry = playback } } ]",
                       "unknown key 'set-categry' in rule #6 actions; expected one of: set-category, set-options, set-mode, exempt, prefer-target"),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = ▸{ } } ]",
                       "rule #6 actions: no actions; expected at least one of: set-category, set-options, set-mode, exempt, prefer-target"),
        MarkedFragment("rules = [ { matches = ▸[ ] actions = { exempt = true } } ]",
                       "rule #6 matches: empty; it would never match (write [ {} ] to match everything)"),
        MarkedFragment("rules = [ { matches = ▸{ a = b } actions = { exempt = true } } ]",
                       "rule #6 matches: expected an array of objects, got an object"),
        MarkedFragment("rules = [ { matches = [ ▸a ] actions = { exempt = true } } ]",
                       "rule #6 matches: expected an object of property conditions, got a string \"a\""),
        MarkedFragment("rules = [ { matches = [ { a = ▸[ 1 ] } ] actions = { exempt = true } } ]",
                       "rule #6 matches: value of 'a' must be a string, number, boolean or null, got an array"),
        MarkedFragment("rules = [ ▸{ actions = { exempt = true } } ]", "rule #6: missing 'matches'"),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { exempt = ▸yes } } ]",
                       "rule #6 actions.exempt: expected a boolean (true or false), got a string \"yes\""),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { set-options = [ ▸loud ] } } ]",
                       "rule #6 actions.set-options: unknown option 'loud'; expected one of: mix-with-others, duck-others, interrupt-spoken-audio"),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { set-mode = ▸loud } } ]",
                       "rule #6 actions.set-mode: unknown mode 'loud'; expected one of: default, spoken-audio"),
        MarkedFragment("rules = [ { matches = [ { a = b } ] actions = { exempt = true } ▸extra = 1 } ]",
                       "unknown key 'extra' in rule #6; expected one of: matches, actions"),
        MarkedFragment("rules = ▸{}", "rules: expected an array, got an object"),
        // Do Not Disturb
        MarkedFragment("settings = { silent.follow-do-not-disturb = ▸maybe }",
                       "silent.follow-do-not-disturb: expected a boolean (true or false), got a string \"maybe\""),
        MarkedFragment("settings = { silent.do-not-disturb-sources = ▸{} }",
                       "silent.do-not-disturb-sources: expected an array of sources, got an object"),
        MarkedFragment("settings = { silent.do-not-disturb-sources = [ ▸{ schema = a.b value = true } ] }",
                       "silent.do-not-disturb-sources #1: expected either bus-name, path, interface and property (a D-Bus property) or schema and key (a GSettings key)"),
        MarkedFragment("settings = { silent.do-not-disturb-sources = [ ▸{ schema = a.b key = c } ] }",
                       "silent.do-not-disturb-sources #1: missing 'value' (what the source says while Do Not Disturb is on)"),
        MarkedFragment("settings = { silent.do-not-disturb-sources = [ { schema = a.b key = c value = ▸[ ] } ] }",
                       "silent.do-not-disturb-sources #1.value: expected a boolean, a whole number or a string, got an array"),
        MarkedFragment("settings = { silent.do-not-disturb-sources = [ { bus-name = a path = ▸x interface = i property = p value = true } ] }",
                       "silent.do-not-disturb-sources #1.path: a D-Bus object path starts with '/', got 'x'"),
        MarkedFragment("settings = { silent.do-not-disturb-sources = [ { ▸bus = a } ] }",
                       "unknown key 'bus' in silent.do-not-disturb-sources #1; expected one of: name, bus-name, path, interface, property, schema, key, value"),
        MarkedFragment("settings = { silent.do-not-disturb-sources = [ { schema = a.b key = ▸\"\" value = 1 } ] }",
                       "silent.do-not-disturb-sources #1.key: must not be empty"),
        // syntax errors surface the same way
        MarkedFragment("settings = ▸{ duck.level = 0.3", "unclosed '{': no matching '}' before the end of the file"),
        MarkedFragment("rules = [ { matches = [ { a = ▸\"b } ] } ]", "unterminated string: no closing '\"' before the end of the file"),
    ]

    @Test(arguments: validationErrors)
    func everyValidationErrorIsPrecise(_ fragment: MarkedFragment) throws {
        let error = try #require(try errorWithFragment(fragment.source))
        #expect(error.file == "/base/pw-policy.conf.d/frag.conf")
        #expect("\(error.line):\(error.column)" == fragment.location)
        #expect(error.message.hasPrefix(fragment.message), "got: \(error.message)")
        #expect(error.description.hasPrefix("/base/pw-policy.conf.d/frag.conf:\(fragment.location): \(fragment.message)"))
        #expect(error.additionalErrors.isEmpty, "more errors: \(error)")
    }

    @Test func doNotDisturbSourcesLoadAfterTheBuiltInOnes() throws {
        let loaded = try loadWithFragment("""
            settings = { silent.do-not-disturb-sources = [
              { name = "my notifier" bus-name = org.example.N path = /org/example/N interface = org.example.N property = Quiet value = 2 }
              { schema = org.example.notifier key = mode value = dnd }
            ] }
            """)
        let settings = loaded.config.settings
        #expect(settings.followDoNotDisturb)
        #expect(settings.doNotDisturbSources == [
            DoNotDisturbSource(name: "my notifier", mechanism: .busProperty(busName: "org.example.N", path: "/org/example/N",
                                                                            interface: "org.example.N", property: "Quiet"),
                               doNotDisturbValue: "2"),
            DoNotDisturbSource(name: "GSettings org.example.notifier mode", mechanism: .gsettings(schema: "org.example.notifier", key: "mode"),
                               doNotDisturbValue: "dnd"),
        ])
        #expect(settings.allDoNotDisturbSources.prefix(3) == [.plasma, .gnome, .dunst])
    }

    @Test func everyMissingCategoryIsReported() throws {
        let error = try #require(try errorWithFragment(
            "override.categories = { playback = { mixable = false silenced-in-silent-mode = false } }"))
        let missing = Category.allCases.filter { $0 != .playback }
        #expect(error.all.map(\.message) == missing.map { "categories: missing category '\($0.rawValue)'; every category must be defined" })
        #expect(error.all.allSatisfy { $0.line == 1 && $0.column == 23 })
    }

    @Test func everyMissingSettingIsReported() throws {
        let error = try #require(try errorWithFragment("override.settings = { duck.level = 0.5 }"))
        #expect(error.all.map(\.message) == SettingsSchema.requiredKeys.dropFirst().map { "settings: missing '\($0)'" })
    }

    @Test func missingSectionsAreReported() throws {
        let files = ["/c/pw-policy.conf": "rules = []"]
        let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": "/c"], fileSystem: .inMemory(files))
        do {
            _ = try loader.load()
            Issue.record("loaded without sections")
        } catch {
            #expect(error.all.map(\.description) == [
                "/c/pw-policy.conf:1:1: the configuration: missing 'settings'",
                "/c/pw-policy.conf:1:1: the configuration: missing 'categories'",
                "/c/pw-policy.conf:1:1: the configuration: missing 'interactions'",
            ])
        }
    }

    @Test func allErrorsOfAPassAreCollectedInOrder() throws {
        let error = try #require(try errorWithFragment("""
            settings = { duck.level = 3 fade.up-ms = x }
            rules = [ { matches = [ { a = "~(" } ] actions = { set-category = nope } } ]
            """))
        #expect(error.all.map(\.location) == [
            "/base/pw-policy.conf.d/frag.conf:1:27",
            "/base/pw-policy.conf.d/frag.conf:1:42",
            "/base/pw-policy.conf.d/frag.conf:2:31",
            "/base/pw-policy.conf.d/frag.conf:2:67",
        ])
    }

    @Test func decoderAloneResolvesRepeatedKeysAsAMerge() throws {
        let text = try ShippedConfigFile.text + "\nsettings = { duck.level = 0.4 }\ninteractions = [ { active = \"*\" incoming = \"*\" action = mix } ]\n"
        let config = try ConfigDecoder().decode(try SPAJSONParser.parseDocument(text, file: "one.conf"))
        #expect(config.settings.duckLevel == 0.4)
        #expect(config.settings.fadeUpMs == 500)
        #expect(config.interactions.count == 20)
    }

    // MARK: - Merging

    private func merged(_ texts: String...) throws -> SPAJSON {
        let documents = try texts.enumerated().map { index, text in
            try SPAJSONParser.parseDocument(text, file: "f\(index).conf")
        }
        return try #require(ConfigMerge.merge(documents))
    }

    @Test func objectsMergeRecursivelyArraysAppendScalarsReplace() throws {
        let result = try merged(
            "a = { x = 1 y = { p = 1 q = 2 } } list = [ 1 2 ] s = one keep = 1",
            "a = { y = { q = 3 r = 4 } z = 5 } list = [ 3 ] s = two new = [ n ]")
        let expected = try SPAJSONParser.parseDocument(
            "a = { x = 1 y = { p = 1 q = 3 r = 4 } z = 5 } list = [ 1 2 3 ] s = two keep = 1 new = [ n ]", file: "e")
        #expect(result.hasSameContent(as: expected), "\(ConfigRenderer.spaJSON(result))")
    }

    @Test func overridePrefixReplacesAtAnyDepth() throws {
        let result = try merged(
            "list = [ 1 2 ] obj = { a = 1 b = 2 } deep = { inner = { a = 1 } list = [ 1 ] }",
            "override.list = [ 3 ] override.obj = { c = 3 } deep = { override.inner = { b = 2 } list = [ 2 ] }")
        let expected = try SPAJSONParser.parseDocument(
            "list = [ 3 ] obj = { c = 3 } deep = { inner = { b = 2 } list = [ 1 2 ] }", file: "e")
        #expect(result.hasSameContent(as: expected), "\(ConfigRenderer.spaJSON(result))")
    }

    @Test func overridePrefixInTheFirstFileIsJustTheKey() throws {
        let result = try merged("override.a = 1 b = { override.c = 2 }")
        #expect(result.hasSameContent(as: try SPAJSONParser.parseDocument("a = 1 b = { c = 2 }", file: "e")))
    }

    @Test func differentKindsReplaceAndKeepTheFragmentsPosition() throws {
        let result = try merged("a = { x = 1 } b = [ 1 ]", "\na = [ 2 ] b = 3")
        #expect(result["a"]?.elements?.count == 1)
        #expect(result["a"]?.position == SourcePosition(file: "f1.conf", line: 2, column: 5))
        #expect(result["b"]?.number == 3)
        #expect(result.members?.first?.keyPosition == SourcePosition(file: "f1.conf", line: 2, column: 1))
    }

    @Test func mergedContainersKeepTheirFirstPositionAndElementsTheirOwn() throws {
        let result = try merged("list = [ 1 ]", "\n\nlist = [ 2 ]")
        let list = try #require(result["list"])
        #expect(list.position.file == "f0.conf")
        #expect(list.elements?.map(\.position.file) == ["f0.conf", "f1.conf"])
        #expect(list.elements?[1].position.line == 3)
    }

    @Test func repeatedKeysInOneFileMergeLikeFragments() throws {
        let result = try merged("a = { x = 1 } list = [ 1 ] a = { y = 2 } list = [ 2 ] s = 1 s = 2")
        let expected = try SPAJSONParser.parseDocument("a = { x = 1 y = 2 } list = [ 1 2 ] s = 2", file: "e")
        #expect(result.hasSameContent(as: expected))
    }

    // MARK: - Search path and drop-ins

    @Test func dropInsMergeInNameOrderAcrossDirectories() throws {
        try TemporaryDirectory.with { root in
            let user = "\(root)/home/.config", etc = "\(root)/etc/pw-policy", share = "\(root)/share/pw-policy"
            try write(try ShippedConfigFile.text, to: "\(share)/pw-policy.conf")
            try write("settings = { duck.level = 0.3 }", to: "\(share)/pw-policy.conf.d/10-vendor.conf")
            try write("settings = { duck.level = 0.9 fade.up-ms = 900 }", to: "\(share)/pw-policy.conf.d/50-masked.conf")
            try write("settings = { duck.level = 0.4 }", to: "\(etc)/pw-policy.conf.d/30-admin.conf")
            try write("settings = { fade.down-ms = 100 }", to: "\(user)/pw-policy/pw-policy.conf.d/50-masked.conf")
            try write("settings = { duck.level = 0.5 }", to: "\(user)/pw-policy/pw-policy.conf.d/20-user.conf")
            try write("settings = { duck.level = 0.01 }", to: "\(user)/pw-policy/pw-policy.conf.d/README")
            try FileManager.default.createDirectory(atPath: "\(user)/pw-policy/pw-policy.conf.d/dir.conf", withIntermediateDirectories: true)

            let loader = ConfigLoader(environment: ["XDG_CONFIG_HOME": user, "HOME": "\(root)/elsewhere"],
                                      systemDirectories: [etc, share], fileSystem: .live)
            let loaded = try loader.load()
            #expect(loaded.files == [
                "\(share)/pw-policy.conf",
                "\(share)/pw-policy.conf.d/10-vendor.conf",
                "\(user)/pw-policy/pw-policy.conf.d/20-user.conf",
                "\(etc)/pw-policy.conf.d/30-admin.conf",
                "\(user)/pw-policy/pw-policy.conf.d/50-masked.conf",
            ])
            // 30-admin comes last of those setting duck.level; the user's 50-masked hides the vendor's.
            #expect(loaded.config.settings.duckLevel == 0.4)
            #expect(loaded.config.settings.fadeDownMs == 100)
            #expect(loaded.config.settings.fadeUpMs == 500)
            #expect(try loader.locateFiles() == loaded.files)
        }
    }

    @Test func mainFileComesFromTheFirstDirectoryThatHasOne() throws {
        try TemporaryDirectory.with { root in
            let user = "\(root)/xdg", etc = "\(root)/etc", share = "\(root)/share"
            let shipped = try ShippedConfigFile.text
            try write(shipped, to: "\(share)/pw-policy.conf")
            try write(shipped.replacingOccurrences(of: "duck.level = 0.2", with: "duck.level = 0.6"), to: "\(etc)/pw-policy.conf")
            let loader = ConfigLoader(environment: ["XDG_CONFIG_HOME": user], systemDirectories: [etc, share], fileSystem: .live)
            #expect(try loader.load().files == ["\(etc)/pw-policy.conf"])
            #expect(try loader.load().config.settings.duckLevel == 0.6)

            try write(shipped.replacingOccurrences(of: "duck.level = 0.2", with: "duck.level = 0.7"), to: "\(user)/pw-policy/pw-policy.conf")
            #expect(try loader.load().files == ["\(user)/pw-policy/pw-policy.conf"])
            #expect(try loader.load().config.settings.duckLevel == 0.7)
        }
    }

    @Test func configDirectoryVariableIsSearchedAlone() throws {
        try TemporaryDirectory.with { root in
            let own = "\(root)/own", user = "\(root)/xdg", share = "\(root)/share"
            try write(try ShippedConfigFile.text, to: "\(share)/pw-policy.conf")
            try write(try ShippedConfigFile.text, to: "\(user)/pw-policy/pw-policy.conf")
            try write("settings = { duck.level = 0.9 }", to: "\(share)/pw-policy.conf.d/90.conf")
            let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": own, "XDG_CONFIG_HOME": user],
                                      systemDirectories: [share], fileSystem: .live)
            #expect(loader.searchDirectories == [own])
            #expect(throws: ConfigError(file: "pw-policy.conf", "not found in any of: \(own)")) { try loader.load() }

            try write(try ShippedConfigFile.text, to: "\(own)/pw-policy.conf")
            try write("settings = { duck.level = 0.1 }", to: "\(own)/pw-policy.conf.d/10.conf")
            let loaded = try loader.load()
            #expect(loaded.files == ["\(own)/pw-policy.conf", "\(own)/pw-policy.conf.d/10.conf"])
            #expect(loaded.config.settings.duckLevel == 0.1)
        }
    }

    @Test func searchDirectoriesFollowTheEnvironment() {
        let system = ConfigLoader.defaultSystemDirectories
        #expect(ConfigLoader(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"], fileSystem: .live).searchDirectories == ["/x/pw-policy"] + system)
        #expect(ConfigLoader(environment: ["HOME": "/h"], fileSystem: .live).searchDirectories == ["/h/.config/pw-policy"] + system)
        #expect(ConfigLoader(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"], fileSystem: .live).searchDirectories == ["/h/.config/pw-policy"] + system)
        #expect(ConfigLoader(environment: [:], fileSystem: .live).searchDirectories == system)
        #expect(ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": "/p", "HOME": "/h"], fileSystem: .live).searchDirectories == ["/p"])
        #expect(ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": "/p"], fileSystem: .live).watchedDirectories == ["/p", "/p/pw-policy.conf.d"])
    }

    @Test func errorsInSeveralFilesAreAllReported() throws {
        let files = [
            "/c/pw-policy.conf": try ShippedConfigFile.text,
            "/c/pw-policy.conf.d/a.conf": "settings = { duck.level = \"x }",
            "/c/pw-policy.conf.d/b.conf": "rules = [ { ] }",
        ]
        let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": "/c"], fileSystem: .inMemory(files))
        do {
            _ = try loader.load()
            Issue.record("loaded")
        } catch {
            #expect(error.all.map(\.location) == ["/c/pw-policy.conf.d/a.conf:1:27", "/c/pw-policy.conf.d/b.conf:1:13"])
        }
    }

    @Test func loadingOneFileAndAddingAFragment() throws {
        try TemporaryDirectory.with { root in
            try write(try ShippedConfigFile.text, to: "\(root)/pw-policy.conf")
            try write("settings = { duck.level = 0.5 }", to: "\(root)/pw-policy.conf.d/10.conf")
            try write("settings = { fade.up-ms = 50 }", to: "\(root)/candidate.conf")
            let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": root], fileSystem: .live)
            let single = try loader.load(file: "\(root)/pw-policy.conf")
            #expect(single.files == ["\(root)/pw-policy.conf"])
            #expect(single.config.settings.duckLevel == 0.2)
            let added = try loader.load(addingFragment: "\(root)/candidate.conf")
            #expect(added.files.last == "\(root)/candidate.conf")
            #expect(added.config.settings.duckLevel == 0.5)
            #expect(added.config.settings.fadeUpMs == 50)
            #expect(throws: ConfigError(file: "\(root)/missing.conf", "cannot read: No such file or directory")) {
                try loader.load(file: "\(root)/missing.conf")
            }
        }
    }

    // MARK: - Reloading

    /// What a reload meets: a bad drop-in is refused with its place, a good
    /// one applies, and the shipped file gone is said. (Keeping the last good
    /// config in force is the agent's: AgentConfigTests.)
    @Test func reloadsSeeEachDropInChange() throws {
        try TemporaryDirectory.with { root in
            let shipped = try ShippedConfigFile.text
            try write(shipped, to: "\(root)/pw-policy.conf")
            let loader = ConfigLoader(environment: ["PW_POLICY_CONFIG_DIR": root], fileSystem: .live)
            #expect(try loader.load().config.settings.duckLevel == 0.2)

            try write("settings = { duck.level = 7 }", to: "\(root)/pw-policy.conf.d/50-typo.conf")
            #expect(throws: ConfigError(file: "\(root)/pw-policy.conf.d/50-typo.conf", line: 1, column: 27,
                                        message: "duck.level must be between 0 and 1, got 7")) { try loader.load() }

            try write("settings = { duck.level = 0.35 }", to: "\(root)/pw-policy.conf.d/50-typo.conf")
            #expect(try loader.load().config.settings.duckLevel == 0.35)

            try FileManager.default.removeItem(atPath: "\(root)/pw-policy.conf")
            #expect(throws: ConfigError(file: "pw-policy.conf", "not found in any of: \(root)")) { try loader.load() }
        }
    }

    // MARK: - Rendering

    @Test func renderedSPAJSONReadsBackTheSame() throws {
        let loaded = try loadWithFragment("settings = { duck.level = .25 } rules = [ { matches = [ { \"odd key\" = \"a \\\"b\\\"\" n = 1 } ] actions = { exempt = true } } ]")
        let text = ConfigRenderer.spaJSON(loaded.merged)
        let reparsed = try SPAJSONParser.parseDocument(text, file: "rendered.conf")
        #expect(reparsed.hasSameContent(as: loaded.merged), "\(text)")
        var config = try ConfigDecoder().decode(reparsed)
        var original = loaded.config
        config.clearOrigins()
        original.clearOrigins()
        #expect(config == original)
        #expect(text.contains("duck.level = .25"))
        #expect(text.contains("media.role = \"~^(Communication|Phone)$\""))
    }

    @Test func annotatedRenderingNamesWhereEachRuleCameFrom() throws {
        let loaded = try loadWithFragment("\n\nrules = [ { matches = [ { a = b } ] actions = { exempt = true } } ]")
        let text = ConfigRenderer.spaJSON(loaded.merged, annotatingOrigins: true)
        #expect(text.contains("# /base/pw-policy.conf.d/frag.conf:3\n"))
        #expect(text.contains("# /base/pw-policy.conf:"))
        #expect(try SPAJSONParser.parseDocument(text, file: "r").hasSameContent(as: loaded.merged))
    }

    @Test func renderedJSONIsStrictJSON() throws {
        let loaded = try loadWithFragment("settings = { duck.level = .25 fade.up-ms = +500 } rules = [ { matches = [ { \"tab\\there\" = \"\\u0001\" } ] actions = { exempt = true } } ]")
        let json = ConfigRenderer.json(loaded.merged)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let settings = try #require(object?["settings"] as? [String: Any])
        #expect(settings["duck.level"] as? Double == 0.25)
        #expect(settings["fade.up-ms"] as? Int == 500)
        #expect((object?["interactions"] as? [Any])?.count == 19)
        #expect(try SPAJSONParser.parseDocument(json, file: "j").hasSameContent(as: loaded.merged))
    }

    @Test(arguments: [
        ("plain", "plain"), ("duck.level", "duck.level"), ("*", "\"*\""), ("~^(a|b)$", "\"~^(a|b)$\""), ("a~b", "a~b"), ("música", "\"música\""),
        ("a b", "\"a b\""), ("true", "\"true\""), ("null", "\"null\""), ("1.5", "\"1.5\""), ("", "\"\""),
        ("x#y", "\"x#y\""), ("a=b", "\"a=b\""), ("q\"", "\"q\\\"\""), ("{", "\"{\""), ("line\n", "\"line\\n\""),
    ])
    func stringsAreQuotedOnlyWhenNeeded(string: String, rendered: String) throws {
        #expect(ConfigRenderer.spaString(string) == rendered)
        // What we write must read back whichever PipeWire reads it.
        for dialect in SPAJSONDialect.allCases {
            #expect(try SPAJSONParser.parseValue(rendered, dialect: dialect).value == .string(string), "\(dialect)")
        }
    }
}

extension PolicyConfig {
    fileprivate mutating func clearOrigins() {
        for index in interactions.indices { interactions[index].origin = "" }
        for index in rules.indices { rules[index].origin = "" }
    }
}

/// A fresh directory under the system's temporary directory, removed afterwards.
fileprivate enum TemporaryDirectory {
    static func with(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pw-policy-config-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }
}

fileprivate func write(_ text: String, to path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: false, encoding: .utf8)
}
