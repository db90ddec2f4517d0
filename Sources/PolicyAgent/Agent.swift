import PolicyCore
import PolicyPipeWire
import PolicyDBus
import PolicyFiles
#if canImport(Glibc)
import Glibc
#endif

public struct AgentOptions: Sendable {
    public var remote: String?
    public var dryRun: Bool
    public var version: String
    public var environment: [String: String]
    /// Only undo what the journal says an earlier agent changed (`pw-policy restore`).
    public var restoreOnly: Bool
    public init(remote: String?, dryRun: Bool, version: String, environment: [String: String], restoreOnly: Bool = false) {
        self.remote = remote; self.dryRun = dryRun; self.version = version; self.environment = environment
        self.restoreOnly = restoreOnly
    }
}

/// What outlives a connection: the options, the log, and the core with
/// everything the agent remembers. The loop's alone: `Agent` writes the
/// desktop's inputs (players, Do Not Disturb, the screen lock, the bus
/// services) as its observers report them, and tells the session which
/// changed (`AgentSession.desktopChanged`); the session reads them in its
/// observation and runs the core. Both on the loop's thread, which the
/// session's entry points check (`preconditionInEventLoop`), so nothing
/// here needs a lock.
final class AgentContext {
    let options: AgentOptions
    let log: Log
    /// Where the journal is kept (`JournalFiles`).
    let journalFiles: JournalFiles
    var core: AgentCore
    /// The media players on the session bus, or why they are not watched.
    var players: PlayerSet?
    var playersUnwatched = "not connected yet"
    /// Commands to the players and the media-key proxy.
    let playerActions = PlayerActions()
    /// Why pw-policy's media-key proxy is not on the bus (nil while it is,
    /// or with the setting off).
    var mediaKeysUnavailable: String? = "not connected yet"
    /// The desktop entries and the processes behind the clients.
    let apps: AppKnowledgeObserver
    /// What the desktop's Do Not Disturb mechanisms say (unknown without a
    /// session bus).
    var doNotDisturb = DoNotDisturb.unknown
    /// Whether the session is locked (unknown without a session bus).
    var screenLock = ScreenLock.unknown
    /// Why the audio-session service is not on the bus (nil while it is;
    /// docs/API.md).
    var audioSessionsUnavailable: String? = "not connected yet"

    init(options: AgentOptions, config: LoadedConfig, log: Log) throws {
        self.options = options
        self.log = log
        journalFiles = JournalFiles(environment: options.environment)
        apps = AppKnowledgeObserver(environment: options.environment)
        let loaded = journalFiles.load()
        for unreadable in loaded.unreadable { log.warning("ignoring unreadable state file \(unreadable)") }
        let journal = loaded.journal ?? AgentJournal()
        let identity = AgentCore.Identity(pid: getpid(), version: options.version,
                                          startedAt: UTCTimestamp.now(), dryRun: options.dryRun)
        core = try AgentCore(identity: identity, config: config, journal: journal)
    }
}

/// `pw-policy run`: connects, applies policy, reacts to every change, and on
/// SIGTERM/SIGINT restores everything it changed. Reconnects with backoff
/// when the daemon restarts; reloads its config on SIGHUP and file changes.
public final class Agent {

    private let loop = EventLoop()
    private let context: AgentContext
    private let loader: ConfigLoader
    private var session: AgentSession?
    private var connection: Connection?
    private var signals: [LoopSignal] = []
    private var watcher: DirectoryWatcher?
    private var desktopWatcher: DirectoryWatcher?
    private var reconnectTimer: LoopTimer!
    private var reconnectDelay = 0.25
    private var bus: SessionBus?
    private var playerObserver: MPRISObserver?
    private var doNotDisturbObserver: DoNotDisturbObserver?
    private var screenLockObserver: ScreenLockObserver?
    /// The system bus, for logind's lock only; nil when it cannot be reached.
    private var systemBus: SessionBus?
    private var systemBusTried = false
    private var shuttingDown = false
    private var log: Log { context.log }

