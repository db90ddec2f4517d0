// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// The include paths of the PipeWire and SPA headers installed, as
/// pkg-config gives them (docs/TESTING.md, "Two PipeWire stacks"). Only the
/// -I flags: the rest of `--cflags` (-D_REENTRANT, a no-op on glibc) is not
/// among the flags SwiftPM accepts from pkg-config and would earn a warning.
let pipewireIncludes: [String] = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags-only-I", "libpipewire-0.3", "libspa-0.2"]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return [] }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return [] }
    return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
}()
/// For C targets that include the headers, and Swift targets that import a
/// module including them.
let pipewireC: [CSetting] = [.unsafeFlags(pipewireIncludes)]
let pipewireSwift: [SwiftSetting] = [.unsafeFlags(pipewireIncludes.flatMap { ["-Xcc", $0] })]

/// The functions a run of the agent calls, written by `scripts/order-agent-text`.
let agentHotText = Context.packageDirectory + "/Sources/pw-policy-agent/hot-text.order"
/// The release agent (pw-policy-agent) carries the Swift runtime inside it,
/// not as shared libraries, so it only has in memory the pages it uses; not
/// PIE, so the loader does not relocate (and dirty) the runtime's metadata at
/// start; unused sections dropped; its symbols not exported to the dynamic
/// loader (a 0.5 MB table that was resident whole); linked by lld, which
/// lays out first the functions the agent runs, listed in `agentHotText`
/// (docs/PERFORMANCE.md, "Memory" and "The agent's code, scattered over its
/// binary").
let agentLinking: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xclang-linker", "-no-pie", "-Xlinker", "--gc-sections",
                  "-Xlinker", "--no-export-dynamic",
                  "-Xlinker", "--symbol-ordering-file=\(agentHotText)", "-Xlinker", "--no-warn-symbol-ordering"],
                 .when(configuration: .release)),
]
/// The agent's modules: in release, each function in a section of its own,
/// so that the linker can place it among the hot ones (C:
/// `-ffunction-sections`); and none imports _StringProcessing, which would
/// link it and the regex parser it brings (0.9 MB of code) into the agent:
/// `containsText` stands in for its `contains` (docs/PERFORMANCE.md, "The
/// agent's code, scattered over its binary").
let agentModule: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"]),
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
]
let agentModuleC: [CSetting] = [.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))]

