import Foundation
import PolicyCore
#if canImport(Glibc)
import Glibc
#endif

public struct AgentOptions: Sendable {
    public var remote: String?
    public var dryRun: Bool
    public var version: String
    public var environment: [String: String]
    public init(remote: String?, dryRun: Bool, version: String, environment: [String: String]) {
        self.remote = remote; self.dryRun = dryRun; self.version = version; self.environment = environment
    }
}

/// What outlives a connection: config, engine, journal, event numbering.
final class AgentContext {
    let options: AgentOptions
    let log: Log
    let journalPath: String
    let startedAt: String
    private(set) var journal: AgentJournal
    private(set) var config: LoadedConfig
    /// The classifier of the config in force, with what it last decided.
    var classifications: ClassificationCache
    private(set) var engine: PolicyEngine
    private(set) var planner: ReconcilePlanner
    var configError: String?
    private var eventSeq: UInt64 = 0

    init(options: AgentOptions, config: LoadedConfig, log: Log) throws {
        self.options = options
        self.log = log
        journalPath = AgentJournal.path(environment: options.environment)
        startedAt = ISO8601DateFormatter().string(from: Date())
        do {
            journal = try JournalFile.load(from: journalPath) ?? AgentJournal()
        } catch {
            log.warning("ignoring unreadable state file \(journalPath): \(error)")
            journal = AgentJournal()
        }
        self.config = config
        classifications = ClassificationCache(classifier: try Classifier(config: config.config))
        engine = PolicyEngine(config: config.config)
        planner = Self.planner(for: config.config, dryRun: options.dryRun)
    }

    private static func planner(for config: PolicyConfig, dryRun: Bool) -> ReconcilePlanner {
        // In a dry run nothing is ever confirmed; don't "resend" every second.
        ReconcilePlanner(settings: config.settings, confirmTimeout: dryRun ? .infinity : 1.0)
    }

    func use(_ loaded: LoadedConfig) throws {
        let classifier = try Classifier(config: loaded.config)
        config = loaded
        classifications = ClassificationCache(classifier: classifier)
        engine = PolicyEngine(config: loaded.config)
        planner = Self.planner(for: loaded.config, dryRun: options.dryRun)
    }

    func updateJournal(_ updated: AgentJournal) {
        defer { journal = updated }
        guard updated.differsDurably(from: journal) else { return }
        do {
            try JournalFile.save(updated, to: journalPath, sync: updated.settingsDiffer(from: journal))
        } catch {
            log.error("cannot write \(journalPath): \(error)")
        }
    }

    func nextEventSeq() -> UInt64 {
        eventSeq += 1
        return eventSeq
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
    private var watcher: ConfigWatcher?
    private var reconnectTimer: LoopTimer!
    private var reconnectDelay = 0.25
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
        watcher = ConfigWatcher(loop: loop, directories: loader.watchedDirectories) { [unowned self] in
            self.reloadConfig(.fileChanged)
        }
        let files = context.config.files.isEmpty ? "built-in defaults" : context.config.files.joined(separator: ", ")
        log.notice("pw-policy \(context.options.version) running\(context.options.dryRun ? " (dry run: changing nothing)" : ""); config: \(files)")
        loop.run()
        tearDown()
        return .ok
    }

    /// Everything on the loop goes before the loop itself.
    private func tearDown() {
        session = nil
        connection = nil
        watcher = nil
        signals = []
        reconnectTimer = nil
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

    /// What made the agent reload: it says so in its log line and in the
    /// event's `reason` (docs/CONFIG.md, "Checking and reloading"), so a
    /// reload by SIGHUP can be told from one by the file watcher.
    private enum ReloadTrigger: String {
        case signal = "SIGHUP", fileChanged = "file-changed"
        var logged: String { self == .signal ? "SIGHUP" : "file changed" }
    }

    private func reloadConfig(_ trigger: ReloadTrigger) {
        do {
            let loaded = try loader.load()
            guard loaded.config != context.config.config || loaded.files != context.config.files else {
                context.configError = nil
                return
            }
            try context.use(loaded)
            context.configError = nil
            let text = "config reloaded (\(trigger.logged)): \(loaded.files.joined(separator: ", "))"
            log.notice(text)
            session?.announce(EventRecord(seq: 0, type: "config-reloaded", text: text, reason: trigger.rawValue))
        } catch {
            context.configError = "\(error)"
            log.error("config reload rejected (\(trigger.logged)); keeping the previous config:\n\(error)")
            session?.announce(EventRecord(seq: 0, type: "config-rejected",
                                          text: "config reload rejected (\(trigger.logged)); keeping the previous config",
                                          reason: trigger.rawValue))
        }
        session?.reconcile()
    }
}