    public init(options: AgentOptions, config: LoadedConfig, loader: ConfigLoader, log: Log) throws {
        context = try AgentContext(options: options, config: config, log: log)
        self.loader = loader
    }

    public func run() -> ExitStatus {
        // Before connecting: a signal source blocks its signal in this thread
        // only, and the context's data-loop thread, started by connect(),
        // inherits the mask. Were it started first, it would take SIGTERM
        // with the default action and the agent would die without restoring.
        signals = [
            loop.onSignal(SIGTERM) { [unowned self] in self.shutDown("SIGTERM") },
            loop.onSignal(SIGINT) { [unowned self] in self.shutDown("SIGINT") },
            loop.onSignal(SIGHUP) { [unowned self] in self.reloadConfig(.signal) },
        ]
        do {
            try connect()
        } catch {
            log.error("\(error)")
            return .unavailable
        }
        reconnectTimer = loop.makeTimer { [unowned self] in self.reconnect() }
        watchPlayers()
        watcher = DirectoryWatcher(loop: loop, directories: loader.watchedDirectories) { [unowned self] in
            self.reloadConfig(.fileChanged)
        }
        desktopWatcher = DirectoryWatcher(loop: loop, directories: context.apps.directories) { [unowned self] in
            self.context.apps.reloadEntries()
            self.session?.desktopChanged(.desktopEntries)
        }
        let files = context.core.config.files.isEmpty ? "built-in defaults" : context.core.config.files.joined(separator: ", ")
        log.notice("pw-policy \(context.options.version) running\(context.options.dryRun ? " (dry run: changing nothing)" : ""); config: \(files)")
        loop.run()
        tearDown()
        return .ok
    }

    /// `pw-policy restore` (the user unit's `ExecStopPost`): what an agent
    /// killed without a restart left — gains, holds, `target.object`
    /// requests, volumes WirePlumber saved under its gains — undone from its
    /// journal, as the agent itself does when it stops. Nothing to do when
    /// an agent runs: it restores what it changed when it stops.
    public func restoreLeftovers() -> ExitStatus {
        do {
            try connect()
        } catch {
            log.error("\(error)")
            return .unavailable
        }
        defer { tearDown() }
        guard let session, loop.run(timeout: 5, until: { session.isReady }) else {
            log.error("PipeWire did not send its graph within 5 s; nothing restored")
            return .unavailable
        }
        // The agent's entries come from the agent, after the daemon's round trips.
        _ = loop.run(timeout: 2) {
            session.mirror.graph.metadata(named: AgentProtocol.metadataName).map(AgentProtocol.hasArrived) ?? true
        }
        if let running = session.mirror.graph.metadata(named: AgentProtocol.metadataName) {
            let pid = running.value(subject: 0, key: AgentProtocol.agentKey)
                .flatMap { try? JSONValueDecoder.decode(AgentStatus.self, from: Array($0.utf8)) }?.pid
            log.notice("an agent runs\(pid.map { " (pid \($0))" } ?? ""); it restores what it changed when it stops")
            return .ok
        }
        let journal = context.core.journal
        guard !journal.applied.isEmpty || !journal.wirePlumberKeys.isEmpty else {
            log.notice("nothing to restore: \(context.journalFiles.restoresFrom) records no change")
            return .ok
        }
        session.restoreAll()
        return .ok
    }

