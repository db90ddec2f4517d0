import Foundation
import PolicyCore
import PropertyBased
import Testing

// Engine invariants over random sessions and random step sequences (streams
// starting, stopping, appearing and going, outputs coming and going, silent
// mode, resume requests), with the default matrix.

/// One generated session: a playback stream, and a capture stream when it records.
struct SessionSpec: Sendable, CustomStringConvertible {
    var index: Int
    var category: Category
    var options: Set<PolicyOption>
    var mode: AudioMode
    var captures: Bool
    var output: UInt32

    var app: String { "app\(index)" }
    var key: SessionKey { SessionKey("\(app):\(category.rawValue)") }
    var playbackID: UInt32? { category == .record ? nil : UInt32(100 + 2 * index) }
    var captureID: UInt32? { captures || category == .record ? UInt32(101 + 2 * index) : nil }
    var description: String {
        "\(index): \(category.rawValue)\(options.sorted().map(\.rawValue)) \(mode.rawValue) capture=\(captures) on \(output)"
    }
}

struct StepSpec: Sendable {
    var running: [Bool]
    var present: [Bool]
    var resume: [Bool]
    var silent: Bool
    var headphones: Bool
    var bluetoothAvailable: Bool
    var jackPrivate: Bool
    var millisecondsLater: Int
    var defaultOutput: UInt32
}

struct RandomScenario: Sendable, CustomStringConvertible {
    var sessions: [SessionSpec]
    var steps: [StepSpec]
    var description: String { "sessions: \(sessions), \(steps.count) steps" }

    static let speakers = OutputInput(id: 1, name: "Speakers", isPrivate: false)

    /// Streams of the sessions in order; index = bit in the step masks.
    var streamIDs: [(session: SessionSpec, id: UInt32, direction: StreamDirection)] {
        sessions.flatMap { session in
            [session.playbackID.map { (session, $0, StreamDirection.playback) },
             session.captureID.map { (session, $0, StreamDirection.capture) }].compactMap { $0 }
        }
    }

    func outputs(_ step: StepSpec) -> [OutputInput] {
        var outputs = [Self.speakers,
                       OutputInput(id: 3, name: "Bluetooth", isPrivate: true, isAvailable: step.bluetoothAvailable),
                       OutputInput(id: 4, name: "Built-in Audio", isPrivate: step.jackPrivate)]
        if step.headphones { outputs.append(OutputInput(id: 2, name: "Headphones", isPrivate: true)) }
        return outputs
    }

    /// The input of every step, with times.
    func inputs() -> [PolicyInput] {
        var now = 0.0
        return steps.map { step in
            now += Double(step.millisecondsLater) / 1000
            let outputs = outputs(step)
            let usable = Set(outputs.filter(\.isAvailable).map(\.id))
            var streams: [StreamInput] = []
            var resume: Set<UInt32> = []
            for (bit, stream) in streamIDs.enumerated() where step.present[bit % step.present.count] {
                let running = step.running[bit % step.running.count]
                // WirePlumber moves a stream whose output went to the speakers.
                let output = stream.direction == .capture ? nil
                    : usable.contains(stream.session.output) ? stream.session.output : Self.speakers.id
                let classification = Classification(category: stream.session.category, options: stream.session.options,
                                                    mode: stream.session.mode, source: .rule, reason: "generated")
                streams.append(StreamInput(id: stream.id, session: stream.session.key, appName: stream.session.app,
                                           direction: stream.direction, classification: classification,
                                           isRunning: running, output: running ? output : nil))
                if step.resume[bit % step.resume.count] { resume.insert(stream.id) }
            }
            return PolicyInput(now: now, streams: streams, outputs: outputs, defaultOutput: step.defaultOutput,
                               silentMode: step.silent, resumeRequests: resume)
        }
    }

    static let sessionGen = zip(Gen<Category>.case, Gen.int(in: 0...7), Gen.bool(0.2), Gen.bool(0.3),
                                Gen.int(in: 1...4)).map { category, mask, spoken, captures, output in
        SessionSpec(index: 0, category: category,
                    options: Set(PolicyOption.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)),
                    // Any category may be spoken audio, calls included: rule 14 only
                    // pauses ambient, solo-ambient and playback sessions.
                    mode: spoken ? .spokenAudio : .default,
                    captures: captures, output: UInt32(output))
    }

    static let stepGen = zip(Gen.bool(0.6).array(of: 12), Gen.bool(0.9).array(of: 12), Gen.bool(0.1).array(of: 12),
                             Gen.bool(0.2), Gen.bool(0.7), Gen.bool(0.7), Gen.bool(0.6), Gen.int(in: 0...700),
                             Gen.int(in: 1...4)).map { running, present, resume, silent, headphones, bluetooth, jack, later, output in
        StepSpec(running: running, present: present, resume: resume, silent: silent, headphones: headphones,
                 bluetoothAvailable: bluetooth, jackPrivate: jack, millisecondsLater: later, defaultOutput: UInt32(output))
    }

    static let gen = zip(sessionGen.array(of: 1...6), stepGen.array(of: 1...10)).map { sessions, steps in
        RandomScenario(sessions: sessions.enumerated().map { index, session in
            var numbered = session
            numbered.index = index
            return numbered
        }, steps: steps)
    }
}

@Suite struct EnginePropertyTests {
    let engine = PolicyEngine(config: DefaultPolicyConfig.config)

