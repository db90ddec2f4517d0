import PolicyCore

/// The shipped defaults spelled out: ConfigTests checks that
/// conf/pw-policy.conf says exactly this, so the engine tests can use it
/// without reading files. Rule numbers in comments are the ones explanations show.
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
        rule(category(.audioProcessing), any, .mix, "audio processing (DSP, meters, effects) neither plays nor records for the user"),
        rule(any, category(.audioProcessing), .mix, "audio processing (DSP, meters, effects) neither plays nor records for the user"),
        // 3, 4, 5
        rule(category(.record), category(.systemSound), .silenceIncoming, "while a recording is in progress, no alerts sound"),
        rule(category(.record), any, .mix, "a recording is never interrupted: losing it loses data; on a desktop a recording often captures what plays (OBS)"),
        rule(any, category(.record), .mix, "starting a recording does not stop what plays; it may be what is being recorded"),
        // 6, 7
        rule(category(.playAndRecord), SessionSelector(options: [.duckOthers]), .mix, "prompts and screen readers stay audible during a call; the call is not ducked"),
        rule(SessionSelector(options: [.duckOthers]), category(.playAndRecord), .mix, "prompts and screen readers stay audible during a call; the call is not ducked"),
        // 8, 9, 10
        rule(category(.playAndRecord), category(.systemSound), .silenceIncoming, "no alert sounds during a call"),
        rule(category(.playAndRecord), category(.playAndRecord), .interrupt(resumable: true), "a new call puts the older one on hold; it resumes when the new one ends"),
        rule(SessionSelector(categories: [.playAndRecord], mixable: false), any, .holdIncoming, "nothing interrupts a call; other audio waits until it ends"),
        // 11
        rule(category(.systemSound), any, .mix, "a short alert is never cut off"),
        // 12
        rule(any, SessionSelector(categories: [.playAndRecord], mixable: false), .interrupt(resumable: true), "a call can always interrupt; the interrupted audio resumes after it"),
        // 13
        rule(any, category(.systemSound), .mix, "on a desktop, notification sounds mix with other audio"),
        // 14
        rule(SessionSelector(categories: [.ambient, .soloAmbient, .playback], mode: .spokenAudio),
             SessionSelector(options: [.interruptSpokenAudio]),
             .interrupt(resumable: true), "spoken audio (audiobook, podcast) pauses rather than talking over a prompt, and resumes after"),
        // 15, 16
        rule(any, SessionSelector(options: [.duckOthers]), .duck(level: nil), "the incoming session asked to duck other audio (duck-others)"),
        rule(SessionSelector(options: [.duckOthers]), any, .duckIncoming(level: nil), "the active session ducks other audio (duck-others), including what starts after it"),
        // 17, 18
        rule(SessionSelector(mixable: true), any, .mix, "the active session mixes with others"),
        rule(any, SessionSelector(mixable: true), .mix, "the incoming session mixes with others"),
        // 19
        rule(any, any, .interrupt(resumable: false), "two non-mixable sessions: the newer one wins; the older one does not resume on its own"),
    ]

    private static func rule(_ active: SessionSelector, _ incoming: SessionSelector, _ action: InteractionAction,
                             _ why: String) -> InteractionRule {
        InteractionRule(active: active, incoming: incoming, action: action, why: why)
    }
}
