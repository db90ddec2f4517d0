import PolicyFiles

/// What changed outside the graph that the control loop observes
/// (`AgentCore.Observation`): each source of a desktop change names itself,
/// though all of them end in the same reconcile (`ReconcileSchedule`).
enum DesktopChange: String, CaseIterable, Sendable {
    /// The MPRIS players or their states (`MPRISObserver`).
    case players
    /// The installed desktop entries (`DirectoryWatcher`, `AppKnowledgeObserver`).
    case desktopEntries = "desktop entries"
    /// What the desktop's Do Not Disturb says (`DoNotDisturbObserver`).
    case doNotDisturb = "Do Not Disturb"
    /// Whether the session is locked (`ScreenLockObserver`).
    case screenLock = "screen lock"
    /// Whether pw-policy's media-key proxy is on the bus (`MediaKeysProxy`).
    case mediaKeys = "media-key proxy"
    /// A call to the audio-session service that changed something, an
    /// owner identified or gone, the service on the bus or off it.
    case audioSessions = "audio sessions"
    /// The session bus went away, and with it every input above.
    case sessionBus = "session bus"
}

/// When a session reconciles: once on the loop's next turn for a burst of
/// graph events, and for desktop changes at once, then at most once per
/// `desktopInterval` while they keep changing — a player that floods the
/// bus costs ten reconciles a second, not one per signal, and the graph's
/// own changes still reconcile on the next turn (docs/PLAYERS.md, "A player
/// that floods the bus"). On any loop: `ReconcileScheduleTests` runs it on
/// the embedded one.
final class ReconcileSchedule<Loop: EventLoopProtocol> {
    static var desktopInterval: Double { 0.1 }

    private let loop: Loop
    private var reconcileTimer: Loop.Timer!
    /// Holds back the reconciles of desktop changes after the first of a burst.
    private var desktopTimer: Loop.Timer!
    private var lastDesktopReconcile = -Double.infinity
    /// The desktop changes since the last desktop reconcile, for the log.
    private var changes: Set<DesktopChange> = []
    private let log: (String) -> Void
    /// Reconciles are scheduled only while this holds: from the first
    /// complete graph until the restore, never when only restoring.
    var isEnabled = false

    /// `reconcile` runs when a reconcile comes due; `log` takes debug lines.
    init(loop: Loop, log: @escaping (String) -> Void, reconcile: @escaping () -> Void) {
        self.loop = loop
        self.log = log
        reconcileTimer = loop.makeTimer(reconcile)
        desktopTimer = loop.makeTimer { [unowned self] in self.desktopReconcileDue() }
    }

    /// A reconcile is due on this turn of the loop.
    var isDue: Bool { reconcileTimer.isPending }

    /// A reconcile on the loop's next turn, one for a burst of changes (and
    /// one syscall, not one each).
    func soon() {
        if isEnabled, !reconcileTimer.isPending { reconcileTimer.schedule(after: 0) }
    }

    /// `change` happened: a reconcile at once, or when `desktopInterval`
    /// has passed since the last one.
    func desktopChanged(_ change: DesktopChange) {
        loop.preconditionInEventLoop()
        changes.insert(change)
        guard !desktopTimer.isPending else { return }
        let wait = lastDesktopReconcile + Self.desktopInterval - loop.now
        if wait > 0 { desktopTimer.schedule(after: wait) } else { desktopReconcileDue() }
    }

    private func desktopReconcileDue() {
        lastDesktopReconcile = loop.now
        if isEnabled {
            log("reconcile: \(DesktopChange.allCases.filter(changes.contains).map(\.rawValue).joined(separator: ", ")) changed")
        }
        changes = []
        soon()
    }

    /// No more reconciles (the restore at exit: one would take back what it restores).
    func stop() {
        isEnabled = false
        reconcileTimer.cancel()
        desktopTimer.cancel()
    }
}
