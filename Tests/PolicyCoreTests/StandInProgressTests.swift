import Testing
import PolicyTestSupport
@testable import PolicyCore

/// A stand-in stream resetting WirePlumber's saved volume: the user's
/// values are sent until its node reports them for `settle`, sent again
/// every `resend` while it does not, and a node that never takes them is
/// replaced after `replaceAfter`.
struct StandInProgressTests {
    let user = WirePlumberStreamState.UserVolumes(channelVolumes: [0.5, 0.5], mute: false)

    func node(volume: Float? = 1, channelVolumes: [Float] = [0.5, 0.5]) -> Graph.Node {
        var graph = Graph()
        graph.addStream(40, volume: volume, channels: ["FL", "FR"])
        var node = graph.nodes[40]!
        node.channelVolumes = channelVolumes
        return node
    }

    @Test func itIsSentTheValuesAndKeptOnceItReportsThemForTheSettle() {
        var progress = StandInProgress(key: "Output/Audio:application.name:mpv", user: user, createdAt: 10)
        #expect(progress.looked(at: nil, now: 10.01) == .wait, "not there yet")
        #expect(progress.looked(at: node(channelVolumes: [1, 1]), now: 10.02) == .send, "its defaults")
        #expect(progress.looked(at: node(channelVolumes: [1, 1]), now: 10.05) == .wait, "not again before resend")
        #expect(progress.looked(at: node(), now: 10.06) == .wait)
        #expect(!progress.isKept(now: 10.06 + StandInProgress.settle / 2))
        #expect(progress.isKept(now: 10.06 + StandInProgress.settle))
    }

    @Test func wirePlumbersRestoreMeanwhileStartsTheSettleAgain() {
        var progress = StandInProgress(key: "k", user: user, createdAt: 10)
        #expect(progress.looked(at: node(), now: 10.01) == .wait)
        #expect(progress.looked(at: node(volume: 0.2), now: 10.2) == .send, "WirePlumber restored its saved gain")
        #expect(!progress.isKept(now: 10.35), "the settle counts from the values reported again")
        #expect(progress.looked(at: node(), now: 10.3) == .wait)
        #expect(progress.isKept(now: 10.3 + StandInProgress.settle))
    }

    @Test func aNodeThatNeverTakesThemIsReplaced() {
        var progress = StandInProgress(key: "k", user: user, createdAt: 10)
        var sends = 0
        var now = 10.0
        while now < 10 + StandInProgress.replaceAfter - 0.01 {
            if progress.looked(at: node(channelVolumes: [1, 1]), now: now) == .send { sends += 1 }
            now += 0.05
        }
        #expect(sends == Int((StandInProgress.replaceAfter / StandInProgress.resend).rounded()), "sent every resend")
        #expect(progress.looked(at: node(channelVolumes: [1, 1]), now: 10 + StandInProgress.replaceAfter) == .replace)
        var absent = StandInProgress(key: "k", user: user, createdAt: 10)
        #expect(absent.looked(at: nil, now: 10 + StandInProgress.replaceAfter) == .replace, "one that never appeared too")
    }

    @Test func oneThatReportsThemIsNeverReplaced() {
        var progress = StandInProgress(key: "k", user: user, createdAt: 10)
        #expect(progress.looked(at: node(), now: 10 + StandInProgress.replaceAfter * 2) == .wait)
    }
}
