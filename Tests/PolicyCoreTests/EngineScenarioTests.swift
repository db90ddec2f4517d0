import Testing
import PolicyCore

// Scenarios from docs/POLICY.md's rules as tables: each step is the observed state at a
// time; the engine's decision is checked against the expected gains, holds and
// events, and its memory is fed into the next step.

let speakers = OutputInput(id: 1, name: "Speakers", isPrivate: false)
let headphones = OutputInput(id: 2, name: "Headphones", isPrivate: true)

/// A stream of a scenario, named for the table.
struct TestStream {
    var name: String
    var id: UInt32
    var app: String
    var category: Category
    var options: Set<PolicyOption> = []
    var mode: AudioMode = .default
    var direction: StreamDirection = .playback
    var output: UInt32? = speakers.id
    var exempt = false
    var preferredTarget: TargetPreference?
    /// Streams of one app and category form one session.
    var session: SessionKey { SessionKey("\(app)/\(category.rawValue)") }

    var classification: Classification {
        Classification(category: category, options: options, mode: mode, exempt: exempt, source: .rule,
                       reason: "test", preferredTarget: preferredTarget)
    }

    func input(running: Bool, output: UInt32?, unlinked: Bool = false, audibility: Audibility? = nil) -> StreamInput {
        StreamInput(id: id, session: session, appName: app, direction: direction, classification: classification,
                    isRunning: running, output: running ? output : nil, isUnlinked: unlinked, audibility: audibility)
    }
}

/// What a step expects of one stream.
enum Expect: Equatable {
    case plays
    case ducked(Double)
    case silenced
    case interrupted(by: String, resumable: Bool)
    case waiting(for: String)
    case routeLost(String)
    /// Not playing, waiting at this gain: what it would meet if it started.
    case standby(Double)
}

/// An event, with streams named as in the table.
enum ExpectedEvent {
    case interruptionBegan(String, by: String, resumable: Bool)
    case interruptionEnded(String, shouldResume: Bool)
    case duckBegan(String, by: String, level: Double)
    case duckEnded(String)
    case silenced(String)
    case unsilenced(String)
    case route(RouteChangeReason, String)
    case heldForRoute(String, output: String)
    case resumed(String)
}

struct Step {
    /// nil: at the previous decision's `nextWakeup`.
    var at: Double?
    var running: [String] = []
    /// Not running because nothing links them any more.
    var unlinked: [String] = []
    /// Streams that exist; nil = every stream of the scenario.
    var present: [String]? = nil
    /// nil = the previous step's outputs.
    var outputs: [OutputInput]? = nil
    var defaultOutput: UInt32? = speakers.id
    var silent = false
    /// The screen casts shared this step (presenting).
    var screenCasts: [ScreenCast] = []
    /// What says the session is locked this step (nil: unlocked).
    var locked: String? = nil
    /// Streams whose sessions their app ended with "notify others".
    var ended: [String] = []
    var resume: [String] = []
    /// Where running streams play this step, when not their usual output.
    var playingOn: [String: UInt32] = [:]
    var expect: [String: Expect] = [:]
    /// nil = not checked; otherwise exactly these, in this order.
    var events: [ExpectedEvent]? = nil
    /// Checked when set: the decision's nextWakeup.
    var wakeup: Double?? = nil
    /// What the meters on metered streams read this step.
    var metered: [String: Audibility] = [:]

    static func at(_ time: Double?, running: [String] = [], unlinked: [String] = [], present: [String]? = nil,
                   outputs: [OutputInput]? = nil,
                   defaultOutput: UInt32? = speakers.id, silent: Bool = false, screenCasts: [ScreenCast] = [],
                   locked: String? = nil, ended: [String] = [],
                   resume: [String] = [], playingOn: [String: UInt32] = [:], expect: [String: Expect] = [:],
                   events: [ExpectedEvent]? = nil, wakeup: Double?? = nil) -> Step {
        Step(at: time, running: running, unlinked: unlinked, present: present, outputs: outputs, defaultOutput: defaultOutput,
             silent: silent, screenCasts: screenCasts, locked: locked, ended: ended, resume: resume, playingOn: playingOn,
             expect: expect, events: events, wakeup: wakeup)
    }

    /// A step at the time the previous decision asked to be woken.
    static func atWakeup(running: [String] = [], present: [String]? = nil, silent: Bool = false,
                         expect: [String: Expect] = [:], events: [ExpectedEvent]? = nil) -> Step {
        Step(at: nil, running: running, present: present, silent: silent, expect: expect, events: events)
    }
}

struct Scenario {
    var streams: [TestStream]
    var outputs: [OutputInput] = [speakers]
    var config = DefaultPolicyConfig.config

    func stream(_ name: String) -> TestStream {
        guard let stream = streams.first(where: { $0.name == name }) else {
            Issue.record("no stream \(name) in the scenario")
            return TestStream(name: name, id: 0, app: "?", category: .playback)
        }
        return stream
    }

    func event(_ expected: ExpectedEvent) -> PolicyEvent {
        switch expected {
        case .interruptionBegan(let name, let by, let resumable):
            .interruptionBegan(session: stream(name).session, by: stream(by).session, resumable: resumable)
        case .interruptionEnded(let name, let shouldResume):
            .interruptionEnded(session: stream(name).session, shouldResume: shouldResume)
        case .duckBegan(let name, let by, let level):
            .duckBegan(session: stream(name).session, by: stream(by).session, level: level)
        case .duckEnded(let name): .duckEnded(session: stream(name).session)
        case .silenced(let name): .silenced(session: stream(name).session)
        case .unsilenced(let name): .unsilenced(session: stream(name).session)
        case .route(let reason, let output): .routeChanged(reason: reason, output: output)
        case .heldForRoute(let name, let output): .heldForRoute(stream: stream(name).id, output: output)
        case .resumed(let name): .resumed(stream: stream(name).id)
        }
    }

