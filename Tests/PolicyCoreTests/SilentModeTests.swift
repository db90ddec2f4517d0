import Foundation
import PolicyCore
import Testing

/// Silent mode from the user's switch and the desktop's Do Not Disturb
/// (docs/POLICY.md, "Do Not Disturb").
struct SilentModeTests {
    static let dunstOn = DoNotDisturb(onIn: ["dunst"], answering: ["dunst"])
    static let dunstOff = DoNotDisturb(onIn: [], answering: ["dunst"])

    @Test func sourcesCombineAndOnlyAnsweringOnesCount() {
        let readings: [DoNotDisturbSource: DoNotDisturb.Reading] = [
            .plasma: .absent, .gnome: .value("true"), .dunst: .value("true"),
        ]
        let state = DoNotDisturb.combine(DoNotDisturbSource.builtIn, readings: readings)
        #expect(state == DoNotDisturb(onIn: ["dunst"], answering: ["GNOME", "dunst"]))
        #expect(state.summary == "on in dunst")
        // GNOME's switch is "show banners": false is Do Not Disturb.
        let gnomeOnly = DoNotDisturb.combine(DoNotDisturbSource.builtIn, readings: [.gnome: .value("false"), .plasma: .unusable("a string")])
        #expect(gnomeOnly.onIn == ["GNOME"] && gnomeOnly.answering == ["GNOME"])
        #expect(DoNotDisturb.combine(DoNotDisturbSource.builtIn, readings: [:]).summary == "no desktop mechanism answers")
        #expect(Self.dunstOff.summary == "off (dunst)")
    }

    /// (choice, Do Not Disturb, following) → on?
    @Test(arguments: [
        (SilentChoice.follow, dunstOn, true, true), (.follow, dunstOff, true, false), (.follow, .unknown, true, false),
        (.on, dunstOff, true, true), (.off, dunstOn, true, false), (.follow, dunstOn, false, false), (.on, .unknown, false, true),
    ])
    func resolve(_ choice: SilentChoice, _ doNotDisturb: DoNotDisturb, _ following: Bool, _ on: Bool) {
        #expect(SilentMode.resolve(choice: choice, doNotDisturb: doNotDisturb, following: following).isOn == on)
    }

    /// A change of Do Not Disturb ends an explicit choice; a first reading,
    /// the same reading again, or no answer does not.
    @Test(arguments: [
        (SilentChoice.off, Bool?.some(false), dunstOn, true, SilentChoice.follow, true),
        (.on, true, dunstOff, true, .follow, true),
        (.off, true, dunstOn, true, .off, false),
        (.off, nil, dunstOn, true, .off, false),
        (.off, false, .unknown, true, .off, false),
        (.off, false, dunstOn, false, .off, true),
    ])
    func aChangeOfDoNotDisturbEndsTheChoice(_ choice: SilentChoice, _ lastSeen: Bool?, _ now: DoNotDisturb, _ following: Bool,
                                            _ expected: SilentChoice, _ changed: Bool) {
        let result = SilentMode.choice(choice, lastSeen: lastSeen, now: now, following: following)
        #expect(result.choice == expected && result.changed == changed)
        #expect(result.seen == (now.isKnown ? now.isOn : lastSeen))
    }

    @Test func theAgentFollowsDoNotDisturbUntilTheUserChoosesAndAgainWhenItChanges() throws {
        var daemon = try InMemoryDaemon()
        daemon.connect()
        daemon.play(10, role: "Music", app: "player")
        daemon.play(30, role: "Notification", app: "chat")
        daemon.settle()
        #expect(daemon.gain(30) == 1)
        #expect(daemon.agentEntry(AgentProtocol.silentModeKey) == "follow")

        daemon.doNotDisturb = Self.dunstOn
        daemon.settle()
        #expect(daemon.gain(30) == 0 && daemon.gain(10) == 1, "Do Not Disturb silences the alert, not the music")
        let status = try #require(daemon.agentEntry(AgentProtocol.agentKey).flatMap {
            try? JSONDecoder().decode(AgentStatus.self, from: Data($0.utf8))
        })
        #expect(status.silentMode && status.silentChoice == .follow && status.doNotDisturb == "on in dunst")
        #expect(status.silentModeReason == "following Do Not Disturb (on in dunst)")
        #expect(daemon.status(30)?.explanation.contains {
            $0.hasPrefix("silenced: silent mode, following Do Not Disturb (on in dunst)")
        } == true)

        // The user's choice wins while Do Not Disturb stays as it is.
        daemon.request(subject: 0, key: AgentProtocol.silentModeKey, value: "false")
        daemon.settle()
        #expect(daemon.gain(30) == 1 && daemon.core.journal.silentChoice == .off)

        // Do Not Disturb changes: the choice ends, the switch says so, and
        // the old value still read there is not taken for a new choice.
        daemon.doNotDisturb = Self.dunstOff
        _ = daemon.reconcile()
        #expect(daemon.core.journal.silentChoice == .follow)
        daemon.doNotDisturb = Self.dunstOn
        daemon.settle()
        #expect(daemon.gain(30) == 0 && daemon.core.journal.silentChoice == .follow)
        #expect(daemon.agentEntry(AgentProtocol.silentModeKey) == "follow")
        #expect(daemon.logs.contains { $0.text.hasPrefix("silent mode on (following Do Not Disturb (on in dunst)): Do Not Disturb on in dunst") })
        #expect(daemon.core.journal.doNotDisturbSeen == true)
    }

    @Test func notFollowingLeavesSilentModeToTheUser() throws {
        var config = DefaultPolicyConfig.config
        config.settings.followDoNotDisturb = false
        var daemon = try InMemoryDaemon(config: config)
        daemon.connect()
        daemon.play(30, role: "Notification", app: "chat")
        daemon.doNotDisturb = Self.dunstOn
        daemon.settle()
        #expect(daemon.gain(30) == 1)
    }

    /// A change of Do Not Disturb while no agent ran ends the choice too.
    @Test func aChangeWhileNoAgentRanEndsTheChoice() throws {
        var journal = AgentJournal()
        journal.silentChoice = .off
        journal.doNotDisturbSeen = false
        var daemon = try InMemoryDaemon(journal: journal)
        daemon.doNotDisturb = Self.dunstOn
        daemon.connect()
        daemon.play(30, role: "Notification", app: "chat")
        daemon.settle()
        #expect(daemon.gain(30) == 0 && daemon.core.journal.silentChoice == .follow)
    }
}

struct FlapGuardTests {
    @Test func aPersonTogglingIsNotFlappingAStormIsUntilItKeepsStill() {
        var guardState = FlapGuard(limit: 8, window: 10)
        for second in 0..<8 { guardState.changed(at: Double(second)) }
        #expect(!guardState.isFlapping, "eight changes in ten seconds: a person")
        guardState.changed(at: 8)
        #expect(guardState.isFlapping && guardState.trustedAgainAt == 18)
        let early = guardState.settle(at: 17.9)
        #expect(!early)
        let settled = guardState.settle(at: 18)
        #expect(settled && !guardState.isFlapping && guardState.trustedAgainAt == nil)
        // Changes spread out never add up to a storm.
        var spread = FlapGuard(limit: 8, window: 10)
        for change in 0..<50 { spread.changed(at: Double(change) * 2) }
        #expect(!spread.isFlapping)
    }
}
