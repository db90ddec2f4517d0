import PolicyFiles
#if canImport(Glibc)
import Glibc
#endif

/// What a Flatpak sandbox says about itself in `/.flatpak-info` (a GLib key
/// file): the app id and the instance. The adapter reads it through
/// /proc/<pid>/root of a player's bus connection — for a Flatpak app that is
/// its D-Bus proxy, which flatpak starts with the same file (docs/PLAYERS.md).
public struct FlatpakInfo: Sendable, Equatable {
    public var appID: String
    public var instanceID: String?

    public init(appID: String, instanceID: String? = nil) {
        self.appID = appID; self.instanceID = instanceID
    }

    /// Reads the sandbox info of `pid`; nil when it is not in one (or is gone).
    public static func read(pid: Int32, proc: String = "/proc") -> FlatpakInfo? {
        guard let text = FileContents.text(at: "\(proc)/\(pid)/root/.flatpak-info") else { return nil }
        return parse(text)
    }

    /// `[Application] name=` and `[Instance] instance-id=`; nil without an app id.
    public static func parse(_ text: String) -> FlatpakInfo? {
        var group = ""
        var appID: String?, instanceID: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingWhitespace()
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            switch (group, key) {
            case ("Application", "name"): appID = value
            case ("Instance", "instance-id"): instanceID = value
            default: break
            }
        }
        guard let appID, !appID.isEmpty else { return nil }
        return FlatpakInfo(appID: appID, instanceID: instanceID?.isEmpty == true ? nil : instanceID)
    }
}
