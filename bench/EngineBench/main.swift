// Prints the decision engine's cost at several graph sizes (not a test: no
// assertion on time). Build in release:
//   swift run -c release --scratch-path .build-engine pw-policy-engine-bench
import PolicyCore
import PolicyFiles

/// The shipped configuration, from the checkout this was built in.
func defaultConfig() -> LoadedConfig {
    let root = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
    do {
        return try ConfigLoader(environment: [:], fileSystem: .live).load(file: root + "/conf/pw-policy.conf")
    } catch {
        fatalError("cannot load \(root)/conf/pw-policy.conf: \(error)")
    }
}

/// A desktop-like mix: mostly unclassified streams (playback that mixes),
/// players, notifications, games, a few prompts, calls and recorders, one
/// session per app with one or two streams, spread over four outputs.
func graph(streams count: Int) -> (streams: [StreamInput], outputs: [OutputInput]) {
    let outputs = [OutputInput(id: 1, name: "Speakers", isPrivate: false),
                   OutputInput(id: 2, name: "Headphones", isPrivate: true),
                   OutputInput(id: 3, name: "HDMI", isPrivate: false),
                   OutputInput(id: 4, name: "Bluetooth", isPrivate: true)]
    let kinds: [(Category, Set<PolicyOption>, AudioMode, weight: Int)] = [
        (.playback, [.mixWithOthers], .default, 50), (.playback, [], .default, 15), (.systemSound, [], .default, 10),
        (.ambient, [], .default, 9), (.playback, [.duckOthers], .default, 5), (.soloAmbient, [], .default, 4),
        (.playback, [], .spokenAudio, 2), (.playAndRecord, [], .default, 3), (.record, [], .default, 2),
    ]
    let wheel = kinds.flatMap { kind in Array(repeating: kind, count: kind.weight) }
    var streams: [StreamInput] = []
    var app = 0
    while streams.count < count {
        let kind = wheel[(app * 37) % wheel.count]
        let key = SessionKey("app\(app):\(kind.0.rawValue)")
        let classification = Classification(category: kind.0, options: kind.1, mode: kind.2, source: .rule, reason: "bench")
        let output = UInt32(1 + app % outputs.count)
        if kind.0 != .record {
            streams.append(StreamInput(id: UInt32(100 + streams.count), session: key, appName: "App \(app)",
                                       direction: .playback, classification: classification,
                                       isRunning: app % 3 != 0, output: output))
        }
        if (kind.0 == .record || kind.0 == .playAndRecord), streams.count < count {
            streams.append(StreamInput(id: UInt32(100 + streams.count), session: key, appName: "App \(app)",
                                       direction: .capture, classification: classification, isRunning: true))
        }
        app += 1
    }
    return (streams, outputs)
}

struct Measurement {
    var decisions: Int
    var seconds: Double
    var sessions: Int
    var perSecond: Double { Double(decisions) / seconds }
    var microseconds: Double { seconds / Double(decisions) * 1_000_000 }
}

/// Decides repeatedly in `rounds` rounds of about `budget` seconds each,
/// feeding memory forward, and keeps the fastest round: the machine is
/// shared, and other work only ever makes a round slower.
/// `churn` starts or stops one stream before every decision.
func measure(streams count: Int, churn: Bool, rounds: Int = 5, budget: Double = 0.15) -> Measurement {
    let engine = PolicyEngine(config: shippedConfig)
    var (streams, outputs) = graph(streams: count)
    var input = PolicyInput(now: 0, streams: streams, outputs: outputs, defaultOutput: 1)
    var memory = engine.decide(input, memory: .empty).memory
    let clock = ContinuousClock()
    var best: Measurement?
    var checksum = 0.0
    for _ in 0..<rounds {
        var decisions = 0
        let start = clock.now
        var elapsed = Duration.zero
        while elapsed < .seconds(budget) {
            for _ in 0..<10 {
                input.now += 0.001
                if churn {
                    let index = (decisions * 7919) % streams.count
                    streams[index].isRunning.toggle()
                    input.streams = streams
                }
                let decision = engine.decide(input, memory: memory)
                memory = decision.memory
                checksum += decision.streams.first?.value.gain ?? 0
                decisions += 1
            }
            elapsed = clock.now - start
        }
        let seconds = milliseconds(elapsed) / 1000
        let round = Measurement(decisions: decisions, seconds: seconds, sessions: memory.sessions.count)
        if best.map({ round.microseconds < $0.microseconds }) ?? true { best = round }
    }
    if checksum.isNaN { print("unreachable") }
    return best ?? Measurement(decisions: 0, seconds: 1, sessions: 0)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale), fraction = scaled % Int(scale)
    let fractionText = String(fraction)
    return digits == 0 ? "\(whole)" : "\(whole)." + String(repeating: "0", count: digits - fractionText.count) + fractionText
}

