/// One place the desktop says "do not disturb", and the value there that
/// means it (docs/POLICY.md, "Do Not Disturb"). The built-in ones are the
/// mechanisms of KDE Plasma, GNOME and dunst; a config may add others
/// (`settings.silent.do-not-disturb-sources`).
public struct DoNotDisturbSource: Sendable, Equatable, Hashable {
    public enum Mechanism: Sendable, Equatable, Hashable {
        /// A D-Bus property of a well-known name, followed through
        /// PropertiesChanged and the name's owner changes.
        case busProperty(busName: String, path: String, interface: String, property: String)
        /// A GSettings key, read with the desktop's own GSettings (its schema
        /// default and system locks included) when dconf says it changed.
        case gsettings(schema: String, key: String)
    }

    /// What status and explain call it ("dunst", "GNOME").
    public var name: String
    public var mechanism: Mechanism
    /// The value, as text (`true`, `false`, `1`, `dnd`), that means "do not
    /// disturb"; any other value means the desktop may disturb.
    public var doNotDisturbValue: String

    public init(name: String, mechanism: Mechanism, doNotDisturbValue: String) {
        self.name = name; self.mechanism = mechanism; self.doNotDisturbValue = doNotDisturbValue
    }

    /// KDE Plasma's notification server: `Inhibited` is true while Do Not
    /// Disturb is on (its `org.freedesktop.Notifications` extension).
    public static let plasma = DoNotDisturbSource(
        name: "KDE Plasma",
        mechanism: .busProperty(busName: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                interface: "org.freedesktop.Notifications", property: "Inhibited"),
        doNotDisturbValue: "true")
    /// GNOME Shell hides banners, and plays no sounds, while
    /// `show-banners` is false: its Do Not Disturb switch.
    public static let gnome = DoNotDisturbSource(
        name: "GNOME", mechanism: .gsettings(schema: "org.gnome.desktop.notifications", key: "show-banners"),
        doNotDisturbValue: "false")
    /// dunst's pause (`dunstctl set-paused true`), on its control interface.
    public static let dunst = DoNotDisturbSource(
        name: "dunst",
        mechanism: .busProperty(busName: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                interface: "org.dunstproject.cmd0", property: "paused"),
        doNotDisturbValue: "true")

    public static let builtIn: [DoNotDisturbSource] = [.plasma, .gnome, .dunst]

    /// Where it is read, in a line for logs and status.
    public var location: String {
        switch mechanism {
        case .busProperty(let busName, let path, let interface, let property):
            "\(busName) \(path) \(interface).\(property)"
        case .gsettings(let schema, let key):
            "GSettings \(schema) \(key)"
        }
    }
}
