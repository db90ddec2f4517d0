/// The systemd unit a desktop launched an app in, read from the process's
/// `/proc/PID/cgroup` (systemd's "Desktop Environment Integration": units named
/// `app[-<launcher>]-<ApplicationID>-<RANDOM>.scope`,
/// `app[-<launcher>]-<ApplicationID>[@<RANDOM>].service`, Flatpak's
/// `app-flatpak-<app id>-<instance>.scope`, snapd's `snap.<snap>.<app>-<uuid>.scope`;
/// docs/CLASSIFICATION.md, "App knowledge").
public struct LaunchUnit: Sendable, Equatable, Hashable {
    /// The unit's name as the cgroup path has it, escapes and all:
    /// `app-gnome-org.gnome.Rhythmbox3-12345.scope`.
    public var name: String
    /// The launcher named in the unit: `gnome`, `KDE`, `flatpak`, `cosmic`,
    /// `snap`, `autostart` (systemd's XDG autostart generator); nil when it names none.
    public var launcher: String?
    /// The application id: the desktop id, or the Flatpak app id, unescaped
    /// (`\x2d` is `-`): `org.gnome.Rhythmbox3`, `at-spi-dbus-bus`; for a snap,
    /// its desktop id `<snap>_<app>` (`firefox_firefox`).
    public var appID: String
    /// The other ways to read the name, likelier first: its first part may
    /// be a launcher or the start of the id (a launcher that leaves `-` in a
    /// desktop id unescaped, `app-google-chrome-1234.scope`, reads like one
    /// that names itself, `app-cosmic-com.system76.CosmicAppList-4376.scope`),
    /// and its last a RANDOM or the end of the id. The entries decide which
    /// one names an app (`AppFacts.findEntry`).
    public var alternatives: [Reading]

    public struct Reading: Sendable, Equatable, Hashable {
        public var launcher: String?
        public var appID: String
        public init(launcher: String?, appID: String) { self.launcher = launcher; self.appID = appID }
    }

    public init(name: String, launcher: String?, appID: String, alternatives: [Reading] = []) {
        self.name = name; self.launcher = launcher; self.appID = appID; self.alternatives = alternatives
    }

    /// Its readings, the likelier first.
    public var readings: [Reading] {
        [Reading(launcher: launcher, appID: appID)] + alternatives
    }

    /// The app unit of a process from the text of its `/proc/PID/cgroup`: the
    /// unified hierarchy's line (`0::/…`), else systemd's own v1 hierarchy
    /// (`1:name=systemd:/…`), and in its path the innermost unit that names an
    /// app. Nil when the process runs in no app unit (a login session's
    /// scope, a system service, a terminal's `vte-spawn-….scope` in no app slice).
    public static func parse(cgroupFile text: String) -> LaunchUnit? {
        var unified: Substring?
        var systemdV1: Substring?
        for line in text.split(whereSeparator: { $0 == "\n" }) {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { unified = fields[2] }
            if fields[1] == "name=systemd" { systemdV1 = fields[2] }
        }
        // On a hybrid system the unified line is `0::/`, and the v1 line has the path.
        let path = [unified, systemdV1].compactMap { $0 }.first { $0 != "/" }
        guard let path else { return nil }
        return parse(cgroupPath: path)
    }

    /// The innermost app unit of a cgroup path.
    public static func parse<S: StringProtocol>(cgroupPath path: S) -> LaunchUnit? {
        for component in path.split(separator: "/").reversed() {
            if let unit = parse(unitName: String(component)) { return unit }
        }
        return nil
    }

    /// One unit name, or nil when it names no app.
    public static func parse(unitName name: String) -> LaunchUnit? {
        if name.hasPrefix("snap.") { return parseSnap(name) }
        guard name.hasPrefix("app-") else { return nil }
        let kinds = [".scope", ".service", ".slice"]
        guard let kind = kinds.first(where: name.hasSuffix) else { return nil }
        var stem = Substring(name.dropFirst("app-".count).dropLast(kind.count))
        var instance: Substring?
        if kind == ".service", let at = stem.firstIndex(of: "@") {
            instance = stem[stem.index(after: at)...]
            stem = stem[..<at]
        }
        // `-` separates the parts; a `-` inside the id is escaped as `\x2d`.
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        // A scope's last part is its RANDOM. A service or a slice may end in
        // one (`app-rofi-easyeffects-19676.service`,
        // `app-gnome-org.gnome.Terminal-92502.slice`) or not
        // (`app-org.gnome.Terminal.slice`); a desktop id may look like one
        // (`0ad`), so both are read. The old autostart services ended in
        // `-autostart`.
        var stems: [ArraySlice<Substring>] = []
        if kind == ".scope" {
            guard parts.count >= 2 else { return nil }
            stems = [parts.dropLast()]
        } else if kind == ".service" && parts.count >= 2 && parts.last == "autostart" {
            stems = [parts.dropLast()]
            instance = "autostart"
        } else if instance == nil && parts.count >= 2 && isRandom(parts.last!) {
            stems = [parts.dropLast(), parts[...]]
        } else {
            stems = [parts[...]]
        }
        var readings: [Reading] = []
        for stem in stems {
            for reading in Self.readings(of: stem, instance: instance) where !readings.contains(reading) {
                readings.append(reading)
            }
        }
        guard let first = readings.first else { return nil }
        return LaunchUnit(name: name, launcher: first.launcher, appID: first.appID,
                          alternatives: Array(readings.dropFirst()))
    }

