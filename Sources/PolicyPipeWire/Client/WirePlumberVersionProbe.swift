import PolicyCore
#if canImport(Glibc)
import Glibc
#endif

/// Finds the version of a WirePlumber 0.4, which publishes none, from the
/// libwireplumber its process has loaded (`LinkedWirePlumberLibrary`). Reads
/// `/proc/PID/maps` once per process: readable for the user's own processes,
/// which the session's WirePlumber is; elsewhere (another pid namespace, a
/// sandbox) the version stays unknown, never wrong, since a process without
/// libwireplumber loaded gives none.
public final class WirePlumberVersionProbe {
    private var last: (pid: Int32, version: String?)?

    public init() {}

    public func version(pid: Int32) -> String? {
        if let last, last.pid == pid { return last.version }
        let version = Self.readFile("/proc/\(pid)/maps")
            .flatMap { LinkedWirePlumberLibrary.version(inMaps: $0) }?.description
        last = (pid, version)
        return version
    }

    /// procfs files report size 0: read until the end.
    static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += chunk[0..<count]
        }
    }
}