    /// Connects to the session bus and follows its MPRIS players; without
    /// one the agent works as before and says so once (docs/PLAYERS.md).
    private func watchPlayers() {
        switch SessionBus.connect(address: context.options.environment["DBUS_SESSION_BUS_ADDRESS"], on: loop) {
        case .failure(let error):
            playersUnwatched(error)
        case .success(let bus):
            bus.onDisconnect = { [unowned self] error in self.playersUnwatched(error) }
            let observer = MPRISObserver(bus: bus, log: { [unowned self] in self.log.info("players: \($0)") },
                                         ignoring: [MediaKeysProxy.busName]) { [unowned self] players in
                for player in players.sorted where self.context.players?[player.busName]?.status != player.status {
                    self.log.debug("player \(player.busName): \(player.status)")
                }
                self.context.players = players
                self.session?.desktopChanged(.players)
            }
            if case .failure(let error) = observer.start() {
                playersUnwatched(.unavailable(address: nil, reason: "\(error)"))
                return
            }
            self.bus = bus
            playerObserver = observer
            context.playerActions.observer = observer
            context.players = .empty
            log.info("watching MPRIS players on the session bus")
            watchDoNotDisturb()
            watchScreenLock()
            updateMediaKeys()
            updateAudioSessions()
        }
    }

    /// Puts the audio-session service on the bus, or takes it off, as the
    /// config says (`audio-sessions.service`); its calls go to the core, and
    /// a call that changed something reconciles as a desktop change does
    /// (at once, then at most every 100 ms: a flood of calls is one
    /// reconcile per 100 ms). docs/API.md.
    private func updateAudioSessions() {
        let wanted = context.core.config.config.settings.audioSessionService
        guard let bus, bus.failure == nil, wanted else {
            if context.playerActions.audioSessions != nil {
                log.info("audio sessions: \(AudioSessionAPI.busName) released"
                    + (wanted ? "" : " (\(SettingsSchema.key(\Settings.audioSessionService)) = false)"))
            }
            context.playerActions.audioSessions = nil
            endAudioSessions(wanted ? "the session bus is gone" : "the service was turned off (\(SettingsSchema.key(\Settings.audioSessionService)) = false)")
            context.audioSessionsUnavailable = wanted ? "no session bus" : nil
            return
        }
        guard context.playerActions.audioSessions == nil else { return }
        let handlers = AudioSessionService.Handlers(
            call: { [unowned self] call, caller in
                let (reply, effects) = self.context.core.audioSessionCall(call, from: caller, token: AudioSessionService.newToken(),
                                                                          now: self.loop.now)
                for case .log(let level, let text) in effects { self.log.log(level, text) }
                if case .deactivate(_, true) = call, !reply.isError {
                    self.session?.audioSessionDeactivated()
                } else if !reply.isError {
                    self.session?.desktopChanged(.audioSessions)
                }
                return reply
            },
            properties: { [unowned self] path in self.context.core.audioSessionProperties(path: path) },
            owners: { [unowned self] in Set(self.context.core.audioSessions.owners.keys) },
            identified: { [unowned self] owner, pid, flatpak in
                self.log.debug("audio sessions: \(owner) is pid \(pid.map(String.init) ?? "unknown")"
                    + (flatpak.map { " in Flatpak \($0)" } ?? ""))
                self.context.core.audioSessionOwnerIdentified(owner, pid: pid, flatpakAppID: flatpak)
                self.session?.desktopChanged(.audioSessions)
            },
            left: { [unowned self] owner in
                for case .log(let level, let text) in self.context.core.audioSessionOwnerLeft(owner) { self.log.log(level, text) }
                self.session?.desktopChanged(.audioSessions)
            })
        do {
            context.audioSessionsUnavailable = "asking for \(AudioSessionAPI.busName)"
            context.playerActions.audioSessions = try AudioSessionService(
                bus: bus, handlers: handlers, log: { [unowned self] in self.log.info("audio sessions: \($0)") },
                owned: { [unowned self] problem in self.audioSessionsOwned(problem) })
        } catch {
            audioSessionsOwned("\(error)")
        }
    }

    private func audioSessionsOwned(_ problem: String?) {
        if let problem {
            // The service object stays (nameless, it gets no calls): this
            // runs inside the bus's callback, where its slots must not go.
            log.notice("audio sessions: \(problem); carrying on without the service")
            context.audioSessionsUnavailable = problem
        } else {
            log.info("audio sessions: \(AudioSessionAPI.busName) on the session bus")
            context.audioSessionsUnavailable = nil
        }
        session?.desktopChanged(.audioSessions)
    }

