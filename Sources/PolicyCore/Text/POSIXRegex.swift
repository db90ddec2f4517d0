#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A compiled POSIX extended regular expression, the dialect PipeWire and
/// WirePlumber use for `~pattern` rule values, so a rule behaves here as it
/// would in their configs.
public final class POSIXRegex: @unchecked Sendable {
    // regex_t is only read by regexec after compilation, which POSIX allows
    // from several threads at once.
    private var compiled = regex_t()
    public let pattern: String

    public struct CompileError: Error, Equatable, CustomStringConvertible {
        public var pattern: String
        public var message: String
        public var description: String { "invalid regular expression '\(pattern)': \(message)" }
    }

    public init(_ pattern: String) throws(CompileError) {
        self.pattern = pattern
        let status = regcomp(&compiled, pattern, REG_EXTENDED | REG_NOSUB)
        guard status == 0 else {
            var buffer = [CChar](repeating: 0, count: 256)
            regerror(status, &compiled, &buffer, buffer.count)
            let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CompileError(pattern: pattern, message: message)
        }
    }

    deinit { regfree(&compiled) }

    public func matches(_ string: String) -> Bool {
        regexec(&compiled, string, 0, nil, 0) == 0
    }
}
