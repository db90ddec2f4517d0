import Testing
import PropertyBased
@testable import PolicyCore

/// A config for classifier tests, built in Swift: only settings and rules
/// matter to the classifier.
func classifierTestConfig(rules: [ClassificationRule] = [], inference: Bool = true,
                          defaultCategory: Category = .playback,
                          defaultOptions: Set<PolicyOption> = [.mixWithOthers]) -> PolicyConfig {
    PolicyConfig(
        settings: Settings(duckLevel: 0.2, fadeDownMs: 250, fadeUpMs: 500, debounceMs: 500,
                           defaultCategory: defaultCategory, defaultOptions: defaultOptions, inference: inference),
        categories: [:], interactions: [], rules: rules)
}

func classifyStream(_ props: [String: String], client: [String: String] = [:], direction: StreamDirection = .playback,
              override: ClassificationOverride? = nil, duplex: Bool = false,
              config: PolicyConfig = classifierTestConfig()) throws -> Classification {
    let classifier = try Classifier(config: config)
    return classifier.classify(StreamFacts(nodeID: 40, direction: direction, nodeProps: props, clientProps: client,
                                           override: override, appAlsoStreamsOtherDirection: duplex))
}

@Suite struct ClassifierTests {
    // MARK: precedence

    /// A Spotify stream that every step would classify differently:
    /// override solo-ambient, its own props ambient, a rule record, inference playback.
    static let spotifyProps: [String: String] = [
        "media.class": "Stream/Output/Audio", "application.name": "Spotify",
        "application.process.binary": "spotify", "media.name": "Spotify", "media.role": "Music",
        "policy.category": "ambient",
    ]
    static let recordRule = ClassificationRule(
        matches: [["application.process.binary": .equals("spotify")]],
        actions: RuleActions(category: .record), origin: "pw-policy.conf:12")

    @Test func overrideBeatsStreamPropsBeatsRulesBeatsInferenceBeatsDefault() throws {
        let override = ClassificationOverride(category: .soloAmbient)
        let config = classifierTestConfig(rules: [Self.recordRule])
        var props = Self.spotifyProps

        let overridden = try classifyStream(props, override: override, config: config)
        #expect(overridden.category == .soloAmbient)
        #expect(overridden.source == .override)

        let byApp = try classifyStream(props, config: config)
        #expect(byApp.category == .ambient)
        #expect(byApp.source == .streamProperties)

        props["policy.category"] = nil
        let byRule = try classifyStream(props, config: config)
        #expect(byRule.category == .record)
        #expect(byRule.source == .rule)

        let inferred = try classifyStream(props)
        #expect(inferred.category == .playback)
        #expect(inferred.options.isEmpty)
        #expect(inferred.source == .inference)

        let byDefault = try classifyStream(["media.class": "Stream/Output/Audio", "application.name": "Some Game"],
                                     config: classifierTestConfig(defaultCategory: .ambient, defaultOptions: []))
        #expect(byDefault.category == .ambient)
        #expect(byDefault.source == .default)
    }

