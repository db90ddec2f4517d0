// swift-tools-version: 6.0
import PackageDescription

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
        // include/pipewire and include/spa link to the Debian -dev headers
        // (pkg-config's -D_REENTRANT would only earn a SwiftPM warning).
        .target(name: "CPipeWire"),
        // libsystemd's sd-bus (libsystemd-dev): every function used is plain C
        // that Swift imports as is, so this is a module map only (docs/PLAYERS.md).
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd"),
        // The pure policy: no PipeWire import, deterministic, unit-tested.
        .target(name: "PolicyCore"),
        // The native PipeWire client: connection, graph mirror, actions.
        .target(name: "PolicyPipeWire", dependencies: ["CPipeWire", "PolicyCore", "PolicyDBus"]),
        // The session-bus client: sd-bus on a loop the caller provides (BusLoop,
        // which PolicyPipeWire's EventLoop satisfies), MPRIS players observed.
        .target(name: "PolicyDBus", dependencies: ["CSystemd", "PolicyCore"]),
        // What the CLI shows: pure renderers of the agent's published state.
        .target(name: "PolicyCLI", dependencies: ["PolicyCore"]),
        .executableTarget(
            name: "pw-policy",
            dependencies: [
                "PolicyCore", "PolicyPipeWire", "PolicyCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "PolicyCoreTests",
            dependencies: [
                "PolicyCore", "CPipeWire",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "PolicyCLITests", dependencies: ["PolicyCLI", "PolicyCore"]),
        .testTarget(name: "PolicyDBusTests", dependencies: ["PolicyDBus", "PolicyCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["PolicyCore", "PolicyPipeWire", "PolicyDBus"]),
        // Prints decisions/second of the engine at several graph sizes (not a test).
        .executableTarget(name: "pw-policy-engine-bench", dependencies: ["PolicyCore"], path: "bench/EngineBench"),
        // Many playback streams and null sinks in one process, driven by stdin (benchmarks, fault tests).
        .executableTarget(name: "pw-policy-load", dependencies: ["CPipeWire"], path: "bench/Load",
                          linkerSettings: [.linkedLibrary("pipewire-0.3")]),
        // A laptop sound card (Audio/Device with headphones and speaker Routes, and its
        // sink) for integration tests, driven by stdin (docs/TESTING.md, "The test card").
        .executableTarget(name: "pw-policy-test-card", dependencies: ["CPipeWire"], path: "Tests/TestCard",
                          linkerSettings: [.linkedLibrary("pipewire-0.3")]),
        // An MPRIS player with a tone stream, on the session bus and PipeWire, driven
        // over D-Bus and stdin, for the player tests (docs/PLAYERS.md, "The test player").
        .executableTarget(name: "pw-policy-test-player", dependencies: ["CPipeWire"], path: "Tests/TestPlayer",
                          linkerSettings: [.linkedLibrary("pipewire-0.3"), .linkedLibrary("systemd"), .linkedLibrary("m")]),
        // Reaction latency, scale, memory and idle CPU of the agent beside WirePlumber (bench/run).
        .executableTarget(name: "pw-policy-observer", dependencies: ["PolicyCore", "PolicyPipeWire"],
                          path: "bench/Observer"),
    ],
    swiftLanguageModes: [.v6]
)