    /// Runs the inputs feeding memory forward.
    func run(_ inputs: [PolicyInput], from memory: EngineMemory = .empty) -> [(input: PolicyInput, before: EngineMemory, decision: PolicyDecision)] {
        var memory = memory
        return inputs.map { input in
            let decision = engine.decide(input, memory: memory)
            defer { memory = decision.memory }
            return (input, memory, decision)
        }
    }

    @Test func aCallIsNeverHeldByAnotherCategory() async {
        await propertyCheck(count: 300, input: RandomScenario.gen) { scenario in
            let categories = Dictionary(scenario.sessions.map { ($0.key, $0.category) }) { first, _ in first }
            for (number, step) in run(scenario.inputs()).enumerated() {
                for stream in step.input.streams where stream.classification.category == .playAndRecord {
                    switch step.decision.streams[stream.id]?.hold {
                    case nil: break
                    case .interrupted(let by, _, _), .waiting(let by, _):
                        #expect(categories[by] == .playAndRecord, "step \(number + 1): call \(stream.id) held by \(by)")
                    case .routeLost(let output):
                        Issue.record("step \(number + 1): call \(stream.id) held for the lost route \(output)")
                    }
                }
            }
        }
    }

    @Test func theEngineIsDeterministic() async throws {
        await propertyCheck(count: 200, input: RandomScenario.gen) { scenario in
            for (number, step) in run(scenario.inputs()).enumerated() {
                #expect(engine.decide(step.input, memory: step.before) == step.decision, "step \(number + 1): same input")
                var reordered = step.input
                reordered.streams.reverse()
                #expect(engine.decide(reordered, memory: step.before) == step.decision, "step \(number + 1): stream order")
                // The agent journals the memory: a restored memory decides the same.
                let journal = try JSONEncoder().encode(step.before)
                let restored = try JSONDecoder().decode(EngineMemory.self, from: journal)
                #expect(restored == step.before, "step \(number + 1): memory round trip")
                #expect(engine.decide(step.input, memory: restored) == step.decision, "step \(number + 1): restored memory")
            }
        }
    }

    @Test func releasingEverySessionRestoresEveryStream() async {
        await propertyCheck(count: 300, input: RandomScenario.gen) { scenario in
            let steps = run(scenario.inputs())
            guard let last = steps.last else { return }
            // Everything stops, silent mode goes off, and the user resumes whatever is held.
            var input = last.input
            input.now += 1
            input.silentMode = false
            input.resumeRequests = Set(input.streams.map(\.id))
            for index in input.streams.indices {
                input.streams[index].isRunning = false
                input.streams[index].output = nil
            }
            var decision = engine.decide(input, memory: last.decision.memory)
            input.resumeRequests = []
            var wakeups = 0
            while let wakeup = decision.nextWakeup, wakeups < 100 {
                #expect(wakeup >= input.now, "wakeups never go back in time")
                input.now = wakeup
                decision = engine.decide(input, memory: decision.memory)
                wakeups += 1
            }
            #expect(decision.nextWakeup == nil, "settles after \(wakeups) wakeups")
            for stream in input.streams {
                let outcome = decision.streams[stream.id]
                #expect(outcome?.gain == 1 && outcome?.hold == nil && outcome?.silenced == false
                        && outcome?.duckedBy.isEmpty == true, "stream \(stream.id): \(String(describing: outcome))")
            }
            #expect(decision.memory.sessions.isEmpty && decision.memory.held.isEmpty
                    && decision.memory.interruptions.isEmpty && decision.memory.ducked.isEmpty
                    && decision.memory.silenced.isEmpty)
        }
    }

    @Test func decisionsAreWellFormedAndEventsComeInPairs() async {
        await propertyCheck(count: 300, input: RandomScenario.gen) { scenario in
            var interrupted: Set<SessionKey> = [], ducked: Set<SessionKey> = [], silenced: Set<SessionKey> = []
            for (number, step) in run(scenario.inputs()).enumerated() {
                let label = "step \(number + 1)"
                #expect(Set(step.decision.streams.keys) == Set(step.input.streams.map(\.id)), "\(label): one decision per stream")
                for stream in step.input.streams {
                    guard let outcome = step.decision.streams[stream.id] else { continue }
                    #expect((0...1).contains(outcome.gain), "\(label): gain in 0…1")
                    #expect(!outcome.explanation.isEmpty, "\(label): every decision says why")
                    if stream.direction == .capture {
                        #expect(outcome.gain == 1, "\(label): capture is never scaled")
                    } else if outcome.hold != nil || outcome.silenced {
                        #expect(outcome.gain == 0, "\(label): held or silenced playback is at 0")
                    }
                }
                for event in step.decision.events {
                    switch event {
                    case .interruptionBegan(let session, _, _): interrupted.insert(session)
                    case .interruptionEnded(let session, _):
                        #expect(interrupted.remove(session) != nil, "\(label): \(event) without a beginning")
                    case .duckBegan(let session, _, _): ducked.insert(session)
                    case .duckEnded(let session):
                        #expect(ducked.remove(session) != nil, "\(label): \(event) without a beginning")
                    case .silenced(let session):
                        #expect(silenced.insert(session).inserted, "\(label): silenced twice")
                    case .unsilenced(let session):
                        #expect(silenced.remove(session) != nil, "\(label): \(event) without silenced")
                    case .routeChanged, .heldForRoute, .resumed: break
                    }
                }
                #expect(interrupted == Set(step.decision.memory.interruptions.keys), "\(label): interruption events match state")
                #expect(ducked == Set(step.decision.memory.ducked.keys), "\(label): duck events match state")
                #expect(silenced == step.decision.memory.silenced, "\(label): silence events match state")
            }
        }
    }
}
