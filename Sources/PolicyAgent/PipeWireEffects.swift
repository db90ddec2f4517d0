import PolicyCore
import PolicyPipeWire
import PolicyFiles

/// The effects that act on the world, carried out on one connection:
/// graph actions and metadata through `GraphActions`, player commands
/// through `PlayerActions` (the session bus), the journal file, the meters,
/// the link guard, the log. A failed action (a node that vanished
/// mid-action) is logged at debug level and left to the next reconcile.
final class PipeWireEffects: EffectPerforming {
    /// The connection the actions go out on: its round trips.
    private let connection: Connection
    private let actions: GraphActions
    private let log: Log
    private let journalFiles: JournalFiles
    private let players: PlayerActions
    private let standIns: StandInStreams
    /// The peak meters on the streams that duck others.
    private let meters: StreamMeters
    /// Refuses the links the start gate refuses.
    private let linkGuard: LinkGuard?

    init(connection: Connection, actions: GraphActions, log: Log, journalFiles: JournalFiles, players: PlayerActions,
         meters: StreamMeters, linkGuard: LinkGuard?) {
        self.connection = connection
        self.actions = actions
        self.log = log
        self.journalFiles = journalFiles
        self.players = players
        standIns = StandInStreams(actions: actions)
        self.meters = meters
        self.linkGuard = linkGuard
    }

    private var mirror: GraphMirror { actions.mirror }

    func resetStoredVolumes(_ keys: [String: WirePlumberStreamState.UserVolumes]) -> Set<String> {
        standIns.reset(keys)
    }

    func perform(_ effect: AgentEffect) {
        switch effect {
        case .saveJournal(let journal, let sync):
            do {
                try journalFiles.save(journal, sync: sync)
            } catch {
                log.error("cannot write the journal: \(error)")
            }
        case .graph(let action):
            log.debug(ActionDescription.describe(action, in: mirror.graph))
            do {
                try perform(action)
            } catch {
                // Nodes and links vanish mid-action all the time.
                log.debug("\(action) failed: \(error)")
            }
        case .setMetadata(let write):
            do {
                try actions.setMetadata(write)
            } catch {
                log.debug("setting \(write.key) of \(write.subject) in '\(write.metadata)' failed: \(error)")
            }
        case .player(let command):
            players.perform(command)
        case .mediaKeysTarget(let player):
            players.mirror(player)
        case .tellAudioSessions(let messages):
            players.tell(messages)
        case .meter(let streams):
            meters.meter(streams)
        case .gate(let next):
            linkGuard?.gate = next
        case .log(let level, let text):
            log.log(level, text)
        case .flush:
            // Only a restore flushes, and the agent exits after it: what the
            // daemon has not read by then is lost. A daemon busy with
            // hundreds of streams took over 2 s (docs/PERFORMANCE.md).
            if !connection.roundTrip(timeout: 10) {
                log.warning("the daemon did not confirm within 10 s; some streams may keep their policy gain")
            }
        case .wakeUp, .publish, .resetStoredVolumes:
            preconditionFailure("\(effect) is the executor's own")
        }
    }

    private func perform(_ action: AgentAction) throws(ActionError) {
        switch action {
        case .setGain(let node, let gain):
            try actions.setVolume(node: node, to: Float(gain))
        case .rampGain(let node, let gain, let milliseconds):
            try actions.rampVolume(node: node, to: Float(gain), milliseconds: milliseconds,
                                   stepFrames: FadePacing.rampStepFrames)
        case .destroyLink(let link):
            try actions.destroy(link: link)
        case .link(let output, let input):
            linkGuard?.linked(output)
            // Lingering links survive the agent, as WirePlumber's do.
            try actions.link(output: output, to: input, linger: true)
        case .suspend(let node):
            try actions.suspend(node: node)
        case .prime(let node, let gain):
            try actions.prime(node: node, gain: Float(gain))
        case .setTarget(let stream, let serial):
            try actions.setMetadata(.targetObject(of: stream, serial: serial))
        }
    }
}
