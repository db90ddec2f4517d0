import Testing
@testable import PolicyCore
import PolicyTestSupport

/// WirePlumber's memory room on its own: what the journal is told before a
/// change reaches WirePlumber, and what is given back at exit.
struct WirePlumberMemoryRoomTests {
    static let v05 = PipeWireStack(pipewire: "1.4.2", wirePlumber: .init(client: 98, version: "0.5.8"))
    static let mpvKey = "Output/Audio:application.name:mpv"

    @Test func theTakeoverIsJournaledAndStatusSaysWhoDucks() {
        let roles = RoleLoopbacks.observed(in: RoleLoopbacksTests.desktop(duckLevel: "0.3"))
        var journal = AgentJournal()
        let (step, status) = WirePlumberMemoryRoom.takeOver(roles: roles, journal: &journal, dryRun: false)
        #expect(journal.wirePlumberDuckLevel == "0.3", "remembered before the setting is changed")
        #expect(status?.duckingTakenOver == true && status?.duckLevel == 0.3, "\(String(describing: status))")
        let effects = WirePlumberMemoryRoom.effects(of: step)
        #expect(effects.contains(.setMetadata(RoleLoopbacksTests.write("1.0"))), "\(effects)")

        var dry = AgentJournal()
        let (_, dryStatus) = WirePlumberMemoryRoom.takeOver(roles: roles, journal: &dry, dryRun: true)
        #expect(dry.wirePlumberDuckLevel == nil && dryStatus?.duckingTakenOver == false)
        var none = AgentJournal()
        #expect(WirePlumberMemoryRoom.takeOver(roles: .none, journal: &none, dryRun: false).status == nil,
                "no loopbacks: no role policy to speak of")
    }

    @Test func atExitTheLevelAndTheSavedVolumesAreGivenBackAndTheJournalKeepsWhatIsLeft() {
        var graph = RoleLoopbacksTests.desktop(duckLevel: "1.0")
        graph.metadata[902] = Graph.Metadata(id: 902, name: WirePlumberStreamState.routeSettings)
        var journal = AgentJournal()
        journal.wirePlumberDuckLevel = "0.3"
        journal.wirePlumberKeys = [Self.mpvKey: .init(channelVolumes: [1, 1], mute: false)]
        let given = WirePlumberMemoryRoom.giveBack(journal: &journal, graph: graph, stack: Self.v05, dryRun: false)
        #expect(given.writes.contains(.setMetadata(RoleLoopbacksTests.write("0.3"))), "\(given.writes)")
        #expect(journal.wirePlumberDuckLevel == nil)
        // 0.5.8 reads route-settings for the event sounds' key only: mpv's is reset by a stand-in.
        #expect(given.resets == [.resetStoredVolumes(journal.wirePlumberKeys)] && journal.wirePlumberKeys[Self.mpvKey] != nil,
                "\(given.resets)")
        #expect(given.corrected == 1)

        #expect(WirePlumberMemoryRoom.reset([Self.mpvKey], journal: &journal).isEmpty)
        #expect(journal.wirePlumberKeys.isEmpty, "reset: forgotten")
    }

    @Test func aKeyNotResetStaysForTheNextStartWithAWarning() {
        var journal = AgentJournal()
        journal.wirePlumberKeys = [Self.mpvKey: .init(channelVolumes: [1, 1], mute: false)]
        let warning = WirePlumberMemoryRoom.reset([], journal: &journal)
        #expect(journal.wirePlumberKeys.count == 1)
        #expect(warning.count == 1 && "\(warning)".contains("pw-policy restore"), "\(warning)")
    }

    @Test func aDryRunGivesBackNothingAndForgetsNothing() {
        var journal = AgentJournal()
        journal.wirePlumberKeys = [Self.mpvKey: .init(channelVolumes: [1, 1], mute: false)]
        let given = WirePlumberMemoryRoom.giveBack(journal: &journal, graph: RoleLoopbacksTests.desktop(), stack: Self.v05,
                                                   dryRun: true)
        #expect(given.writes.isEmpty && given.resets.isEmpty && given.corrected == 0)
        #expect(journal.wirePlumberKeys.count == 1)
        #expect(WirePlumberMemoryRoom.track(journal: &journal, graph: Graph(), applied: [:], sent: [.setGain(node: 5, gain: 0.2)],
                                            stack: Self.v05, dryRun: true).isEmpty)
    }
}
