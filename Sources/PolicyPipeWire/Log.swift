import Foundation

/// Logging to stderr with the sd-daemon priority prefixes (`<6>` …) that
/// journald turns into levels when the agent runs as a systemd user unit.
public final class Log: @unchecked Sendable {
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

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

    public var level: Level
    private let write: (String) -> Void

    public init(level: Level = .info, write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.level = level
        self.write = write
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        for line in message().split(separator: "\n", omittingEmptySubsequences: false) {
            write("<\(level.rawValue)>\(line)\n")
        }
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
