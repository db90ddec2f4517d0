#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyPipeWire

/// Logging to stderr with the sd-daemon priority prefixes (`<6>` …) that
/// journald turns into levels when the agent runs as a systemd user unit.
public final class Log: @unchecked Sendable {
    public typealias Level = LogLevel

    public var level: Level
    private let write: (String) -> Void

    public init(level: Level = .info, write: @escaping (String) -> Void = Log.standardError) {
        self.level = level
        self.write = write
    }

    /// Writes the whole text to descriptor 2 (as FileHandle.standardError
    /// would, without Foundation: docs/PERFORMANCE.md, "Memory").
    public static func standardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
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
