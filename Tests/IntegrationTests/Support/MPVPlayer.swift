import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import PolicyTestSupport
#endif

/// A real mpv playing a file (looped) in a sandbox, with no config, its
/// JSON IPC server on a socket — its playback position is the app's clock
/// the hold tests watch (docs/HOLDS.md) — and either no scripts (no MPRIS)
/// or the mpv-mpris plugin (docs/PLAYERS.md).
final class MPVPlayer {
    /// `--no-config` keeps the user's config out and with it
    /// /etc/mpv/scripts, so the plugin is loaded by path.
    static var mprisPlugin: String? {
        ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so",
         "/usr/lib/x86_64-linux-gnu/mpv/scripts/mpris.so"].first { FileManager.default.fileExists(atPath: $0) }
    }

    let process: ChildProcess
    let socketPath: String

    /// `output` is mpv's `--ao`: "pipewire" (a stream with
    /// node.always-process) or "pulse" (through pipewire-pulse). `mpris`
    /// loads the mpv-mpris plugin (the player on the sandbox's session
    /// bus); `device` is a sink's node name.
    init(sandbox: Sandbox, file: String, output: String, name: String = "mpv", mpris: Bool = false,
         device: String? = nil) throws {
        socketPath = sandbox.path("\(name).sock")
        var arguments = ["mpv", "--no-config", "--no-video", "--loop-file=inf", "--ao=\(output)",
                         "--input-ipc-server=\(socketPath)"]
        if mpris {
            arguments.append("--script=\(try #require(MPVPlayer.mprisPlugin, "mpv-mpris is not installed"))")
        } else {
            arguments.append("--load-scripts=no")
        }
        if let device { arguments.append("--audio-device=\(output)/\(device)") }
        process = try sandbox.spawn(arguments + [file], stderr: sandbox.path("\(name).stderr"))
    }

    var pid: Int32 { process.pid }

    func stop() { process.stop() }
    deinit { stop() }

    /// `time-pos` in seconds, or nil when mpv does not answer (yet).
    func position() -> Double? {
        guard let reply = request(#"{"command":["get_property","time-pos"]}"#),
              reply["error"] as? String == "success" else { return nil }
        return reply["data"] as? Double
    }

    /// Whether mpv is paused (its `pause` property), nil when it does not
    /// answer: read straight from mpv, not from its MPRIS properties, which
    /// mpv-mpris announces up to 0.1 s later (docs/PLAYERS.md).
    func isPaused() -> Bool? {
        guard let reply = request(#"{"command":["get_property","pause"]}"#),
              reply["error"] as? String == "success" else { return nil }
        return reply["data"] as? Bool
    }

    /// Sets an mpv property (as a person would, e.g. `pause`); true on success.
    @discardableResult
    func set(_ property: String, to value: Bool) -> Bool {
        request(#"{"command":["set_property","\#(property)",\#(value)]}"#)?["error"] as? String == "success"
    }

    /// Sends one IPC command and returns its reply (mpv's event lines,
    /// which carry no "error", are skipped).
    private func request(_ line: String) -> [String: Any]? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard socketPath.utf8.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: socketPath.utf8)
            raw[socketPath.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return nil }
        let bytes = Array((line + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return nil }
            received += buffer[0..<count]
            while let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                let reply = Data(received[..<newline])
                received.removeSubrange(...newline)
                if let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any],
                   object["error"] != nil {
                    return object
                }
            }
        }
    }
}
