#if canImport(Glibc)
import Glibc
#endif

/// The text of a small file such as `/proc/PID/stat`; nil when it cannot be
/// read or is not UTF-8. Plain system calls: the agent does not load
/// Foundation (docs/PERFORMANCE.md, "Memory").
enum ProcFile {
    static func text(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            contents.append(contentsOf: chunk[0..<count])
        }
        return String(validating: contents, as: UTF8.self)
    }
}