    /// Runs the steps, feeding memory forward; returns the decisions.
    @discardableResult
    func run(_ steps: [Step], sourceLocation: SourceLocation = #_sourceLocation) -> [PolicyDecision] {
        let engine = PolicyEngine(config: config)
        var memory = EngineMemory.empty
        var outputs = self.outputs
        var previous: PolicyDecision?
        var decisions: [PolicyDecision] = []
        for (number, step) in steps.enumerated() {
            guard let now = step.at ?? previous?.nextWakeup else {
                Issue.record("step \(number + 1): no time and no wakeup was asked for", sourceLocation: sourceLocation)
                return decisions
            }
            outputs = step.outputs ?? outputs
            let present = step.present.map { Set($0) }
            let inputs = streams.filter { present?.contains($0.name) ?? true }.map { stream in
                stream.input(running: step.running.contains(stream.name), output: step.playingOn[stream.name] ?? stream.output,
                             unlinked: step.unlinked.contains(stream.name), audibility: step.metered[stream.name])
            }
            let input = PolicyInput(now: now, streams: inputs, outputs: outputs, defaultOutput: step.defaultOutput,
                                    silentMode: step.silent, resumeRequests: Set(step.resume.map { stream($0).id }),
                                    screenCasts: step.screenCasts, screenLocked: step.locked,
                                    endedSessions: Set(step.ended.map { stream($0).session }))
            let decision = engine.decide(input, memory: memory)
            check(step, number: number + 1, decision, sourceLocation: sourceLocation)
            memory = decision.memory
            previous = decision
            decisions.append(decision)
        }
        return decisions
    }

