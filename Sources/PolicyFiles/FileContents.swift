#if canImport(Glibc)
import Glibc
#endif

/// A whole file read with plain system calls: the agent does not load
/// Foundation (docs/PERFORMANCE.md, "The agent's memory"). Read until the
/// end rather than by size, since procfs files report size 0.
public enum FileContents {
    public static func bytes(at path: String) throws(FileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError(path: path, code: errno) }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return contents }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, code: errno)
            }
            contents.append(contentsOf: chunk[0..<count])
        }
    }

    /// The file as UTF-8 text; nil when it cannot be read or is not UTF-8.
    public static func text(at path: String) -> String? {
        (try? bytes(at: path)).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
