/// One place the desktop says the session is locked (docs/POLICY.md,
/// "Screen lock"): the screen savers' interface on the session bus, as KDE
/// Plasma and others offer it and as GNOME Shell offers its own, and
/// logind's `LockedHint` of the user's session on the system bus.
public struct ScreenLockSource: Sendable, Equatable, Hashable {
    public enum Mechanism: Sendable, Equatable, Hashable {
        /// A screen saver on the session bus: `GetActive()` → b and the
        /// signal `ActiveChanged(b)` of `interface`, at the first of
        /// `paths` that answers (KDE serves the same object at two).
        case screenSaver(busName: String, paths: [String], interface: String)
        /// logind's `LockedHint` of the user's session
        /// (`/org/freedesktop/login1/session/auto`: the caller's, or the
        /// user's display session for a service outside one), on the
        /// system bus, followed through PropertiesChanged.
        case logind
    }

    /// What status and explain call it ("GNOME", "logind").
    public var name: String
    public var mechanism: Mechanism

    public init(name: String, mechanism: Mechanism) {
        self.name = name; self.mechanism = mechanism
    }

    /// `org.freedesktop.ScreenSaver`: KDE Plasma (at `/ScreenSaver` and
    /// `/org/freedesktop/ScreenSaver`), Xfce, MATE, Cinnamon, LXQt.
    public static let freedesktop = ScreenLockSource(
        name: "screen saver",
        mechanism: .screenSaver(busName: "org.freedesktop.ScreenSaver",
                                paths: ["/org/freedesktop/ScreenSaver", "/ScreenSaver"],
                                interface: "org.freedesktop.ScreenSaver"))
    /// GNOME Shell's own, with the same members.
    public static let gnome = ScreenLockSource(
        name: "GNOME",
        mechanism: .screenSaver(busName: "org.gnome.ScreenSaver", paths: ["/org/gnome/ScreenSaver"],
                                interface: "org.gnome.ScreenSaver"))
    public static let logind = ScreenLockSource(name: "logind", mechanism: .logind)

    public static let builtIn: [ScreenLockSource] = [.freedesktop, .gnome, .logind]

    /// logind on the system bus: its name, manager and session interfaces,
    /// and the session object that stands for the user's.
    public static let logindBusName = "org.freedesktop.login1"
    public static let logindSessionInterface = "org.freedesktop.login1.Session"
    public static let logindAutoSession = "/org/freedesktop/login1/session/auto"
    public static let logindLockedHint = "LockedHint"
    /// The screen savers' members.
    public static let getActive = "GetActive"
    public static let activeChanged = "ActiveChanged"

    /// Where it is read, in a line for logs.
    public var location: String {
        switch mechanism {
        case .screenSaver(let busName, let paths, let interface):
            "\(busName) \(paths.joined(separator: " or ")) \(interface).\(Self.getActive)"
        case .logind:
            "system bus \(Self.logindBusName) \(Self.logindAutoSession) \(Self.logindSessionInterface).\(Self.logindLockedHint)"
        }
    }
}
