import ArgumentParser
import Foundation
import PolicyCLI
import PolicyCore
import PolicyAgent
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
        its reason), held-for-route, resumed, silent-mode, presenting, screen-lock, config-reloaded, \
        config-rejected, media-key (a media key on pw-policy's MPRIS proxy: where it went, what it did or \
        why not); agent-started / agent-stopped when the agent comes and goes, and events-missed when \
        some came too fast to show. Stops on Ctrl-C \
        (SIGINT) or SIGTERM; exits 69 when PipeWire goes away.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var display: DisplayOptions

    func run() throws {
        try reportingFailures {
            // Before connecting (see PipeWireSession.open): otherwise the
            // data-loop thread takes SIGINT and the default action kills us.
            let loop = EventLoop()
            let interrupt = loop.onSignal(SIGINT) { loop.stop() }
            let terminate = loop.onSignal(SIGTERM) { loop.stop() }
            let session = try PipeWireSession.open(remote: remote.remote, loop: loop)
            _ = try session.requireAgent()
            let style = display.style
            let json = display.json
            var feed = EventFeed(initial: session.agentMetadata)
            let mirror = session.mirror
            // The agent overwrites one key per event and every overwrite
            // reaches us as its own change: read each one as it is applied.
            // (Reading later, e.g. from a timer, sees only the last of the
            // events that arrived together.)
            var wasRunning = session.agentMetadata != nil
            var lastValue = session.agentMetadata?.value(subject: 0, key: AgentProtocol.eventKey)
            mirror.onChange = {
                let metadata = mirror.graph.metadata(named: AgentProtocol.metadataName)
                let value = metadata?.value(subject: 0, key: AgentProtocol.eventKey)
                guard (metadata != nil) != wasRunning || value != lastValue else { return }
                wasRunning = metadata != nil
                lastValue = value
                for event in feed.update(metadata) {
                    let now = Date()
                    let line = json ? EventRenderer.json(event, time: EventRenderer.isoTime(now))
                                    : EventRenderer.text(event, time: EventRenderer.clockTime(now), style: style)
                    // Unbuffered: a pipe reader sees each event as it happens.
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
            }
            var lostReason: String?
            session.connection.onDisconnect = { reason in
                lostReason = reason
                session.loop.stop()
            }
            session.loop.run()
            withExtendedLifetime((interrupt, terminate)) {}
            mirror.onChange = nil
            if let lostReason {
                throw CLIFailure(.unavailable, "lost the connection to PipeWire at '\(session.remote)': \(lostReason)")
            }
        }
    }
}