/// The journal written before the gains of every reaction (journal before
/// acting): how long encoding it takes with `count` streams ducked mid-fade
/// and the engine's memory of the bench's graph, best of 5
/// (docs/PERFORMANCE.md, "Limits found").
func journalEncodingMilliseconds(streams count: Int) -> (milliseconds: Double, bytes: Int) {
    var journal = AgentJournal()
    let (streams, outputs) = graph(streams: count)
    journal.memory = PolicyEngine(config: shippedConfig)
        .decide(PolicyInput(now: 0, streams: streams, outputs: outputs, defaultOutput: 1), memory: .empty).memory
    for index in 0..<count {
        journal.applied[UInt32(100 + index)] = AppliedStream(
            serial: UInt64(1000 + index), commandedGain: 0.5, commandedAt: 12.5, confirmed: true,
            ramp: GainRamp(from: 1, to: 0.2, start: 12.25, duration: 0.25))
    }
    let clock = ContinuousClock()
    var best = Double.infinity, bytes = 0
    for _ in 0..<5 {
        let start = clock.now
        bytes = (try? journal.encoded().count) ?? 0
        let elapsed = clock.now - start
        best = min(best, milliseconds(elapsed))
    }
    return (best, bytes)
}

let shippedLoadedConfig = defaultConfig()
let shippedConfig = shippedLoadedConfig.config
// Sizes may be given as arguments (e.g. `pw-policy-engine-bench 1000` to
// profile one size), and `--agent` for the agent's turn alone.
let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }.filter { $0 > 0 }

if !CommandLine.arguments.contains("--agent") {
    print("pw-policy decision engine, default matrix (one decision = the whole graph, memory fed forward;")
    print("best of 5 rounds; steady = same graph, churn = one stream starts or stops before each decision)")
    print(pad("streams", 8), pad("active", 7), pad("steady/s", 10), pad("µs each", 9), pad("churn/s", 10), pad("µs each", 9))
    for count in sizes.isEmpty ? [10, 100, 1000] : sizes {
        let steady = measure(streams: count, churn: false)
        let churn = measure(streams: count, churn: true)
        print(pad("\(count)", 8), pad("\(steady.sessions)", 7),
              pad(fixed(steady.perSecond, 0), 10), pad(fixed(steady.microseconds, 1), 9),
              pad(fixed(churn.perSecond, 0), 10), pad(fixed(churn.microseconds, 1), 9))
    }

    print("")
    print("journal encoding (written before the gains of every reaction), best of 5")
    print(pad("streams", 8), pad("KiB", 7), pad("ms", 9))
    for count in sizes.isEmpty ? [10, 100, 1000] : sizes {
        let result = journalEncodingMilliseconds(streams: count)
        print(pad("\(count)", 8), pad(fixed(Double(result.bytes) / 1024, 1), 7), pad(fixed(result.milliseconds, 2), 9))
    }
    print("")
    let apps = AppKnowledgeCost.measure(environment: currentEnvironment())
    print("app knowledge on this machine, best of 5: \(apps.entries) desktop entries in \(apps.directories) directories "
          + "read in \(fixed(apps.indexMilliseconds, 1)) ms (at start, and when they change); one process read from /proc "
          + "with 4 ancestors \(fixed(apps.processMicroseconds, 0)) µs (once per new process); a client's facts resolved "
          + "\(fixed(apps.resolveMicroseconds, 1)) µs (when its properties change)")
    print("")
}

print("the agent's turn when a duck-others stream starts beside N playing streams (AgentCore), best of 5, ms:")
print("before the gains = reconcile + journal encoding; publish = statuses and events, after the gains;")
print("confirm = the next reconcile and its publish, once the daemon reported the gains")
print(pad("streams", 8), pad("gains", 6), pad("reconcile", 10), pad("journal", 8), pad("publish", 8), pad("confirm", 8))
for count in sizes.isEmpty ? [10, 100, 500] : sizes {
    let result = reconcileMilliseconds(streams: count)
    print(pad("\(count)", 8), pad("\(result.gains)", 6), pad(fixed(result.react, 2), 10), pad(fixed(result.journal, 2), 8),
          pad(fixed(result.publish, 2), 8), pad(fixed(result.confirm, 2), 8))
}

print("")
print("the agent's turns (reconcile and publish) while WirePlumber links a new plain stream beside N playing streams,")
print("median of 21, ms: appears = the node with its ports, linked = once WirePlumber linked it (the harm row's wait)")
print(pad("streams", 8), pad("appears", 8), pad("linked", 8))
for count in sizes.isEmpty ? [10, 100, 500] : sizes {
    let result = newStreamTurnMilliseconds(streams: count)
    print(pad("\(count)", 8), pad(fixed(result.appear, 2), 8), pad(fixed(result.linked, 2), 8))
}