    @Test func reasonsNameTheDecidingPropertyAndValue() throws {
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["media.role": .equals("Game")]], actions: RuleActions(category: .ambient),
                               origin: "pw-policy.conf:100"),
            ClassificationRule(matches: [["application.process.binary": .equals("spotify")]],
                               actions: RuleActions(category: .playback, options: [.mixWithOthers]),
                               origin: "pw-policy.conf:120"),
        ])
        let spotify = ["application.process.binary": "spotify", "application.name": "Spotify"]
        #expect(try classifyStream(spotify, config: config).reason
            == #"rule #2 at pw-policy.conf:120 (application.process.binary = "spotify") → playback [mix-with-others]"#)
        #expect(try classifyStream(spotify).reason
            == #"application.process.binary = "spotify" (known music player) → playback"#)
        #expect(try classifyStream(["media.role": "Music"]).reason == #"media.role = "Music" → playback"#)
        #expect(try classifyStream(["media.name": "AudioStream"]).reason
            == "no rule, property or inference applied: default playback + mix-with-others")
        #expect(try classifyStream(["policy.category": "playback", "policy.options": "[ duck-others ]"]).reason
            == #"policy.category = "playback", policy.options = "[ duck-others ]" (set by the app) → playback [duck-others]"#)
    }

    @Test func overrideReasonSaysWhatItWasSetOn() throws {
        let classifier = try Classifier(config: classifierTestConfig())
        let facts = StreamFacts(nodeID: 57, direction: .playback, nodeProps: ["application.process.binary": "firefox"],
                                override: ClassificationOverride(category: .playback, options: [.duckOthers]))
        #expect(classifier.classify(facts, overrideScope: .app("firefox")).reason
            == #"override for app "firefox" (pw-policy set) → playback [duck-others]"#)
        #expect(classifier.classify(facts, overrideScope: .node(57)).reason
            == "override for stream 57 (pw-policy set) → playback [duck-others]")
        #expect(classifier.classify(facts).reason == "runtime override (pw-policy set) → playback [duck-others]")
        #expect(classifier.classify(facts).options == [.duckOthers])
    }

    @Test func overrideModeIsKept() throws {
        let result = try classifyStream(["media.role": "Music"],
                                  override: ClassificationOverride(category: .playback, mode: .spokenAudio))
        #expect(result.mode == .spokenAudio)
        #expect(result.reason.hasSuffix("→ playback (spoken-audio)"))
    }

    // MARK: config rules

    /// All matching rules apply in order; a later one overrides what an earlier
    /// one set (so a drop-in, merged after the shipped file, has the last word).
    @Test func laterMatchingRulesOverrideEarlierOnes() throws {
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["application.name": .regex("^Fire")]],
                               actions: RuleActions(category: .ambient, options: [.mixWithOthers])),
            ClassificationRule(matches: [["application.name": .equals("Firefox")]], actions: RuleActions(category: .record)),
            ClassificationRule(matches: [["application.name": .equals("Chromium")]], actions: RuleActions(category: .playback)),
        ])
        let result = try classifyStream(["application.name": "Firefox"], config: config)
        #expect(result.category == .record)
        #expect(result.options == [.mixWithOthers], "an option set by an earlier rule and not overridden stays")
        #expect(result.reason.hasPrefix(#"rule #2 (application.name = "Firefox") → record"#), "\(result.reason)")
        let other = try classifyStream(["application.name": "Firefighter"], config: config)
        #expect(other.category == .ambient)
    }

    @Test func rulesSeeClientPropsUnderNodeProps() throws {
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["application.process.binary": .equals("zoom"), "media.name": .equals("Ring")]],
                               actions: RuleActions(category: .systemSound)),
        ])
        let result = try classifyStream(["media.name": "Ring"], client: ["application.process.binary": "zoom"], config: config)
        #expect(result.category == .systemSound)
        #expect(result.source == .rule)
        let shadowed = try classifyStream(["media.name": "Ring", "application.process.binary": "zoom-helper"],
                                    client: ["application.process.binary": "zoom"], config: config)
        #expect(shadowed.source != .rule)
    }

    @Test func ruleWithoutCategoryAddsItsOptionsOnTopOfInference() throws {
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["application.name": .equals("Firefox")]],
                               actions: RuleActions(options: [.duckOthers], mode: .spokenAudio),
                               origin: "pw-policy.conf:30"),
        ])
        let result = try classifyStream(["application.name": "Firefox", "application.process.binary": "firefox"], config: config)
        #expect(result.category == .playback)
        #expect(result.options == [.duckOthers])
        #expect(result.mode == .spokenAudio)
        #expect(result.source == .inference)
        #expect(result.reason == #"application.process.binary = "firefox" (known browser) → playback [mix-with-others]; "#
            + #"rule #1 at pw-policy.conf:30 (application.name = "Firefox") sets options [duck-others] and mode spoken-audio"#)
    }

    @Test func ruleWithoutCategoryOnTopOfTheDefault() throws {
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["media.name": .equals("AudioStream")]], actions: RuleActions(options: [])),
        ])
        let result = try classifyStream(["media.name": "AudioStream"], config: config)
        #expect(result.category == .playback)
        #expect(result.options.isEmpty)
        #expect(result.source == .default)
        #expect(result.reason.hasSuffix(#"; rule #1 (media.name = "AudioStream") sets options [] (none)"#))
    }

    @Test func exemptAndPreferredTargetApplyWhateverDecidedTheCategory() throws {
        let target = TargetPreference(matches: [["node.name": .equals("alsa_output.usb-headset")]])
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["application.process.binary": .equals("mumble")]],
                               actions: RuleActions(exempt: true, preferTarget: target), origin: "pw-policy.conf:7"),
        ])
        let props = ["application.process.binary": "mumble"]
        let overridden = try classifyStream(props, override: ClassificationOverride(category: .playAndRecord), config: config)
        #expect(overridden.category == .playAndRecord)
        #expect(overridden.exempt)
        #expect(overridden.preferredTarget == target)
        #expect(overridden.reason.contains(#"rule #1 at pw-policy.conf:7 (application.process.binary = "mumble") exempts it"#))
        #expect(overridden.reason.contains(#"prefers the output matching node.name = "alsa_output.usb-headset""#))
        let plain = try classifyStream(props)
        #expect(!plain.exempt)
        #expect(plain.preferredTarget == nil)
    }

    @Test func invalidRuleRegexFailsAtInit() {
        let config = classifierTestConfig(rules: [
            ClassificationRule(matches: [["application.name": .regex("([")]], actions: RuleActions(category: .ambient)),
        ])
        #expect(throws: POSIXRegex.CompileError.self) { try Classifier(config: config) }
    }

    // MARK: stream properties

    @Test func streamOptionsWithoutCategorySitOnTopOfTheRule() throws {
        let config = classifierTestConfig(rules: [Self.recordRule])
        let result = try classifyStream(["application.process.binary": "spotify", "policy.options": "mix-with-others"],
                                  config: config)
        #expect(result.category == .record)
        #expect(result.options == [.mixWithOthers])
        #expect(result.source == .rule)
        #expect(result.reason.hasSuffix(#"; policy.options = "mix-with-others" (set by the app) sets options [mix-with-others]"#))
    }

    @Test func overrideOptionsAreNotWidenedByTheStream() throws {
        let result = try classifyStream(["policy.options": "[ duck-others ]"],
                                  override: ClassificationOverride(category: .playback))
        #expect(result.options.isEmpty)
        #expect(result.source == .override)
    }

    @Test func policyPropsOnTheClientAreIgnored() throws {
        let result = try classifyStream(["media.role": "Game"], client: ["policy.category": "record"])
        #expect(result.category == .soloAmbient)
        #expect(result.source == .inference)
    }

    @Test func garbageCategoryWarnsAndFallsThrough() throws {
        let result = try classifyStream(["policy.category": "musik", "media.role": "Music"])
        #expect(result.category == .playback)
        #expect(result.source == .inference)
        #expect(result.warnings == [
            #"policy.category "musik" is not a category; expected one of ambient, solo-ambient, playback, record, "#
                + "play-and-record, audio-processing, system-sound; ignored",
        ])
    }

    @Test func partlyUnknownOptionsKeepTheKnownOnes() throws {
        let result = try classifyStream(["policy.category": "playback", "policy.options": "[ duck, mix-with-others ]"])
        #expect(result.options == [.mixWithOthers])
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains(#""duck" is not an option"#) == true)
        #expect(result.warnings.first?.hasSuffix(#"; "duck" ignored"#) == true)
    }

    @Test func whollyUnknownOptionsAreIgnored() throws {
        let result = try classifyStream(["policy.options": "{ loud }", "application.process.binary": "firefox"])
        #expect(result.options == [.mixWithOthers])
        #expect(result.source == .inference)
        #expect(result.warnings.first?.hasSuffix("; ignored") == true)
    }

    @Test func garbageModeWarns() throws {
        let result = try classifyStream(["policy.category": "playback", "policy.mode": "whisper"])
        #expect(result.mode == .default)
        #expect(result.category == .playback)
        #expect(result.warnings == [#"policy.mode "whisper" is not a mode; expected default or spoken-audio; ignored"#])
    }

    static let optionSpellingCases: [(String, Set<PolicyOption>)] = [
        ("[ duck-others, mix-with-others ]", [.duckOthers, .mixWithOthers]),
        ("[ duck-others mix-with-others ]", [.duckOthers, .mixWithOthers]),
        (#"["duck-others","mix-with-others"]"#, [.duckOthers, .mixWithOthers]),
        ("duck-others,mix-with-others", [.duckOthers, .mixWithOthers]),
        (" 'interrupt-spoken-audio' ", [.interruptSpokenAudio]),
        ("DuckOthers mixWithOthers", [.duckOthers, .mixWithOthers]),
        ("[ ]", []),
        ("", []),
    ]

    @Test(arguments: optionSpellingCases)
    func optionSpellings(raw: String, expected: Set<PolicyOption>) {
        let parsed = StreamPropertyPolicy.parseOptions(raw)
        #expect(parsed.options == expected)
        #expect(parsed.unknown.isEmpty)
    }

    static let categorySpellingCases: [(String, Category)] = [
        ("playback", .playback), ("Play-And-Record", .playAndRecord), ("\"solo_ambient\"", .soloAmbient),
        ("systemSound", .systemSound), (" audio-processing ", .audioProcessing),
    ]

    @Test(arguments: categorySpellingCases)
    func categorySpellings(raw: String, expected: Category) throws {
        #expect(StreamPropertyPolicy.parseCategory(raw) == expected)
        #expect(try classifyStream(["policy.category": raw]).category == expected)
    }

    @Test func spokenAudioModeFromTheStream() throws {
        let result = try classifyStream(["policy.category": "playback", "policy.mode": "spoken-audio"])
        #expect(result.mode == .spokenAudio)
    }

    // MARK: inference switch and default

    @Test func inferenceOffFallsToTheDefault() throws {
        let result = try classifyStream(["media.role": "Game", "application.process.binary": "spotify"],
                                  config: classifierTestConfig(inference: false))
        #expect(result.category == .playback)
        #expect(result.options == [.mixWithOthers])
        #expect(result.source == .default)
        #expect(result.reason == "no rule or property applied and built-in inference is off: default playback + mix-with-others")
    }

    @Test func defaultComesFromSettings() throws {
        let result = try classifyStream([:], config: classifierTestConfig(defaultCategory: .ambient, defaultOptions: [.duckOthers]))
        #expect(result.category == .ambient)
        #expect(result.options == [.duckOthers])
        #expect(result.reason == "no rule, property or inference applied: default ambient + duck-others")
    }

    /// Whatever the props, classification answers with a reason and never traps.
    @Test func anyPropsClassify() async throws {
        let classifier = try Classifier(config: classifierTestConfig(rules: [
            ClassificationRule(matches: [["media.name": .regex("^[a-z]+$")]], actions: RuleActions(options: [.duckOthers])),
        ]))
        let keys = ["media.role", "policy.category", "policy.options", "policy.mode", "application.name",
                    "application.process.binary", "application.id", "event.id", "stream.monitor", "media.name",
                    "node.link-group", "pipewire.access.portal.app_id", "media.category", "canberra.cache-control"]
        let interesting = ["", " ", "[", "]", "[ ]", "Music", "event", "a11y", "true", "1", "spotify",
                           "org.mozilla.firefox", "sd_espeak-ng", "duck-others", "playback", "\"", ",", "é"]
        // Half the values are ones the classifier reacts to, half arbitrary ASCII.
        let value = zip(Gen.int(in: 0..<(interesting.count * 2)), Gen<Character>.ascii.string(of: 0...12))
            .map { pick, random in pick < interesting.count ? interesting[pick] : random }
        let props = zip(Gen.int(in: 0..<keys.count).map { keys[$0] }, value).dictionary(ofAtMost: 0...6)
        await propertyCheck(input: props, Gen.bool, Gen.bool) { props, capture, duplex in
            let facts = StreamFacts(nodeID: 1, direction: capture ? .capture : .playback, nodeProps: props,
                                    appAlsoStreamsOtherDirection: duplex)
            let result = classifier.classify(facts)
            #expect(!result.reason.isEmpty)
            #expect(result.reason.contains("→") || result.source == .default)
        }
    }
}
