/// The audio sessions apps declared on the session bus, and who owns each
/// (docs/API.md): a pure value the agent keeps in its core. Every call is
/// checked here — its arguments, that the caller owns the session it names,
/// the limits, a caller that floods — and answered with a reply or a D-Bus
/// error; nothing a caller sends can reach another caller's sessions.
public struct AudioSessionTable: Sendable, Equatable {
    /// What a session declares: category, options, mode.
    public struct Declaration: Sendable, Equatable, Hashable {
        public var category: Category
        public var options: Set<PolicyOption>
        public var mode: AudioMode
        public init(category: Category, options: Set<PolicyOption> = [], mode: AudioMode = .default) {
            self.category = category; self.options = options; self.mode = mode
        }

        /// `playback [duck-others, mix-with-others]`, `playback (spoken-audio)`.
        public var description: String { Classifier.describe(category, options, mode) }
    }

    /// The app said it is done (`Deactivate`).
    public struct Deactivation: Sendable, Equatable {
        /// What it interrupted is told at once (no debounce).
        public var notifyOthers: Bool
        /// Its streams still running when it said so: only one that starts
        /// afterwards makes it active again.
        public var stillRunning: Set<UInt32>
    }

    public struct Session: Sendable, Equatable {
        public var id: UInt32
        /// The unique bus name of the connection that made it.
        public var owner: String
        public var declaration: Declaration
        /// What the app sets on streams as `policy.session`.
        public var token: String
        public var deactivation: Deactivation?
        /// Deactivated since the last reconcile: what runs is not known yet.
        var deactivationPending = false
        /// The declaration changed since the last time it was told anything
        /// (a route change then has reason `category-change`).
        public var declarationChanged = false
        public var path: String { AudioSessionAPI.path(of: id) }
    }

    /// A connection that holds sessions, as the adapter identified it.
    public struct Owner: Sendable, Equatable {
        /// Its process (the bus daemon's word), once known.
        public var pid: Int32?
        /// The Flatpak app it runs in, if any: its streams carry the app id,
        /// not a pid of this namespace.
        public var flatpakAppID: String?
    }

    /// How fast a caller calls (every caller, with sessions or not).
    struct Caller: Sendable, Equatable {
        var flood = FloodGuard()
        /// The flood was logged (once per flood).
        var reported = false
        var lastCall: Double
    }

    public private(set) var sessions: [UInt32: Session] = [:]
    public private(set) var owners: [String: Owner] = [:]
    private var nextID: UInt32 = 1
    private var callers: [String: Caller] = [:]

    public init() {}

    public var isEmpty: Bool { sessions.isEmpty }

    /// A caller's sessions, oldest first.
    public func sessions(of owner: String) -> [Session] {
        sessions.values.filter { $0.owner == owner }.sorted { $0.id < $1.id }
    }

    // MARK: calls

    /// A method call, its arguments already of the right D-Bus types.
    public enum Call: Sendable, Equatable {
        case create(category: String, options: [String], mode: String)
        case setCategory(path: String, category: String, options: [String], mode: String)
        case deactivate(path: String, notifyOthers: Bool)
        case close(path: String)
    }

    public enum Reply: Sendable, Equatable {
        /// `CreateSession`'s object path.
        case created(String)
        case done
        case error(name: String, message: String)
        /// A call refused for a flood, to be logged once (the caller gets the error).
        case flooding(name: String, message: String, log: String)

        public var isError: Bool {
            switch self {
            case .error, .flooding: true
            case .created, .done: false
            }
        }
    }

    /// Handles one call from `caller` (a unique bus name) at `now`
    /// (monotonic seconds). `token` is the fresh random token a new session
    /// gets (the adapter draws it; the core stays deterministic). A refused
    /// call changes nothing.
    public mutating func handle(_ call: Call, from caller: String, token: String, now: Double) -> Reply {
        if callers.count > 64 {
            // Callers that stopped calling are forgotten; the table stays small.
            callers = callers.filter { $0.value.flood.isQuieted || now - $0.value.lastCall < 1 }
        }
        var calling = callers[caller] ?? Caller(lastCall: now)
        calling.lastCall = now
        if calling.flood.isQuieted, calling.flood.listenAgain(at: now) { calling.reported = false }
        if calling.flood.signal(at: now) || calling.flood.isQuieted {
            let until = (calling.flood.quietUntil ?? now) - now
            let message = "more than \(FloodGuard.limit) calls a second: calls refused for \(Int(until.rounded(.up))) s"
            let log = calling.reported ? nil : "audio sessions: \(caller) sends \(message)"
            calling.reported = true
            callers[caller] = calling
            return log.map { .flooding(name: AudioSessionAPI.Error.limitsExceeded, message: message, log: $0) }
                ?? .error(name: AudioSessionAPI.Error.limitsExceeded, message: message)
        }
        callers[caller] = calling
        let reply = apply(call, from: caller, token: token)
        // An owner is known while it holds sessions.
        if sessions.values.contains(where: { $0.owner == caller }) {
            if owners[caller] == nil { owners[caller] = Owner() }
        } else {
            owners[caller] = nil
        }
        return reply
    }

