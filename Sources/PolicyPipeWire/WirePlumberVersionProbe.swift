import PolicyCore
import PolicyFiles

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
        let version = FileContents.text(at: "/proc/\(pid)/maps")
            .flatMap { LinkedWirePlumberLibrary.version(inMaps: $0) }?.description
        last = (pid, version)
        return version
    }
}