    private func endAudioSessions(_ why: String) {
        for case .log(let level, let text) in context.core.audioSessionsEnded(why) { log.log(level, text) }
    }

    /// Follows the screen lock: the screen savers on the session bus,
    /// logind on the system bus where it can be reached (docs/POLICY.md,
    /// "Screen lock"). A source that is not there says nothing.
    private func watchScreenLock() {
        guard let bus, screenLockObserver == nil else { return }
        if !systemBusTried {
            systemBusTried = true
            switch SessionBus.connectSystem(on: loop) {
            case .success(let system):
                system.onDisconnect = { [unowned self] error in
                    self.log.info("screen lock: the system bus went away (\(error)); logind is not followed")
                    self.systemBus = nil
                    self.screenLockObserver = nil
                    self.watchScreenLock()
                }
                systemBus = system
            case .failure(.unavailable(let address, let reason)):
                log.info("screen lock: no system bus at \(address ?? "its usual place") (\(reason)); logind is not followed")
            case .failure(.disconnected(let reason)):
                log.info("screen lock: the system bus went away (\(reason)); logind is not followed")
            }
        }
        let observer = ScreenLockObserver(sessionBus: bus, systemBus: systemBus, sources: ScreenLockSource.builtIn,
                                          log: { [unowned self] in self.log.notice("screen lock: \($0)") }) { [unowned self] lock in
            self.log.info("screen lock: \(lock.summary)")
            self.context.screenLock = lock
            self.session?.desktopChanged(.screenLock)
        }
        if case .failure(let error) = observer.start() {
            log.notice("the screen lock is not followed: \(error)")
            return
        }
        screenLockObserver = observer
    }

    /// Follows the Do Not Disturb mechanisms the config names, on the
    /// session bus (docs/POLICY.md, "Do Not Disturb"); again when they change.
    private func watchDoNotDisturb() {
        let sources = context.core.config.config.settings.allDoNotDisturbSources
        guard let bus, doNotDisturbObserver.map({ $0.sources != sources }) ?? true else { return }
        doNotDisturbObserver = nil
        let observer = DoNotDisturbObserver(bus: bus, loop: loop, clock: { [loop] in loop.now }, sources: sources,
                                            gsettings: GSettingsReader(loop: loop),
                                            log: { [unowned self] in self.log.notice("Do Not Disturb: \($0)") }) { [unowned self] state in
            self.log.info("Do Not Disturb: \(state.summary)")
            self.context.doNotDisturb = state
            self.session?.desktopChanged(.doNotDisturb)
        }
        if case .failure(let error) = observer.start() {
            log.notice("Do Not Disturb is not followed: \(error)")
            return
        }
        doNotDisturbObserver = observer
    }

    /// Puts the media-key proxy on the bus, or takes it off, as the config
    /// says (`players.media-keys`). A name another process owns is logged
    /// once, and the agent carries on without it (docs/PLAYERS.md, "Media keys").
    private func updateMediaKeys() {
        let wanted = context.core.config.config.settings.mediaKeys
        guard let bus, bus.failure == nil else {
            context.playerActions.mediaKeysProxy = nil
            return
        }
        guard wanted else {
            if context.playerActions.mediaKeysProxy != nil { log.info("media keys: \(MediaKeysProxy.busName) released (\(SettingsSchema.key(\Settings.mediaKeys)) = false)") }
            context.playerActions.mediaKeysProxy = nil
            context.mediaKeysUnavailable = nil
            return
        }
        guard context.playerActions.mediaKeysProxy == nil else { return }
        do {
            context.mediaKeysUnavailable = "asking for \(MediaKeysProxy.busName)"
            context.playerActions.mediaKeysProxy = try MediaKeysProxy(bus: bus, mirroring: context.core.mediaKeysMirror,
                                                        onKey: { [unowned self] key in self.session?.mediaKey(key) },
                                                        owned: { [unowned self] problem in self.mediaKeysOwned(problem) })
        } catch {
            mediaKeysOwned("\(error)")
        }
    }

