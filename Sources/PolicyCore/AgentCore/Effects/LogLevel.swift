/// The sd-daemon priorities (`<6>` …) that journald turns into levels.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    /// The names `init(name:)` takes, most severe first.
    public static let names = ["error", "warning", "notice", "info", "debug"]

    public init?(name: String) {
        switch name.lowercased() {
        case "error", "3": self = .error
        case "warning", "warn", "4": self = .warning
        case "notice", "5": self = .notice
        case "info", "6": self = .info
        case "debug", "7": self = .debug
        default: return nil
        }
    }
}