let package = Package(
    name: "pw-policy",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pw-policy", targets: ["pw-policy"]),
        .library(name: "PolicyCore", targets: ["PolicyCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // Functions wrapping the libpipewire/libspa macros Swift cannot import.
        .target(name: "CPipeWire", cSettings: pipewireC + agentModuleC),
        // libsystemd's sd-bus (libsystemd-dev): every function used is plain C
        // that Swift imports as is, so this is a module map only (docs/PLAYERS.md).
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd"),
        // glibc's <malloc.h> (malloc_trim), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // The pure policy: no PipeWire import, deterministic, unit-tested.
        .target(name: "PolicyModel", swiftSettings: agentModule),
        // PipeWire and WirePlumber versions and what they offer (docs/ARCHITECTURE.md).
        .target(name: "PolicyStack", dependencies: ["PolicyModel"], swiftSettings: agentModule),
        // What the agent publishes and the CLI reads: the wire protocol.
        .target(name: "PolicyProtocol", dependencies: ["PolicyModel", "PolicyStack"], swiftSettings: agentModule),
        .target(name: "PolicyCore", dependencies: ["PolicyModel", "PolicyStack", "PolicyProtocol"], swiftSettings: agentModule),
        // The files the agent and the CLI read and write: config, journal.
        .target(name: "PolicyFiles", dependencies: ["PolicyCore"], swiftSettings: agentModule),
        // The native PipeWire client (Client/: loop, connection, graph mirror,
        // actions) and the agent on it (Agent/: observe, decide, execute).
        .target(name: "PolicyPipeWire", dependencies: ["CPipeWire", "PolicyCore", "PolicyFiles"],
                swiftSettings: pipewireSwift + agentModule),
        .target(name: "PolicyAgent", dependencies: ["CMalloc", "CPipeWire", "PolicyCore", "PolicyFiles", "PolicyPipeWire", "PolicyDBus"],
                swiftSettings: pipewireSwift + agentModule),
        // The session-bus client: sd-bus on a loop the caller provides (BusLoop,
        // which PolicyPipeWire's EventLoop satisfies), MPRIS players observed.
        .target(name: "PolicyDBus", dependencies: ["CSystemd", "PolicyCore", "PolicyFiles"], swiftSettings: agentModule),
        // What the CLI shows: pure renderers of the agent's published state.
        .target(name: "PolicyCLI", dependencies: ["PolicyCore"]),
        .executableTarget(
            name: "pw-policy",
            dependencies: [
                "PolicyCore", "PolicyFiles", "PolicyPipeWire", "PolicyAgent", "PolicyCLI", "PolicyDBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: pipewireSwift
        ),
        // `pw-policy run` hands over to this lean executable: the same agent
        // without Foundation or ArgumentParser (docs/PERFORMANCE.md, "Memory").
        .executableTarget(name: "pw-policy-agent", dependencies: ["PolicyCore", "PolicyAgent"], exclude: ["hot-text.order"],
                          swiftSettings: pipewireSwift + agentModule, linkerSettings: agentLinking),
        // What the tests and the benches build on (as NIOTestUtils): graphs
        // by hand, child processes.
        .target(name: "PolicyTestSupport", dependencies: ["PolicyCore", "PolicyFiles"], path: "Tests/Support"),
        .testTarget(
            name: "PolicyCoreTests",
            dependencies: [
                "PolicyCore", "PolicyFiles", "PolicyTestSupport", "CPipeWire",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // The real-world corpus is data the tests read from the source tree
            // (docs/CLASSIFICATION.md), not a bundled resource.
            exclude: ["Corpus"],
            swiftSettings: pipewireSwift
        ),
        .testTarget(name: "PolicyCLITests", dependencies: ["PolicyCLI", "PolicyCore", "PolicyFiles", "PolicyTestSupport"]),
        .testTarget(name: "PolicyDBusTests", dependencies: ["PolicyDBus", "PolicyCore", "PolicyFiles", "PolicyTestSupport"]),
        // The agent's adapters on the embedded loop (PolicyTestSupport's
        // EmbeddedEventLoop): the executor's timing, the reconcile schedule,
        // the restore's timing; no daemon (docs/ARCHITECTURE.md, "The loop and the clock").
        .testTarget(name: "PolicyAgentTests", dependencies: ["PolicyAgent", "PolicyCore", "PolicyFiles", "PolicyTestSupport"],
                    swiftSettings: pipewireSwift),
        .testTarget(name: "IntegrationTests", dependencies: ["PolicyCore", "PolicyFiles", "PolicyPipeWire", "PolicyAgent", "PolicyDBus",
                                                            "PolicyTestSupport"],
                    swiftSettings: pipewireSwift),
        // The plumbing the C programs below share (signals, commands on stdin, the
        // connection, replies on stdout), written once (docs/TESTING.md, "The helper programs").
        .target(name: "CHelperSupport", path: "Tests/HelperSupport", cSettings: pipewireC),
        // Prints decisions/second of the engine at several graph sizes (not a test).
        .executableTarget(name: "pw-policy-engine-bench", dependencies: ["PolicyCore", "PolicyFiles", "PolicyTestSupport"],
                          path: "bench/EngineBench"),
        // Many playback streams and null sinks in one process, driven by stdin (benchmarks, fault tests).
        .executableTarget(name: "pw-policy-load", dependencies: ["CPipeWire", "CHelperSupport"], path: "bench/Load",
                          cSettings: pipewireC, linkerSettings: [.linkedLibrary("pipewire-0.3"), .linkedLibrary("m")]),
        // A laptop sound card (Audio/Device with headphones and speaker Routes, and its
        // sink) for integration tests, driven by stdin (docs/TESTING.md, "The test card").
        .executableTarget(name: "pw-policy-test-card", dependencies: ["CPipeWire", "CHelperSupport"], path: "Tests/TestCard",
                          cSettings: pipewireC, linkerSettings: [.linkedLibrary("pipewire-0.3")]),
        // A screen cast as GNOME Shell makes one, and an app consuming it as
        // libwebrtc does, for the presenting tests (docs/POLICY.md, "Presenting").
        .executableTarget(name: "pw-policy-test-screencast", dependencies: ["CHelperSupport"], path: "Tests/TestScreenCast",
                          cSettings: pipewireC, linkerSettings: [.linkedLibrary("pipewire-0.3")]),
        // An MPRIS player with a tone stream, on the session bus and PipeWire, driven
        // over D-Bus and stdin, for the player tests (docs/PLAYERS.md, "The test player").
        .executableTarget(name: "pw-policy-test-player", dependencies: ["CPipeWire", "CHelperSupport"], path: "Tests/TestPlayer",
                          cSettings: pipewireC,
                          linkerSettings: [.linkedLibrary("pipewire-0.3"), .linkedLibrary("systemd"), .linkedLibrary("m")]),
        // Reaction latency, scale, memory and idle CPU of the agent beside WirePlumber (bench/run).
        .executableTarget(name: "pw-policy-observer", dependencies: ["PolicyCore", "PolicyFiles", "PolicyPipeWire", "PolicyAgent",
                                                                 "PolicyTestSupport"],
                          path: "bench/Observer", swiftSettings: pipewireSwift),
    ],
    swiftLanguageModes: [.v6]
)