    private mutating func apply(_ call: Call, from caller: String, token: String) -> Reply {
        switch call {
        case .create(let category, let options, let mode):
            let declaration: Declaration
            switch Self.declaration(category: category, options: options, mode: mode) {
            case .success(let parsed): declaration = parsed
            case .failure(let error): return error.reply
            }
            guard sessions(of: caller).count < AudioSessionAPI.sessionsPerCaller else {
                return .error(name: AudioSessionAPI.Error.limitsExceeded,
                              message: "a connection may hold at most \(AudioSessionAPI.sessionsPerCaller) sessions; close one first")
            }
            guard sessions.count < AudioSessionAPI.sessionsInAll else {
                return .error(name: AudioSessionAPI.Error.limitsExceeded,
                              message: "the agent holds \(AudioSessionAPI.sessionsInAll) sessions, its most; try again later")
            }
            while sessions[nextID] != nil || nextID == 0 { nextID &+= 1 }
            let id = nextID
            nextID &+= 1
            sessions[id] = Session(id: id, owner: caller, declaration: declaration, token: token)
            return .created(AudioSessionAPI.path(of: id))
        case .setCategory(let path, let category, let options, let mode):
            let id: UInt32
            switch owned(path, by: caller) {
            case .success(let found): id = found
            case .failure(let error): return error.reply
            }
            switch Self.declaration(category: category, options: options, mode: mode) {
            case .success(let declaration):
                if sessions[id]?.declaration != declaration {
                    sessions[id]?.declaration = declaration
                    sessions[id]?.declarationChanged = true
                }
                return .done
            case .failure(let error): return error.reply
            }
        case .deactivate(let path, let notifyOthers):
            switch owned(path, by: caller) {
            case .success(let id):
                // The streams running now are filled in by the next reconcile.
                sessions[id]?.deactivation = Deactivation(notifyOthers: notifyOthers, stillRunning: [])
                sessions[id]?.deactivationPending = true
                return .done
            case .failure(let error): return error.reply
            }
        case .close(let path):
            switch owned(path, by: caller) {
            case .success(let id):
                sessions[id] = nil
                return .done
            case .failure(let error): return error.reply
            }
        }
    }

    /// A refused call: its D-Bus error.
    public struct Refusal: Error, Sendable, Equatable {
        public var name: String
        public var message: String
        var reply: Reply { .error(name: name, message: message) }
    }

    /// The session `path` names, if `caller` owns it.
    private func owned(_ path: String, by caller: String) -> Result<UInt32, Refusal> {
        guard let id = AudioSessionAPI.id(of: path), let session = sessions[id] else {
            return .failure(Refusal(name: AudioSessionAPI.Error.unknownObject, message: "no audio session \(path)"))
        }
        guard session.owner == caller else {
            return .failure(Refusal(name: AudioSessionAPI.Error.accessDenied,
                                    message: "\(path) belongs to another connection; a caller reads and changes only its own sessions"))
        }
        return .success(id)
    }

    /// A declaration from the call's strings: names exactly as docs/API.md
    /// spells them (an API is no place for guessing); an empty mode is the default.
    public static func declaration(category: String, options: [String], mode: String) -> Result<Declaration, Refusal> {
        guard let parsedCategory = Category(rawValue: category) else {
            return .failure(Refusal(name: AudioSessionAPI.Error.invalidArgs,
                                    message: "'\(category)' is not a category; expected one of: "
                                        + Category.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        var parsedOptions: Set<PolicyOption> = []
        for option in options {
            guard let parsed = PolicyOption(rawValue: option) else {
                return .failure(Refusal(name: AudioSessionAPI.Error.invalidArgs,
                                        message: "'\(option)' is not an option; expected any of: "
                                            + PolicyOption.allCases.map(\.rawValue).joined(separator: ", ")))
            }
            parsedOptions.insert(parsed)
        }
        guard let parsedMode = mode.isEmpty ? .default : AudioMode(rawValue: mode) else {
            return .failure(Refusal(name: AudioSessionAPI.Error.invalidArgs,
                                    message: "'\(mode)' is not a mode; expected "
                                        + AudioMode.allCases.map(\.rawValue).joined(separator: " or ") + " (or empty)"))
        }
        return .success(Declaration(category: parsedCategory, options: parsedOptions, mode: parsedMode))
    }

    // MARK: owners

    /// The adapter found who `owner` is (its process, its sandbox).
    public mutating func identified(_ owner: String, pid: Int32?, flatpakAppID: String?) {
        guard owners[owner] != nil else { return }
        owners[owner]?.pid = pid
        owners[owner]?.flatpakAppID = flatpakAppID
    }

    /// `owner` left the bus: its sessions end. Returns their paths.
    @discardableResult
    public mutating func ownerLeft(_ owner: String) -> [String] {
        let gone = sessions(of: owner).map(\.path)
        sessions = sessions.filter { $0.value.owner != owner }
        owners[owner] = nil
        callers[owner] = nil
        return gone
    }

    /// Every session ends (the service was turned off, or lost the bus).
    public mutating func removeAll() {
        sessions = [:]
        owners = [:]
        callers = [:]
    }

    // MARK: what the reconcile keeps up to date

    /// Called by each reconcile with the streams each session claims that
    /// run now: a deactivation records what still ran, and ends when a
    /// stream of the session starts after it. Returns the sessions that
    /// ended with "notify others" and stay so.
    mutating func followDeactivations(running: [UInt32: Set<UInt32>]) -> Set<UInt32> {
        var notifying: Set<UInt32> = []
        for id in sessions.keys.sorted() {
            guard var session = sessions[id], var deactivation = session.deactivation else { continue }
            let now = running[id] ?? []
            if session.deactivationPending {
                deactivation.stillRunning = now
                session.deactivationPending = false
            } else if !now.subtracting(deactivation.stillRunning).isEmpty {
                session.deactivation = nil
                sessions[id] = session
                continue
            } else {
                deactivation.stillRunning.formIntersection(now)
            }
            session.deactivation = deactivation
            sessions[id] = session
            if deactivation.notifyOthers { notifying.insert(id) }
        }
        return notifying
    }

    /// The sessions were told their route: a category change is no longer news.
    mutating func toldDeclarations() {
        for id in sessions.keys where sessions[id]?.declarationChanged == true { sessions[id]?.declarationChanged = false }
    }
}