    private func mediaKeysOwned(_ problem: String?) {
        if let problem {
            // The proxy object stays (nameless, it gets no calls): this runs
            // inside the bus's callback, where its slots must not go.
            log.notice("media keys: \(problem); carrying on without them")
            context.mediaKeysUnavailable = "not on the session bus: \(problem)"
        } else {
            log.info("media keys: \(MediaKeysProxy.busName) on the session bus")
            context.mediaKeysUnavailable = nil
        }
        session?.desktopChanged(.mediaKeys)
    }

    private func playersUnwatched(_ error: SessionBusError) {
        log.notice("\(error)")
        context.players = nil
        context.playerActions.observer = nil
        context.doNotDisturb = .unknown
        doNotDisturbObserver = nil
        context.screenLock = .unknown
        screenLockObserver = nil
        context.playerActions.mediaKeysProxy = nil
        context.mediaKeysUnavailable = "no session bus"
        context.playerActions.audioSessions = nil
        context.audioSessionsUnavailable = "no session bus"
        endAudioSessions("the session bus is gone")
        context.playersUnwatched = "\(error)"
        session?.desktopChanged(.sessionBus)
    }

    /// Everything on the loop goes before the loop itself.
    private func tearDown() {
        context.playerActions.audioSessions = nil
        doNotDisturbObserver = nil
        screenLockObserver = nil
        systemBus = nil
        context.playerActions.mediaKeysProxy = nil
        playerObserver = nil
        bus = nil
        session = nil
        connection = nil
        watcher = nil
        desktopWatcher = nil
        signals = []
        reconnectTimer = nil
        // What outlives the session is on disk before the agent exits.
        if let failure = context.journalFiles.finish() { log.error("cannot write the journal: \(failure)") }
    }

    deinit { tearDown() }

    private func connect() throws(ConnectionError) {
        let connection = try Connection(loop: loop, remote: context.options.remote, applicationName: "pw-policy")
        connection.onDisconnect = { [unowned self] reason in self.lostConnection(reason) }
        do {
            session = try AgentSession(connection: connection, context: context)
        } catch {
            throw .unavailable(remote: connection.remote, reason: "cannot export the pw-policy metadata: \(error)")
        }
        self.connection = connection
        reconnectDelay = 0.25
    }

    private func lostConnection(_ reason: String) {
        log.warning("lost PipeWire: \(reason); reconnecting")
        // Drop the session's proxies on the next turn of the loop, not inside
        // the callback that reports the loss.
        reconnectTimer.schedule(after: 0)
    }

    private func reconnect() {
        guard !shuttingDown else { return }
        session = nil
        connection = nil
        do {
            try connect()
            log.notice("reconnected")
        } catch {
            log.info("PipeWire not back yet (\(error)); retrying in \(reconnectDelay) s")
            reconnectTimer.schedule(after: reconnectDelay)
            reconnectDelay = min(reconnectDelay * 2, 2)
        }
    }

    private func shutDown(_ signal: String) {
        guard !shuttingDown else { return }
        shuttingDown = true
        log.notice("\(signal): restoring every stream and exiting")
        session?.restoreAll()
        loop.stop()
    }

    private func reloadConfig(_ trigger: AgentCore.ReloadTrigger) {
        let loader = self.loader
        let reload = { (core: inout AgentCore, graph: Graph) -> [AgentEffect] in
            do {
                return core.reload(try loader.load(), trigger: trigger, graph: graph)
            } catch {
                return core.reloadFailed("\(error)", trigger: trigger, graph: graph)
            }
        }
        // The bus inputs follow the config in force.
        defer {
            watchDoNotDisturb()
            updateMediaKeys()
            updateAudioSessions()
        }
        guard let session else {
            // Between connections: the next one starts with it; say so now.
            for case .log(let level, let text) in reload(&context.core, Graph()) { log.log(level, text) }
            return
        }
        session.apply(reload)
    }
}
