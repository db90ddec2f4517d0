import PolicyCore

/// The shipped defaults (conf/pw-policy.conf), built in code until the tests
/// can load that file. Rule numbers in comments are the ones explanations show.
enum DefaultPolicyConfig {
    static let config = PolicyConfig(
        settings: Settings(duckLevel: 0.2, fadeDownMs: 250, fadeUpMs: 500, debounceMs: 300,
                           defaultCategory: .playback, defaultOptions: [.mixWithOthers], inference: true),
        categories: [
            .ambient: CategoryTraits(mixable: true, silencedInSilentMode: true),
            .soloAmbient: CategoryTraits(mixable: false, silencedInSilentMode: true),
            .playback: CategoryTraits(mixable: false, silencedInSilentMode: false),
            .record: CategoryTraits(mixable: false, silencedInSilentMode: false),
            .playAndRecord: CategoryTraits(mixable: false, silencedInSilentMode: false),
            .audioProcessing: CategoryTraits(mixable: true, silencedInSilentMode: false),
            .systemSound: CategoryTraits(mixable: true, silencedInSilentMode: true),
        ],
        interactions: interactions,
        rules: [])

    static let any = SessionSelector.any

    static func category(_ category: Category) -> SessionSelector {
        SessionSelector(categories: [category])
    }

    static let interactions: [InteractionRule] = [
        // 1, 2
        rule(category(.audioProcessing), any, .mix, "audio processing is no sound of its own"),
        rule(any, category(.audioProcessing), .mix, "audio processing is no sound of its own"),
        // 3, 4, 5
        rule(category(.record), category(.systemSound), .silenceIncoming, "no alerts while recording"),
        rule(category(.record), any, .mix, "a recording is never interrupted"),
        rule(any, category(.record), .mix, "recording does not stop other audio"),
        // 6, 7
        rule(category(.playAndRecord), SessionSelector(options: [.duckOthers]), .mix, "prompts are heard over a call"),
        rule(SessionSelector(options: [.duckOthers]), category(.playAndRecord), .mix, "a call is never ducked"),
        // 8, 9, 10
        rule(category(.playAndRecord), category(.systemSound), .silenceIncoming, "no alerts during a call"),
        rule(category(.playAndRecord), category(.playAndRecord), .interrupt(resumable: true), "a new call holds the current one"),
        rule(SessionSelector(categories: [.playAndRecord], mixable: false), any, .holdIncoming,
             "nothing starts over a call; it waits until the call ends"),
        // 11
        rule(category(.systemSound), any, .mix, "alerts are short and mix"),
        // 12
        rule(any, SessionSelector(categories: [.playAndRecord], mixable: false), .interrupt(resumable: true),
             "a call can always interrupt, and the interrupted resume after it"),
        // 13
        rule(any, category(.systemSound), .mix, "notification sounds mix on the desktop"),
        // 14
        rule(SessionSelector(categories: [.ambient, .soloAmbient, .playback], mode: .spokenAudio),
             SessionSelector(options: [.interruptSpokenAudio]),
             .interrupt(resumable: true), "spoken audio pauses rather than ducks"),
        // 15, 16
        rule(any, SessionSelector(options: [.duckOthers]), .duck(level: nil), "the incoming session asked to duck others"),
        rule(SessionSelector(options: [.duckOthers]), any, .duckIncoming(level: nil), "the active session ducks others"),
        // 17, 18
        rule(SessionSelector(mixable: true), any, .mix, "the active session mixes"),
        rule(any, SessionSelector(mixable: true), .mix, "the incoming session mixes"),
        // 19
        rule(any, any, .interrupt(resumable: false), "the newer non-mixable session wins"),
    ]

    private static func rule(_ active: SessionSelector, _ incoming: SessionSelector, _ action: InteractionAction,
                             _ why: String) -> InteractionRule {
        InteractionRule(active: active, incoming: incoming, action: action, why: why)
    }
}
