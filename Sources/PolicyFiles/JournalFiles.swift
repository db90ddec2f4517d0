import PolicyCore

/// The journal's two files (docs/ARCHITECTURE.md, "The journal's two
/// files"): the whole journal in `$XDG_RUNTIME_DIR`, on the session's tmpfs,
/// replaced before every change it records; what outlives the session
/// (`AgentJournal.outlivingTheSession`) in `$XDG_STATE_HOME`, on disk,
/// replaced by a thread of its own when that part changes. A write to disk
/// can wait for the disk (docs/PERFORMANCE.md, "The journal on disk"); the
/// agent's gains wait only for the tmpfs. Without a runtime directory the
/// whole journal goes to disk before acting, as it did before.
public final class JournalFiles {
    /// The whole journal (nil: no runtime directory).
    public let runtimePath: String?
    /// What outlives the session; the whole journal without a runtime directory.
    public let statePath: String
    private let stateWriter: BackgroundFileWriter?
    /// The part last handed to `stateWriter`.
    private var stateHandedOver: AgentJournal?

    public init(environment: [String: String]) {
        statePath = AgentJournal.path(environment: environment)
        let runtime = AgentJournal.runtimePath(environment: environment)
        stateWriter = runtime == nil ? nil : BackgroundFileWriter(path: statePath)
        runtimePath = stateWriter == nil ? nil : runtime
    }

    /// Where the next start finds what this agent changed.
    public var restoresFrom: String { runtimePath ?? statePath }

    /// The newest journal: the runtime one while the session lasts (it is
    /// written first, and whole), else the state file (after a reboot or a
    /// new login, or as an agent before this one wrote it whole). An
    /// unreadable file is reported and the other one read.
    public func load() -> (journal: AgentJournal?, unreadable: [String]) {
        var unreadable: [String] = []
        for path in [runtimePath, statePath].compactMap({ $0 }) {
            do {
                if let journal = try JournalFile.load(from: path) { return (journal, unreadable) }
            } catch {
                unreadable.append("\(path): \(error)")
            }
        }
        return (nil, unreadable)
    }

    /// The part that outlives the session to the state file by the writer's
    /// thread, when it changed (`sync`: the user's settings, which must
    /// outlive the machine), and the whole journal to the runtime file now.
    /// Throws for the runtime file, or for a write of the state file that
    /// failed since the last save.
    public func save(_ journal: AgentJournal, sync: Bool) throws {
        guard let runtimePath, let stateWriter else { return try JournalFile.save(journal, to: statePath, sync: sync) }
        let part = journal.outlivingTheSession
        if part != stateHandedOver {
            stateWriter.write(try part.encoded(), sync: sync)
            stateHandedOver = part
        }
        try JournalFile.write(journal.encoded(), to: runtimePath, sync: false, sticky: true)
        if let failure = stateWriter.takeFailure() { throw failure }
    }

    /// Returns once the state file holds what was handed over (at exit),
    /// with the failure of a write not told yet.
    public func finish() -> FileError? {
        stateWriter?.finish()
        return stateWriter?.takeFailure()
    }
}
