import Foundation
import Testing
@testable import PolicyCore

/// Locking silences what the silent switch silences (docs/POLICY.md,
/// "Screen lock"): the sources combined, the engine's silencing, the
/// agent's event and status.
@Suite struct ScreenLockTests {
    // MARK: sources combined

    struct CombineCase: CustomTestStringConvertible, Sendable {
        var name: String
        var readings: [ScreenLockSource: ScreenLock.Reading]
        var locked: Bool
        var summary: String
        var testDescription: String { name }
    }

    static let combineCases: [CombineCase] = [
        CombineCase(name: "nothing read", readings: [:], locked: false, summary: "no lock mechanism answers"),
        CombineCase(name: "all absent", readings: [.freedesktop: .absent, .gnome: .absent, .logind: .absent],
                    locked: false, summary: "no lock mechanism answers"),
        CombineCase(name: "GNOME locked", readings: [.gnome: .locked(true), .logind: .absent],
                    locked: true, summary: "locked (GNOME)"),
        CombineCase(name: "one says locked, another not", readings: [.freedesktop: .locked(false), .logind: .locked(true)],
                    locked: true, summary: "locked (logind)"),
        CombineCase(name: "unlocked where answered", readings: [.freedesktop: .locked(false), .logind: .locked(false)],
                    locked: false, summary: "unlocked (screen saver, logind)"),
        CombineCase(name: "an unusable source says nothing", readings: [.gnome: .unusable("a string"), .logind: .locked(false)],
                    locked: false, summary: "unlocked (logind)"),
    ]

    @Test(arguments: combineCases)
    func sourcesCombine(_ test: CombineCase) {
        let lock = ScreenLock.combine(ScreenLockSource.builtIn, readings: test.readings)
        print("screen lock \(test.name): \(lock.summary)")
        #expect(lock.isLocked == test.locked)
        #expect(lock.summary == test.summary)
    }

    // MARK: the engine

    static let music = EngineScenarioTests.music
    static let game = EngineScenarioTests.game
    static let soloGame = EngineScenarioTests.soloGame
    static let notification = EngineScenarioTests.notification
    static let recorder = EngineScenarioTests.recorder
    static let callOut = EngineScenarioTests.callOut
    static let callIn = EngineScenarioTests.callIn

    /// Ambient, solo-ambient and system sounds at gain 0 while locked,
    /// playing or not; unlocking restores them. Music, a recording and a
    /// call are never touched.
    @Test func lockingSilencesWhatSilentModeSilences() {
        Scenario(streams: [Self.music, Self.game, Self.notification]).run([
            .at(0, running: ["music", "game"], expect: ["music": .plays, "game": .plays, "notification": .plays]),
            .at(1, running: ["music", "game"], locked: "GNOME",
                expect: ["music": .plays, "game": .silenced, "notification": .silenced],
                events: [.silenced("game"), .silenced("notification")]),
            .at(2, running: ["music", "game", "notification"], locked: "GNOME",
                expect: ["music": .plays, "game": .silenced, "notification": .silenced]),
            .at(3, running: ["music", "game", "notification"],
                expect: ["music": .plays, "game": .plays, "notification": .plays],
                events: [.unsilenced("game"), .unsilenced("notification")]),
        ])
        // A recording goes on, and still silences the alert once unlocked.
        Scenario(streams: [Self.recorder, Self.notification]).run([
            .at(0, running: ["recorder"], locked: "GNOME", expect: ["recorder": .plays, "notification": .silenced]),
            .at(1, running: ["recorder", "notification"], locked: "GNOME", expect: ["recorder": .plays, "notification": .silenced]),
            .at(2, running: ["recorder", "notification"], expect: ["recorder": .plays, "notification": .silenced], events: []),
        ])
        // A call goes on, and a solo game locked takes no part: it does not hold the music.
        Scenario(streams: [Self.music, Self.soloGame]).run([
            .at(0, running: ["music"], locked: "logind"),
            .at(1, running: ["music", "soloGame"], locked: "logind",
                expect: ["music": .plays, "soloGame": .silenced]),
        ])
        Scenario(streams: [Self.callOut, Self.callIn]).run([
            .at(0, running: ["callOut", "callIn"], locked: "logind", expect: ["callOut": .plays, "callIn": .plays], events: []),
        ])
    }

    @Test func theExplanationNamesTheLock() {
        let decisions = Scenario(streams: [Self.notification, Self.game]).run([
            .at(0, running: ["notification", "game"], locked: "screen saver"),
        ])
        let line = decisions[0].streams[Self.notification.id]?.explanation
        print("explain: \(line ?? [])")
        #expect(line == ["silenced: the screen is locked (screen saver; silent.while-locked) (system-sound is silenced in silent mode)"])
        #expect(decisions[0].streams[Self.game.id]?.explanation
                == ["silenced: the screen is locked (screen saver; silent.while-locked) (ambient is silenced in silent mode)"])
    }

    // MARK: the agent

    /// The lock reaches the engine unless `silent.while-locked` is off; each
    /// change is a `screen-lock` event; the status says it.
    @Test(arguments: [true, false])
    func theAgentSilencesWhileLockedAndSaysSo(_ silences: Bool) throws {
        var config = DefaultPolicyConfig.config
        config.settings.silenceWhileLocked = silences
        var daemon = try InMemoryDaemon(config: config)
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.play(30, role: "Notification", app: "chat")
        daemon.settle()
        func lockStatus() throws -> ScreenLockStatus? {
            let text = try #require(daemon.agentEntry(AgentProtocol.agentKey))
            return try JSONDecoder().decode(AgentStatus.self, from: Data(text.utf8)).screenLock
        }
        #expect(try lockStatus() == ScreenLockStatus(locked: false, text: "no lock mechanism answers", silences: silences))
        daemon.screenLock = ScreenLock(lockedIn: ["GNOME"], answering: ["GNOME"])
        daemon.settle()
        #expect(daemon.gain(30) == (silences ? 0 : 1))
        #expect(daemon.gain(10) == 1, "the music plays on")
        #expect(try lockStatus() == ScreenLockStatus(locked: true, text: "locked (GNOME)", silences: silences))
        let locked = silences ? "screen locked (GNOME): what silent mode silences is silenced (silent.while-locked)"
                              : "screen locked (GNOME): nothing silenced (silent.while-locked = false)"
        #expect(daemon.logs.contains { $0.text == locked }, "\(daemon.logs.map(\.text))")
        daemon.screenLock = ScreenLock(lockedIn: [], answering: ["GNOME"])
        daemon.settle()
        #expect(daemon.gain(30) == 1)
        let unlocked = silences ? "screen unlocked (GNOME): what the lock silenced sounds again" : "screen unlocked (GNOME)"
        #expect(daemon.logs.contains { $0.text == unlocked })
        #expect(daemon.logs.filter { $0.text.hasPrefix("screen ") }.count == 2, "one event per change")
    }
}