    /// A launcher's name is one word; the id after it is reverse-DNS or
    /// escaped. So a known launcher, or a word before a dotted id, is read
    /// as the launcher first, and the whole as the id second; any other
    /// first word is read as part of the id first.
    static func readings(of parts: ArraySlice<Substring>, instance: Substring?) -> [Reading] {
        guard let head = parts.first else { return [] }
        var readings: [Reading] = []
        let whole = Reading(launcher: nil, appID: unescape(parts.joined(separator: "-")))
        if parts.count >= 2 && isLauncherName(head) {
            let rest = unescape(parts.dropFirst().joined(separator: "-"))
            let named = Reading(launcher: String(head), appID: rest)
            readings = knownLaunchers.contains(head.lowercased()) || rest.contains(".") ? [named, whole] : [whole, named]
        } else {
            readings = [whole]
        }
        return readings.compactMap { reading in
            var reading = reading
            // D-Bus activation: `app-dbus\x2d:1.37\x2dorg.a11y.atspi.Registry.slice`
            // holds the service `org.a11y.atspi.Registry` started for bus `:1.37`.
            if reading.appID.hasPrefix("dbus-:"), let dash = reading.appID.dropFirst("dbus-:".count).firstIndex(of: "-") {
                reading.appID = String(reading.appID[reading.appID.index(after: dash)...])
                reading.launcher = reading.launcher ?? "dbus"
            }
            if reading.launcher == nil && instance == "autostart" { reading.launcher = "autostart" }
            return reading.appID.isEmpty ? nil : reading
        }
    }

    /// The launchers known to name themselves in their units (systemd's
    /// "Desktop Environment Integration": GNOME, KDE, Flatpak; COSMIC's,
    /// Steam's game scopes, UWSM's compositors), compared in lower case.
    static let knownLaunchers: Set<String> = [
        "gnome", "kde", "flatpak", "snap", "cosmic", "xfce", "budgie", "lxqt", "mate", "cinnamon", "pantheon",
        "steam", "dbus", "autostart", "sway", "hyprland", "niri", "wayfire", "river", "labwc", "rofi", "sirula",
    ]

    /// `snap.firefox.firefox-2c1b….scope` → snap `firefox`, app `firefox`:
    /// the desktop id snapd exports is `firefox_firefox`.
    static func parseSnap(_ name: String) -> LaunchUnit? {
        guard let kind = [".scope", ".service"].first(where: name.hasSuffix) else { return nil }
        var stem = Substring(name.dropFirst("snap.".count).dropLast(kind.count))
        // The instance is a UUID after `-` or `.` (8-4-4-4-12 hex digits).
        if stem.count > 37 {
            let uuid = stem.suffix(36)
            let separator = stem[stem.index(stem.endIndex, offsetBy: -37)]
            if (separator == "-" || separator == ".") && isUUID(uuid) { stem = stem.dropLast(37) }
        }
        let parts = stem.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return LaunchUnit(name: name, launcher: "snap", appID: "\(parts[0])_\(parts[1])")
    }

    /// A launcher's name has no dots: `gnome`, `KDE`, `flatpak`; an
    /// application id has them (or is one word, then it is the only part).
    static func isLauncherName<S: StringProtocol>(_ part: S) -> Bool {
        !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber }
    }

    /// A RANDOM part: hexadecimal digits (PIDs, instance ids, UUIDs without dashes).
    static func isRandom<S: StringProtocol>(_ part: S) -> Bool {
        !part.isEmpty && part.allSatisfy(\.isHexDigit)
    }

    static func isUUID<S: StringProtocol>(_ text: S) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    /// systemd's escaping (systemd-escape): `\xNN` is the byte NN.
    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, utf8.first == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: utf8.dropFirst().prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
