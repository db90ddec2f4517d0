#if canImport(Glibc)
import Glibc
#endif

/// The current time as ISO 8601 in UTC ("2026-11-22T08:15:00Z"), what
/// Foundation's ISO8601DateFormatter writes, from the C library: the agent
/// does not load Foundation (docs/PERFORMANCE.md, "Memory").
enum UTCTimestamp {
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            + "T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
