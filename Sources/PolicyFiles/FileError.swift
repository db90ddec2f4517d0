#if canImport(Glibc)
import Glibc
#endif

/// A failed system call on a file: the path and errno, described as
/// strerror does ("No such file or directory").
public struct FileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var code: Int32
    public init(path: String, code: Int32) { self.path = path; self.code = code }
    /// What strerror says of the code, without the path.
    public var reason: String { String(cString: strerror(code)) }
    public var description: String { "\(path): \(reason)" }
}
