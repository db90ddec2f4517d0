// The reaction benchmark: the agent under test, WirePlumber and a load
// generator on a sandboxed PipeWire, timed by an independent observer client.
// Run through bench/run (it starts the sandbox and builds in release mode):
//   pw-policy-observer --remote SOCKET --agent PW_POLICY --loader PW_POLICY_LOAD
//                      --sandbox DIR [--sizes 10,100,500] [--events 200] [--idle 60]
//                      [--harm-events 50] [--hold-events N] [--startup-runs 5]
//                      [--test-player PW_POLICY_TEST_PLAYER] [--storm-seconds 10]
// Prints markdown tables on stdout and progress on stderr.
import Foundation
import PolicyCore
import PolicyFiles
import PolicyAgent
import PolicyPipeWire

func parseOptions(_ arguments: [String]) throws -> BenchOptions {
    var values: [String: String] = [:]
    var index = 0
    while index < arguments.count {
        let key = arguments[index]
        guard key.hasPrefix("--"), index + 1 < arguments.count else { throw BenchError("unexpected argument '\(key)'") }
        values[String(key.dropFirst(2))] = arguments[index + 1]
        index += 2
    }
    func required(_ key: String) throws -> String {
        guard let value = values[key] else { throw BenchError("--\(key) is required") }
        return value
    }
    let sandbox = try required("sandbox")
    var options = BenchOptions(remote: try required("remote"), agent: try required("agent"),
                               loader: try required("loader"), directory: values["logs"] ?? sandbox, sandbox: sandbox)
    if let sizes = values["sizes"] {
        options.sizes = sizes.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
    }
    if let events = values["events"].flatMap(Int.init) { options.events = max(1, events) }
    if let harm = values["harm-events"].flatMap(Int.init) { options.harmEvents = max(1, harm) }
    if let holds = values["hold-events"].flatMap(Int.init) { options.holdEvents = max(1, holds) }
    if let idle = values["idle"].flatMap(Double.init) { options.idleSeconds = idle }
    if let runs = values["startup-runs"].flatMap(Int.init) { options.startupRuns = max(0, runs) }
    options.testPlayer = values["test-player"]
    if let storm = values["storm-seconds"].flatMap(Double.init) { options.stormSeconds = storm }
    if let extra = values["agent-args"] { options.agentArguments = extra.split(separator: " ").map(String.init) }
    options.idleSize = options.sizes.contains(100) ? 100 : options.sizes.first ?? 0
    options.startupSize = options.sizes.max() ?? 0
    return options
}

func note(_ text: String) {
    FileHandle.standardError.write(Data("bench: \(text)\n".utf8))
}

/// Overwrites one progress line on stderr.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("\r\u{1B}[Kbench: \(text)".utf8))
}

/// The settings the agent runs with (bench/run points PW_POLICY_CONFIG_DIR
/// at conf/): the harm run waits its fades and debounce.
func agentSettings() throws -> Settings {
    try ConfigLoader(environment: ProcessInfo.processInfo.environment, fileSystem: .live,
                     dialect: PipeWireLibrary.configDialect).load().config.settings
}

func runBenchmark(_ options: BenchOptions) throws -> String {
    let schedule = HarmRun.Schedule(settings: try agentSettings())
    let scene = try Scene(options: options)
    defer {
        scene.stopAgent()
        scene.load.end()
    }
    _ = try scene.startAgent()
    try scene.waitForAgent()
    var sizes: [SizeResult] = []
    var idle: IdleResult?
    var meters: MeterResult?
    var storm: BusStormResult?
    var startups: [StartupResult] = []
    for size in options.sizes.sorted() {
        note("\(size) background streams: starting them")
        try scene.ensureBackground(size)
        var result = SizeResult(streams: size)
        result.duck = DuckRun.run(scene: scene, events: options.events, label: "\(size)") {
            progress("\(size) streams: duck event \($0)/\(options.events)")
        }
        FileHandle.standardError.write(Data("\n".utf8))
        let holdEvents = options.holdEvents ?? options.events
        result.hold = HoldRun.run(scene: scene, events: holdEvents, label: "\(size)") {
            progress("\(size) streams: hold event \($0)/\(holdEvents)")
        }
        FileHandle.standardError.write(Data("\n".utf8))
        scene.observer.waitForQuiet(1)
        result.agent = scene.agentPID.flatMap(ProcessSample.init)
        result.wirePlumber = scene.wirePlumberPID.flatMap(ProcessSample.init)
        if size == options.idleSize, options.idleSeconds > 0 {
            note("\(size) streams: idle for \(Int(options.idleSeconds)) s")
            idle = try measureIdle(scene: scene, streams: size, seconds: options.idleSeconds)
            note("\(size) streams: what a meter costs, 3 × 10 s")
            meters = try MeterRun.run(scene: scene, streams: size, seconds: 10)
            if let testPlayer = options.testPlayer, options.stormSeconds > 0 {
                note("\(size) streams: a player flooding the session bus, 2 × \(Int(options.stormSeconds)) s")
                storm = try BusStormRun.run(scene: scene, testPlayer: testPlayer, streams: size,
                                            seconds: options.stormSeconds, duckEvents: min(options.events, 20))
            }
        }
        // After the memory and idle samples: it stops and restarts the agent.
        let harmEvents = HarmRun.events(requested: options.events, cap: options.harmEvents, streams: size)
        result.harm = try HarmRun.run(scene: scene, schedule: schedule, events: harmEvents, label: "\(size)") {
            progress("\(size) streams: harm event \($1)/\(harmEvents) \($0)")
        }
        FileHandle.standardError.write(Data("\n".utf8))
        sizes.append(result)
        if size == options.startupSize {
            for run in 0..<options.startupRuns {
                note("\(size) streams: agent start-up \(run + 1)/\(options.startupRuns)")
                do { startups.append(try StartupRun.run(scene: scene)) } catch { note("start-up run failed: \(error)") }
            }
        }
    }
    return Report.render(sizes: sizes, idle: idle, meters: meters, storm: storm, startups: startups)
}

func measureIdle(scene: Scene, streams: Int, seconds: Double) throws -> IdleResult {
    scene.observer.waitForQuiet(1)
    guard let agentPID = scene.agentPID, let wirePlumberPID = scene.wirePlumberPID,
          let agentBefore = ProcessSample(pid: agentPID), let wirePlumberBefore = ProcessSample(pid: wirePlumberPID)
    else { throw BenchError("cannot read /proc for the agent or WirePlumber") }
    scene.observer.pump(seconds)
    guard let agentAfter = ProcessSample(pid: agentPID), let wirePlumberAfter = ProcessSample(pid: wirePlumberPID)
    else { throw BenchError("the agent or WirePlumber went away while idle") }
    return IdleResult(streams: streams, seconds: seconds,
                      agentCPU: agentAfter.cpuSeconds - agentBefore.cpuSeconds,
                      agentWakeups: agentAfter.contextSwitches - agentBefore.contextSwitches,
                      wirePlumberCPU: wirePlumberAfter.cpuSeconds - wirePlumberBefore.cpuSeconds,
                      wirePlumberWakeups: wirePlumberAfter.contextSwitches - wirePlumberBefore.contextSwitches)
}

do {
    let options = try parseOptions(Array(CommandLine.arguments.dropFirst()))
    print(try runBenchmark(options))
} catch {
    note("\(error)")
    exit(1)
}