    private func check(_ step: Step, number: Int, _ decision: PolicyDecision, sourceLocation: SourceLocation) {
        for (name, expected) in step.expect.sorted(by: { $0.key < $1.key }) {
            let stream = stream(name)
            guard let actual = decision.streams[stream.id] else {
                Issue.record("step \(number): no decision for \(name)", sourceLocation: sourceLocation)
                continue
            }
            let held = stream.direction == .playback ? 0.0 : 1.0
            let wanted: (gain: Double, hold: HoldReason?, silenced: Bool)
            switch expected {
            case .plays: wanted = (1, nil, false)
            case .ducked(let level): wanted = (stream.direction == .playback ? level : 1, nil, false)
            case .silenced: wanted = (stream.direction == .playback ? 0 : 1, nil, stream.direction == .playback)
            case .interrupted(let by, let resumable):
                wanted = (held, .interrupted(by: self.stream(by).session, app: self.stream(by).app, resumable: resumable), false)
            case .waiting(let by):
                wanted = (held, .waiting(for: self.stream(by).session, app: self.stream(by).app), false)
            case .routeLost(let output): wanted = (0, .routeLost(output: output), false)
            case .standby(let gain): wanted = (gain, nil, false)
            }
            #expect(actual.gain == wanted.gain, "step \(number): gain of \(name)", sourceLocation: sourceLocation)
            #expect(actual.hold == wanted.hold, "step \(number): hold of \(name)", sourceLocation: sourceLocation)
            #expect(actual.silenced == wanted.silenced, "step \(number): silenced \(name)", sourceLocation: sourceLocation)
        }
        if let events = step.events {
            #expect(decision.events == events.map(event), "step \(number): events", sourceLocation: sourceLocation)
        }
        if let wakeup = step.wakeup {
            #expect(decision.nextWakeup == wakeup, "step \(number): next wakeup", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct EngineScenarioTests {
    static let music = TestStream(name: "music", id: 10, app: "Music", category: .playback)
    static let player = TestStream(name: "player", id: 11, app: "Video", category: .playback)
    static let game = TestStream(name: "game", id: 20, app: "Game", category: .ambient)
    static let soloGame = TestStream(name: "soloGame", id: 21, app: "Racer", category: .soloAmbient)
    static let prompt = TestStream(name: "prompt", id: 30, app: "Maps", category: .playback, options: [.duckOthers])
    static let nextPrompt = TestStream(name: "nextPrompt", id: 31, app: "Maps", category: .playback, options: [.duckOthers])
    static let callOut = TestStream(name: "callOut", id: 40, app: "Zoom", category: .playAndRecord)
    static let callIn = TestStream(name: "callIn", id: 41, app: "Zoom", category: .playAndRecord, direction: .capture, output: nil)
    static let notification = TestStream(name: "notification", id: 50, app: "Notifier", category: .systemSound)
    static let recorder = TestStream(name: "recorder", id: 60, app: "Recorder", category: .record, direction: .capture, output: nil)
    static let book = TestStream(name: "book", id: 70, app: "Books", category: .playback, mode: .spokenAudio)
    static let reader = TestStream(name: "reader", id: 71, app: "Orca", category: .playback,
                                   options: [.duckOthers, .interruptSpokenAudio])

    @Test func ambientMixesWithPlayback() {
        Scenario(streams: [Self.music, Self.game]).run([
            .at(0, running: ["music"], expect: ["music": .plays, "game": .plays], events: []),
            .at(1, running: ["music", "game"], expect: ["music": .plays, "game": .plays], events: [], wakeup: .some(nil)),
            .at(2, running: ["game"], expect: ["game": .plays]),
        ])
        // In the other order as well.
        Scenario(streams: [Self.music, Self.game]).run([
            .at(0, running: ["game"]),
            .at(1, running: ["music", "game"], expect: ["music": .plays, "game": .plays], events: []),
        ])
    }

    /// The shipped config with solo-ambient always solo-ambient, for the
    /// scenarios that use a game to interrupt what played before it.
    static let soloAlways: PolicyConfig = {
        var config = DefaultPolicyConfig.config
        config.settings.soloAmbientMixesWithPlaying = false
        return config
    }()

    @Test func soloAmbientInterruptsPlaybackWithoutResuming() {
        Scenario(streams: [Self.music, Self.soloGame], config: Self.soloAlways).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music", "soloGame"],
                expect: ["music": .interrupted(by: "soloGame", resumable: false), "soloGame": .plays],
                events: [.interruptionBegan("music", by: "soloGame", resumable: false)]),
            // Music is idle now (unlinked) but still wants to play: still held, nothing new.
            .at(2, running: ["soloGame"], expect: ["music": .interrupted(by: "soloGame", resumable: false)], events: []),
            .at(4.9, running: ["soloGame"]),
            // The game stops: a short gap is not the end yet.
            .at(5, running: [], expect: ["music": .interrupted(by: "soloGame", resumable: false)], events: [],
                wakeup: 4.9 + 0.3),
            // Released, but listeners are told not to press play.
            .atWakeup(expect: ["music": .plays, "soloGame": .plays],
                      events: [.interruptionEnded("music", shouldResume: false)]),
        ])
    }

    /// A restarting WirePlumber takes its links along: the streams go idle
    /// though their apps still play, so nothing ends and nothing wakes up.
    @Test func sessionsWhoseLinksSomeoneElseRemovedStayActive() {
        Scenario(streams: [Self.player, Self.soloGame], config: Self.soloAlways).run([
            .at(0, running: ["player"]),
            .at(1, running: ["player", "soloGame"], expect: ["player": .interrupted(by: "soloGame", resumable: false)]),
            .at(2, unlinked: ["player", "soloGame"],
                expect: ["player": .interrupted(by: "soloGame", resumable: false), "soloGame": .plays],
                events: [], wakeup: .some(nil)),
            .at(10, unlinked: ["player", "soloGame"], expect: ["player": .interrupted(by: "soloGame", resumable: false)], events: []),
            .at(11, running: ["soloGame"], expect: ["player": .interrupted(by: "soloGame", resumable: false)], events: []),
        ])
        Scenario(streams: [Self.music, Self.prompt]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music", "prompt"], expect: ["music": .ducked(0.2)]),
            .at(2, unlinked: ["music", "prompt"], expect: ["music": .ducked(0.2)], events: [], wakeup: .some(nil)),
            .at(10, running: ["music", "prompt"], expect: ["music": .ducked(0.2)], events: []),
        ])
        // Never active: an unlinked stream is not active either.
        Scenario(streams: [Self.music, Self.soloGame], config: Self.soloAlways).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music"], unlinked: ["soloGame"], expect: ["music": .plays], events: [], wakeup: .some(nil)),
        ])
    }

    @Test func navigationPromptDucksMusicAndRestoresIt() {
        Scenario(streams: [Self.music, Self.prompt, Self.nextPrompt]).run([
            .at(0, running: ["music"], present: ["music"]),
            .at(1, running: ["music", "prompt"], present: ["music", "prompt"],
                expect: ["music": .ducked(0.2), "prompt": .plays],
                events: [.duckBegan("music", by: "prompt", level: 0.2)]),
            .at(2, running: ["music", "prompt"], present: ["music", "prompt"]),
            // The phrase ends and its stream goes; the next phrase opens a new
            // stream 100 ms later: the music is not pumped in between.
            .at(2.05, running: ["music"], present: ["music"], expect: ["music": .ducked(0.2)], events: []),
            .at(2.15, running: ["music", "nextPrompt"], present: ["music", "nextPrompt"],
                expect: ["music": .ducked(0.2), "nextPrompt": .plays], events: []),
            .at(3, running: ["music", "nextPrompt"], present: ["music", "nextPrompt"]),
            .at(3.1, running: ["music"], present: ["music", "nextPrompt"], expect: ["music": .ducked(0.2)],
                events: [], wakeup: 3 + 0.3),
            .atWakeup(running: ["music"], present: ["music", "nextPrompt"], expect: ["music": .plays],
                      events: [.duckEnded("music")]),
        ])
    }

    @Test func musicStartingDuringAPromptIsDuckedToo() {
        Scenario(streams: [Self.music, Self.prompt]).run([
            .at(0, running: ["prompt"]),
            .at(1, running: ["prompt", "music"], expect: ["music": .ducked(0.2), "prompt": .plays],
                events: [.duckBegan("music", by: "prompt", level: 0.2)]),
        ])
    }

    @Test func phoneCallInterruptsMusicAndResumesItAfter() {
        Scenario(streams: [Self.music, Self.callOut, Self.callIn, Self.notification, Self.prompt]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music", "callOut", "callIn"],
                expect: ["music": .interrupted(by: "callOut", resumable: true), "callOut": .plays, "callIn": .plays],
                events: [.interruptionBegan("music", by: "callOut", resumable: true)]),
            .at(2, running: ["callOut", "callIn"], expect: ["music": .interrupted(by: "callOut", resumable: true)],
                events: [], wakeup: .some(nil)),
            // No alert over a call; a navigation prompt is heard over it and the call is not ducked.
            .at(3, running: ["callOut", "callIn", "notification", "prompt"],
                expect: ["notification": .silenced, "prompt": .plays, "callOut": .plays, "callIn": .plays,
                         "music": .interrupted(by: "callOut", resumable: true)],
                events: [.silenced("notification")]),
            .at(9.9, running: ["callOut", "callIn"]),
            .at(10, running: [], expect: ["music": .interrupted(by: "callOut", resumable: true)]),
            .atWakeup(expect: ["music": .plays], events: [.interruptionEnded("music", shouldResume: true)]),
        ])
    }

    @Test func playerStartedDuringACallWaitsUntilItEnds() {
        Scenario(streams: [Self.music, Self.callOut, Self.callIn]).run([
            .at(0, running: ["callOut", "callIn"]),
            .at(1, running: ["callOut", "callIn", "music"], expect: ["music": .waiting(for: "callOut"), "callOut": .plays],
                events: [.interruptionBegan("music", by: "callOut", resumable: true)]),
            // Asking to resume makes it the newest, but a call still keeps it waiting.
            .at(2, running: ["callOut", "callIn"], resume: ["music"], expect: ["music": .waiting(for: "callOut")], events: []),
            .at(2.1, running: []),
            .atWakeup(expect: ["music": .plays, "callOut": .plays],
                      events: [.interruptionEnded("music", shouldResume: true)]),
        ])
    }

    @Test func aSecondCallHoldsTheFirst() {
        let otherCall = TestStream(name: "otherCall", id: 45, app: "Phone", category: .playAndRecord)
        Scenario(streams: [Self.callOut, otherCall]).run([
            .at(0, running: ["callOut"]),
            .at(1, running: ["callOut", "otherCall"],
                expect: ["callOut": .interrupted(by: "otherCall", resumable: true), "otherCall": .plays]),
        ])
    }

    @Test func theNewerNonMixablePlayerWins() {
        Scenario(streams: [Self.music, Self.player]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music", "player"],
                expect: ["music": .interrupted(by: "player", resumable: false), "player": .plays],
                events: [.interruptionBegan("music", by: "player", resumable: false)]),
            // The user resumes the older one: it becomes the newest and wins.
            .at(2, running: ["player"], resume: ["music"],
                expect: ["music": .plays, "player": .interrupted(by: "music", resumable: false)],
                events: [.interruptionEnded("music", shouldResume: false),
                         .interruptionBegan("player", by: "music", resumable: false), .resumed("music")]),
        ])
    }

    @Test func silentModeSilencesGameAndNotificationButNotMusic() {
        Scenario(streams: [Self.music, Self.game, Self.notification]).run([
            .at(0, running: ["music", "game", "notification"]),
            .at(1, running: ["music", "game", "notification"], silent: true,
                expect: ["music": .plays, "game": .silenced, "notification": .silenced],
                events: [.silenced("game"), .silenced("notification")]),
            .at(2, running: ["music", "game"], silent: false,
                expect: ["music": .plays, "game": .plays, "notification": .plays],
                events: [.unsilenced("game"), .unsilenced("notification")]),
        ])
    }

    @Test func aSilencedGameDoesNotInterruptMusic() {
        Scenario(streams: [Self.music, Self.soloGame]).run([
            // Silenced while still idle, so it cannot blip when it starts.
            .at(0, running: ["music"], silent: true, expect: ["soloGame": .silenced], events: [.silenced("soloGame")]),
            .at(1, running: ["music", "soloGame"], silent: true,
                expect: ["music": .plays, "soloGame": .silenced], events: []),
        ])
    }

    @Test func recordingHoldsAlertsAndIsNeverInterrupted() {
        Scenario(streams: [Self.recorder, Self.notification, Self.music, Self.callOut, Self.callIn, Self.soloGame],
                 config: Self.soloAlways).run([
            .at(0, running: ["recorder"]),
            .at(1, running: ["recorder", "notification"], expect: ["recorder": .plays, "notification": .silenced],
                events: [.silenced("notification")]),
            .at(2, running: ["recorder", "music"], expect: ["recorder": .plays, "music": .plays]),
            .at(3, running: ["recorder", "music", "soloGame"],
                expect: ["recorder": .plays, "soloGame": .plays, "music": .interrupted(by: "soloGame", resumable: false)]),
            .at(4, running: ["recorder", "soloGame", "callOut", "callIn"],
                expect: ["recorder": .plays, "callOut": .plays, "callIn": .plays,
                         "soloGame": .interrupted(by: "callOut", resumable: true)]),
        ])
    }

    @Test func unknownAppsMix() {
        let unknown = TestStream(name: "unknown", id: 90, app: "mystery", category: .playback, options: [.mixWithOthers])
        for first in ["music", "unknown", "soloGame"] {
            for second in ["music", "unknown", "soloGame"] where second != first && (first == "unknown" || second == "unknown") {
                Scenario(streams: [Self.music, Self.soloGame, unknown]).run([
                    .at(0, running: [first]),
                    .at(1, running: [first, second], expect: [first: .plays, second: .plays], events: []),
                ])
            }
        }
    }

    @Test func spokenAudioIsPausedInsteadOfDucked() {
        Scenario(streams: [Self.book, Self.reader]).run([
            .at(0, running: ["book"], present: ["book"]),
            .at(1, running: ["book", "reader"], present: ["book", "reader"],
                expect: ["book": .interrupted(by: "reader", resumable: true), "reader": .plays]),
            .at(2, running: ["reader"], present: ["book", "reader"]),
            .at(2.2, running: [], present: ["book", "reader"]),
            .atWakeup(present: ["book", "reader"], expect: ["book": .plays],
                      events: [.interruptionEnded("book", shouldResume: true)]),
        ])
    }

    // MARK: routes

    @Test func unpluggingHeadphonesPausesUntilResumed() {
        var music = Self.music
        music.output = headphones.id
        Scenario(streams: [music], outputs: [speakers, headphones]).run([
            .at(0, running: ["music"], expect: ["music": .plays]),
            // The headphones go; WirePlumber already moved the stream to the speakers.
            .at(1, running: ["music"], outputs: [speakers], playingOn: ["music": speakers.id],
                expect: ["music": .routeLost("Headphones")],
                events: [.route(.oldDeviceUnavailable, "Headphones"), .heldForRoute("music", output: "Headphones")]),
            .at(2, running: [], outputs: [speakers], expect: ["music": .routeLost("Headphones")], events: []),
            .at(5, running: [], expect: ["music": .routeLost("Headphones")], events: [], wakeup: .some(nil)),
            .at(6, running: [], resume: ["music"], expect: ["music": .plays], events: [.resumed("music")]),
            .at(7, running: ["music"], playingOn: ["music": speakers.id], expect: ["music": .plays], events: []),
        ])
    }

    @Test func pluggingHeadphonesInAndPickingARouteContinue() {
        Scenario(streams: [Self.music], outputs: [speakers]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music"], outputs: [speakers, headphones], defaultOutput: headphones.id,
                playingOn: ["music": headphones.id], expect: ["music": .plays],
                events: [.route(.newDeviceAvailable, "Headphones")]),
            // The user picks the speakers: nothing pauses, though the headphones were private.
            .at(2, running: ["music"], defaultOutput: speakers.id, playingOn: ["music": speakers.id],
                expect: ["music": .plays], events: [.route(.userChoice, "Speakers")]),
            // The headphones go later: the music no longer played there.
            .at(3, running: ["music"], outputs: [speakers], expect: ["music": .plays],
                events: [.route(.oldDeviceUnavailable, "Headphones")]),
        ])
    }

    @Test(arguments: [
        // Laptop jack: the same sink switches from its headphones port to the speakers.
        OutputInput(id: 3, name: "Built-in Audio", isPrivate: false),
        // Bluetooth or a jack whose route reports unavailable.
        OutputInput(id: 3, name: "Built-in Audio", isPrivate: true, isAvailable: false),
    ])
    func aPrivateRouteThatChangesInPlaceCountsAsUnplugged(_ after: OutputInput) {
        let jack = OutputInput(id: 3, name: "Built-in Audio", isPrivate: true)
        var music = Self.music
        music.output = jack.id
        Scenario(streams: [music], outputs: [jack]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music"], outputs: [after], defaultOutput: jack.id,
                expect: ["music": .routeLost("Built-in Audio")],
                events: [.route(.oldDeviceUnavailable, "Built-in Audio"), .heldForRoute("music", output: "Built-in Audio")]),
            // Plugging back in does not resume it on its own.
            .at(2, running: [], outputs: [jack], defaultOutput: jack.id, expect: ["music": .routeLost("Built-in Audio")],
                events: [.route(.newDeviceAvailable, "Built-in Audio")]),
        ])
    }

    /// A card that reports its ports (EnumRoute): a jack pulled from the
    /// port the music plays to is an unplug, seen before WirePlumber switches
    /// the route (the headphones port unplugged, still active) or after (the
    /// speakers active); the speakers picked while the headphones stay plugged
    /// are the user's choice and hold nothing (docs/POLICY.md, route changes).
    @Test(arguments: [
        ("jack pulled, before the switch",
         OutputInput(id: 3, name: "Built-in Audio", isPrivate: false, port: "headphones", unpluggedPorts: ["headphones"]),
         true),
        ("jack pulled, after the switch",
         OutputInput(id: 3, name: "Built-in Audio", isPrivate: false, port: "speaker", unpluggedPorts: ["headphones"]),
         true),
        ("speakers picked, headphones still plugged (ACP: the speakers then read unplugged)",
         OutputInput(id: 3, name: "Built-in Audio", isPrivate: false, port: "speaker", unpluggedPorts: ["speaker"]),
         false),
        ("speakers picked, no port unplugged",
         OutputInput(id: 3, name: "Built-in Audio", isPrivate: false, port: "speaker", unpluggedPorts: []),
         false),
    ])
    func aPulledJackIsAnUnplugAPickedPortIsNot(_ label: String, _ after: OutputInput, _ unplug: Bool) {
        let card = OutputInput(id: 3, name: "Built-in Audio", isPrivate: true, port: "headphones", unpluggedPorts: ["speaker"])
        var music = Self.music
        music.output = card.id
        let decisions = Scenario(streams: [music], outputs: [card]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music"], outputs: [after], defaultOutput: card.id,
                expect: ["music": unplug ? .routeLost("Built-in Audio") : .plays],
                events: unplug ? [.route(.oldDeviceUnavailable, "Built-in Audio"), .heldForRoute("music", output: "Built-in Audio")]
                               : [.route(.userChoice, "Built-in Audio")]),
            // Later decisions keep it so: held until resumed, or playing on.
            .at(2, running: unplug ? [] : ["music"], outputs: [after], defaultOutput: card.id,
                expect: ["music": unplug ? .routeLost("Built-in Audio") : .plays], events: []),
        ])
        // explain tells the two apart, in the decision that saw it and after.
        for decision in decisions.dropFirst() {
            let lines = decision.streams[music.id]?.explanation ?? []
            #expect(lines.contains { $0.contains(unplug ? "(old-device-unavailable)" : "(user-choice), not an unplug") }, "\(label): \(lines)")
        }
    }

    @Test func unpluggingPausesNothingThatWasNotPlaying() {
        var music = Self.music
        music.output = headphones.id
        Scenario(streams: [music], outputs: [speakers, headphones]).run([
            .at(0, running: ["music"]),
            .at(1, running: []),
            .at(10, running: [], outputs: [speakers], expect: ["music": .plays]),
            // Pressing play afterwards plays on the speakers, as asked.
            .at(11, running: ["music"], playingOn: ["music": speakers.id], expect: ["music": .plays], events: []),
        ])
    }

    @Test func aCallGoesOnWhenItsHeadsetGoes() {
        var call = Self.callOut
        call.output = headphones.id
        Scenario(streams: [call, Self.callIn], outputs: [speakers, headphones]).run([
            .at(0, running: ["callOut", "callIn"]),
            .at(1, running: ["callOut", "callIn"], outputs: [speakers], playingOn: ["callOut": speakers.id],
                expect: ["callOut": .plays, "callIn": .plays], events: [.route(.oldDeviceUnavailable, "Headphones")]),
        ])
    }

    @Test func anInterruptedPlayerWhoseHeadphonesGoDoesNotResumeOnTheSpeakers() {
        var music = Self.music
        music.output = headphones.id
        Scenario(streams: [music, Self.callOut], outputs: [speakers, headphones]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music", "callOut"], expect: ["music": .interrupted(by: "callOut", resumable: true)]),
            // Held for the lost route, the session stops wanting to play: the
            // interruption ends, but there is nothing to resume.
            .at(2, running: ["callOut"], outputs: [speakers], expect: ["music": .routeLost("Headphones")],
                events: [.route(.oldDeviceUnavailable, "Headphones"), .heldForRoute("music", output: "Headphones"),
                         .interruptionEnded("music", shouldResume: false)]),
            .at(3, running: []),
            .at(4, running: [], expect: ["music": .routeLost("Headphones")], events: []),
        ])
    }

    // MARK: inactive sessions wait at the gain they would get

    /// An alert that opens while a recording runs is at gain 0 before it
    /// plays its first sample; then silenced as it runs; back to 1 once the
    /// recording is over. Nothing is reported for a session that never ran.
    @Test func streamsThatOpenDuringARecordingWaitSilenced() {
        Scenario(streams: [Self.recorder, Self.notification, Self.music]).run([
            .at(0, running: ["recorder"], expect: ["notification": .standby(0), "music": .plays], events: []),
            .at(1, running: ["recorder", "notification"], expect: ["notification": .silenced],
                events: [.silenced("notification")]),
            .at(1.1, running: ["recorder"], expect: ["notification": .silenced]),
            // Past the debounce it is inactive again: it waits, silent, as before it ran.
            .at(2, running: ["recorder"], expect: ["notification": .standby(0)], events: [.unsilenced("notification")]),
            .at(3, running: [], expect: ["notification": .plays]),
        ])
    }

    /// During a call, streams that do not play wait at gain 0: what starts
    /// is held (hold-incoming) or silenced (an alert) from its first sample.
    /// A prompt that ducks others waits at 0.2 for the music's sake.
    @Test func streamsThatDoNotPlayWaitAtTheGainTheyWouldGet() {
        Scenario(streams: [Self.callOut, Self.callIn, Self.music, Self.notification, Self.reader]).run([
            .at(0, running: ["callOut", "callIn"],
                expect: ["music": .standby(0), "notification": .standby(0), "reader": .plays], events: []),
            .at(1, running: ["callOut", "callIn", "music"], expect: ["music": .waiting(for: "callOut")]),
            .at(5, running: ["callOut", "callIn"], expect: ["music": .waiting(for: "callOut"), "notification": .standby(0)]),
            .at(5.1, running: [], expect: ["music": .waiting(for: "callOut")]),
            .atWakeup(expect: ["music": .plays, "notification": .plays]),
        ])
        Scenario(streams: [Self.prompt, Self.music, Self.game]).run([
            .at(0, running: ["prompt"], expect: ["music": .standby(0.2), "game": .standby(0.2)], events: []),
            .at(1, running: ["prompt", "music"], expect: ["music": .ducked(0.2)],
                events: [.duckBegan("music", by: "prompt", level: 0.2)]),
        ])
        // Silent mode already silences what it silences, playing or not.
        Scenario(streams: [Self.recorder, Self.notification]).run([
            .at(0, running: ["recorder"], silent: true, expect: ["notification": .silenced]),
        ])
    }

    @Test func anInactiveSessionsExplanationSaysWhatWouldHappenIfItStarted() throws {
        let decisions = Scenario(streams: [Self.recorder, Self.notification]).run([.at(0, running: ["recorder"])])
        let lines = try #require(decisions.first?.streams[Self.notification.id]?.explanation)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("not playing; waits at gain 0: if it starts, it is silenced while \"Recorder\" is active (rule 3:") == true,
                "\(lines)")
    }

    // MARK: ducking while audible

    /// A screen reader's stream runs from the daemon's start and between
    /// utterances: it ducks only while its meter reads sound, and for the
    /// quiet hold after (300 ms), with no debounce beyond it.
    @Test func aMeteredDuckerDucksOnlyWhileItCarriesSound() {
        func step(_ at: Double, _ reader: Audibility, _ expect: [String: Expect], events: [ExpectedEvent]? = nil,
                  wakeup: Double?? = nil) -> Step {
            var step = Step.at(at, running: ["music", "reader"], expect: expect, events: events, wakeup: wakeup)
            step.metered = ["reader": reader]
            return step
        }
        Scenario(streams: [Self.music, Self.reader]).run([
            step(0, .unmeasured, ["music": .plays], events: []),
            step(0.1, .notYetAudible, ["music": .plays], events: [], wakeup: .some(nil)),
            step(1, .audible, ["music": .ducked(0.2)], events: [.duckBegan("music", by: "reader", level: 0.2)]),
            // Quiet between words: still ducked within the hold, a wake-up at its end.
            step(2, .quiet(since: 1.9), ["music": .ducked(0.2)], events: [], wakeup: 1.9 + 0.3),
            step(2.1, .audible, ["music": .ducked(0.2)], events: []),
            step(3, .quiet(since: 2.95), ["music": .ducked(0.2)], wakeup: 2.95 + 0.3),
            .init(at: nil, running: ["music", "reader"], expect: ["music": .plays], events: [.duckEnded("music")],
                  wakeup: .some(nil), metered: ["reader": .quiet(since: 2.95)]),
        ])
    }

    /// A meter that has not measured yet changes nothing: a ducker that was
    /// active (an agent restarted mid-prompt) ducks on; one that was not
    /// waits for its first sound.
    @Test func anUnmeasuredMeterKeepsWhatWasSo() {
        Scenario(streams: [Self.music, Self.prompt]).run([
            .at(0, running: ["music", "prompt"], expect: ["music": .ducked(0.2)]),
            .init(at: 1, running: ["music", "prompt"], expect: ["music": .ducked(0.2)], events: [],
                  metered: ["prompt": .unmeasured]),
        ])
        Scenario(streams: [Self.music, Self.prompt]).run([
            .init(at: 0, running: ["music", "prompt"], expect: ["music": .plays], events: [], metered: ["prompt": .unmeasured]),
        ])
    }

    // MARK: games and the music

    /// The seeds' game: started while the user's music plays, it mixes as
    /// ambient and the music plays on; started alone, it is solo-ambient and
    /// music started later... still wins, as before (newer non-mixable).
    @Test func aGameNeverStopsTheMusicThatWasPlaying() {
        Scenario(streams: [Self.music, Self.soloGame]).run([
            .at(0, running: ["music"]),
            .at(1, running: ["music", "soloGame"], expect: ["music": .plays, "soloGame": .plays], events: []),
            // While the music plays, the game stays ambient.
            .at(5, running: ["music", "soloGame"], expect: ["music": .plays, "soloGame": .plays], events: []),
            // Music over: the game goes on, solo-ambient again.
            .at(6, running: ["soloGame"], expect: ["soloGame": .plays]),
        ])
        // The game first: solo-ambient, as ever. A player started after it
        // is the user's newer choice and wins.
        Scenario(streams: [Self.music, Self.soloGame]).run([
            .at(0, running: ["soloGame"]),
            .at(1, running: ["music", "soloGame"], expect: ["music": .plays, "soloGame": .interrupted(by: "music", resumable: false)]),
        ])
        // Starting in the same moment, the activation order decides (time,
        // then key: "Music/playback" before "Racer/solo-ambient"): the game
        // yields, and neither stops the other.
        Scenario(streams: [Self.music, Self.soloGame]).run([
            .at(0, running: ["music", "soloGame"], expect: ["music": .plays, "soloGame": .plays], events: []),
        ])
        // Only another app's playback counts: a game's own music does not make it yield.
        let ownMusic = TestStream(name: "ownMusic", id: 12, app: "Racer", category: .playback)
        Scenario(streams: [ownMusic, Self.soloGame, Self.player]).run([
            .at(0, running: ["ownMusic"]),
            .at(1, running: ["ownMusic", "soloGame"]),
            .at(2, running: ["ownMusic", "soloGame", "player"],
                expect: ["player": .plays, "soloGame": .interrupted(by: "player", resumable: false)]),
        ])
    }

    // MARK: one app never acts on itself

    /// A web call whose page stops its microphone: its playback becomes
    /// plain playback, a new session of the same app. Neither the call (in
    /// its debounce) nor anything else of the app holds it; music of another
    /// app that the call interrupted stays held by the browser's playback.
    @Test func anAppsCallThatEndsDoesNotHoldItsOwnPlayback() {
        let music = TestStream(name: "music", id: 10, app: "mpv", category: .playback)
        let call = TestStream(name: "call", id: 40, app: "pid:7", category: .playAndRecord)
        let mic = TestStream(name: "mic", id: 41, app: "pid:7", category: .playAndRecord, direction: .capture, output: nil)
        let page = TestStream(name: "page", id: 42, app: "pid:7", category: .playback)
        Scenario(streams: [music, call, mic, page]).run([
            .at(0, running: ["music"], present: ["music"]),
            .at(1, running: ["music", "call", "mic"], present: ["music", "call", "mic"],
                expect: ["music": .interrupted(by: "call", resumable: true)]),
            // The mic stops: the page's stream is now playback; the call lives on in its debounce.
            .at(1.1, running: ["page"], present: ["music", "page"],
                expect: ["page": .plays, "music": .interrupted(by: "call", resumable: true)], events: []),
            // The call is over: the music is released, and the page, a newer
            // non-mixable session of another app, interrupts it for good.
            .atWakeup(running: ["page"], present: ["music", "page"],
                      expect: ["page": .plays, "music": .interrupted(by: "page", resumable: false)]),
        ])
    }

    /// A screen reader's two streams (another output module, a second
    /// category) neither duck nor silence each other; other apps are ducked.
    @Test func anAppNeverDucksOrSilencesItself() {
        let speech = TestStream(name: "speech", id: 30, app: "pid:9", category: .playback, options: [.duckOthers])
        let click = TestStream(name: "click", id: 31, app: "pid:9", category: .systemSound)
        let own = TestStream(name: "own", id: 32, app: "pid:9", category: .ambient)
        let recorder = TestStream(name: "rec", id: 33, app: "pid:9", category: .record, direction: .capture, output: nil)
        Scenario(streams: [speech, click, own, Self.music]).run([
            .at(0, running: ["speech", "own", "music"], expect: ["own": .plays, "music": .ducked(0.2)]),
            .at(1, running: ["speech", "own", "click", "music"], expect: ["own": .plays, "click": .plays, "music": .ducked(0.2)]),
        ])
        Scenario(streams: [recorder, click, Self.notification]).run([
            .at(0, running: ["rec"], expect: ["click": .plays, "notification": .standby(0)]),
            .at(1, running: ["rec", "click", "notification"], expect: ["click": .plays, "notification": .silenced]),
        ])
    }

    // MARK: what is left alone, explanations, targets, memory

    @Test func exemptAndAudioProcessingStreamsAreLeftAlone() throws {
        var exempt = Self.player
        exempt.exempt = true
        let meter = TestStream(name: "meter", id: 80, app: "Meter", category: .audioProcessing)
        let decisions = Scenario(streams: [Self.music, exempt, meter]).run([
            .at(0, running: ["music", "player", "meter"], silent: true,
                expect: ["music": .plays, "player": .plays, "meter": .plays]),
        ])
        let decision = try #require(decisions.first)
        #expect(decision.streams[exempt.id]?.explanation.first?.hasPrefix("exempt") == true)
        #expect(decision.streams[meter.id]?.explanation.first?.hasPrefix("audio-processing") == true)
        #expect(decision.memory.sessions.keys.sorted() == [Self.music.session])
    }

    @Test func explanationsNameTheOtherSessionAndTheRule() throws {
        let decisions = Scenario(streams: [Self.music, Self.prompt, Self.soloGame, Self.callOut, Self.notification, Self.callIn])
            .run([
                .at(0, running: ["music"]),
                .at(1, running: ["music", "prompt"]),
                .at(2, running: ["music", "soloGame"], silent: true),
                .at(3, running: ["music", "callOut"]),
                .at(4, running: ["callOut", "notification"]),
                .at(5, running: ["callOut", "callIn"], present: ["callOut", "callIn"], silent: true),
            ])
        #expect(decisions[1].streams[Self.music.id]?.explanation == [
            "ducked to 0.20 by \"Maps\" (rule 15: active * / incoming { options = [duck-others] } → duck: "
                + "the incoming session asked to duck other audio (duck-others))",
        ])
        #expect(decisions[1].streams[Self.prompt.id]?.explanation == ["full gain: nothing holds, ducks or silences it"])
        #expect(decisions[2].streams[Self.soloGame.id]?.explanation == [
            "solo-ambient, mixing as ambient: \"Music\" was playing when it started (solo-ambient.mix-with-playing)",
            "silenced: silent mode (ambient is silenced in silent mode)",
        ])
        let held = try #require(decisions[3].streams[Self.music.id]?.explanation.first)
        #expect(held.hasPrefix("held: interrupted by \"Zoom\", resumes when it ends (rule 12: "))
        let alert = try #require(decisions[4].streams[Self.notification.id]?.explanation.first)
        #expect(alert.hasPrefix("silenced while \"Zoom\" is active (rule 8: active play-and-record / incoming system-sound"))
        #expect(decisions[5].streams[Self.callIn.id]?.explanation == ["full gain: nothing holds, ducks or silences it"])
    }

    @Test func captureIsNeverScaled() {
        let dictation = TestStream(name: "dictation", id: 61, app: "Dictation", category: .playback,
                                   direction: .capture, output: nil)
        Scenario(streams: [dictation, Self.prompt]).run([
            .at(0, running: ["dictation"]),
            .at(1, running: ["dictation", "prompt"], expect: ["dictation": .ducked(0.2)],
                events: [.duckBegan("dictation", by: "prompt", level: 0.2)]),
        ])
    }

    @Test func preferredTargetIsTheFirstAvailableMatchingOutput() {
        let usb = OutputInput(id: 5, name: "USB DAC", isPrivate: false, props: ["node.name": "alsa_output.usb-dac"])
        let usbGone = OutputInput(id: 6, name: "Other DAC", isPrivate: false, isAvailable: false,
                                  props: ["node.name": "alsa_output.usb-other"])
        var music = Self.music
        music.preferredTarget = TargetPreference(matches: [["node.name": .regex("^alsa_output\\.usb")]])
        let decisions = Scenario(streams: [music, Self.player], outputs: [speakers, usbGone, usb]).run([
            .at(0, running: ["music"]),
        ])
        #expect(decisions.first?.streams[music.id]?.preferredTarget == usb.id)
        #expect(decisions.first?.streams[Self.player.id]?.preferredTarget == nil)
    }

    @Test func memoryForgetsStreamsAndSessionsThatAreGone() {
        let decisions = Scenario(streams: [Self.music, Self.player]).run([
            .at(0, running: ["music", "player"]),
            .at(10, running: [], present: ["player"]),
        ])
        #expect(decisions[0].memory.streams.keys.sorted() == [Self.music.id, Self.player.id])
        #expect(decisions[0].memory.held == [Self.music.id: .interrupted])
        #expect(decisions[1].memory.streams.keys.sorted() == [Self.player.id])
        #expect(decisions[1].memory.sessions.isEmpty)
        #expect(decisions[1].memory.interruptions.isEmpty)
        #expect(decisions[1].events == [.interruptionEnded(session: Self.music.session, shouldResume: false)])
    }

    @Test func aSteadyStateAsksForNoWakeup() {
        Scenario(streams: [Self.music, Self.prompt, Self.callOut]).run([
            .at(0, running: ["music", "prompt"], wakeup: .some(nil)),
            .at(1, running: ["music", "prompt", "callOut"], wakeup: .some(nil)),
            .at(2, running: ["prompt", "callOut"], wakeup: .some(nil)),
        ])
    }
}
