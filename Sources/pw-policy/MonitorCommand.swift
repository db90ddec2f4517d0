import ArgumentParser
import Foundation
import PolicyCLI
import PolicyCore
import PolicyPipeWire
#if canImport(Glibc)
import Glibc
#endif

/// `pw-policy monitor`: policy events as they happen.
struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Print policy events as they happen, one per line, until interrupted.",
        discussion: """
        Events: stream-classified, duck-began, duck-ended, interruption-began, \
        interruption-ended (with should-resume), silenced, unsilenced, route-changed (with \
        its reason), held-for-route, resumed, silent-mode, config-reloaded, config-rejected; \
        and agent-started / agent-stopped when the agent comes and goes. Stops on Ctrl-C \
        (SIGINT) or SIGTERM; exits 69 when PipeWire goes away.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var display: DisplayOptions

    func run() throws {
        try reportingFailures {
            let session = try PipeWireSession.open(remote: remote.remote)
            _ = try session.requireAgent()
            let style = display.style
            let json = display.json
            var feed = EventFeed(initial: session.agentMetadata)
            let mirror = session.mirror
            // GraphMirror calls onChange while it is still writing its graph,
            // so the graph is read from a timer that fires right after.
            let reader = session.loop.makeTimer {
                for event in feed.update(mirror.graph.metadata(named: AgentProtocol.metadataName)) {
                    let now = Date()
                    let line = json ? EventRenderer.json(event, time: EventRenderer.isoTime(now))
                                    : EventRenderer.text(event, time: EventRenderer.clockTime(now), style: style)
                    // Unbuffered: a pipe reader sees each event as it happens.
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            }
            mirror.onChange = { reader.schedule(after: 0) }
            var lostReason: String?
            session.connection.onDisconnect = { reason in
                lostReason = reason
                session.loop.stop()
            }
            let interrupt = session.loop.onSignal(SIGINT) { session.loop.stop() }
            let terminate = session.loop.onSignal(SIGTERM) { session.loop.stop() }
            session.loop.run()
            withExtendedLifetime((interrupt, terminate, reader)) {}
            mirror.onChange = nil
            if let lostReason {
                throw CLIFailure(.unavailable, "lost the connection to PipeWire at '\(session.remote)': \(lostReason)")
            }
        }
    }
}
