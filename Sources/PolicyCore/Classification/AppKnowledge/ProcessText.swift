/// The NUL-separated files of `/proc/PID` (proc(5)): `cmdline` is the
/// arguments each ended by a NUL, `environ` is `KEY=value` entries the same way.
/// Bytes that are not UTF-8 become U+FFFD: a name is compared, never executed.
public enum ProcessText {
    /// The arguments of a `cmdline` file. A process that rewrote its
    /// command line into one string with spaces (some daemons do) gives one argument.
    public static func arguments(_ bytes: [UInt8]) -> [String] {
        fields(bytes).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The `KEY=value` entries of an `environ` file whose key is in `keys`
    /// (all when nil); the first of a repeated key counts, as getenv(3) finds it.
    public static func environment(_ bytes: [UInt8], keeping keys: Set<String>? = nil) -> [String: String] {
        var environment: [String: String] = [:]
        for field in fields(bytes) {
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")), equals != field.startIndex else { continue }
            let key = String(decoding: field[..<equals], as: UTF8.self)
            guard keys?.contains(key) ?? true, environment[key] == nil else { continue }
            environment[key] = String(decoding: field[(equals + 1)...], as: UTF8.self)
        }
        return environment
    }

    /// The NUL-terminated fields; a last field without its NUL counts too.
    static func fields(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var fields = bytes.split(separator: 0, omittingEmptySubsequences: false)
        if fields.last?.isEmpty == true { fields.removeLast() }
        return fields
    }
}
