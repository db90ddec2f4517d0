import Foundation
import PolicyTestSupport

/// An alert played by libcanberra's `canberra-gtk-play` through
/// pipewire-pulse, as a desktop's event sounds are: its stream has
/// `media.role` Notification (pulse's `event`), `event.description` and
/// `application.id` org.freedesktop.libcanberra.gtk-play. libcanberra reads
/// only 16-bit PCM WAV (a 32-bit one fails with "Operation not supported"):
/// `Audio.writeTone` writes such files. The stream waits for its whole
/// prebuffer (about 2 s of audio) or the end of the file before it starts.
final class CanberraAlert {
    let process: ChildProcess
    let errorPath: String

    /// Starts playing `file` on `display`; `description` becomes the
    /// stream's event.description.
    init(sandbox: Sandbox, display: XvfbDisplay, file: String, description: String) throws {
        try RealClient.require("canberra-gtk-play", package: "gnome-session-canberra")
        // Without its pulse driver libcanberra falls back to ALSA, which
        // reaches no sandbox.
        let architectures = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        guard architectures.contains(where: {
            FileManager.default.fileExists(atPath: "/usr/lib/\($0)/libcanberra-0.30/libcanberra-pulse.so")
        }) else {
            throw RealClientError.missing("libcanberra-pulse.so", package: "libcanberra-pulse")
        }
        errorPath = sandbox.path("canberra-\(UUID().uuidString).stderr")
        // No accessibility bridge and no dconf: GTK would start at-spi's
        // bus and dconf's service on the sandbox's session bus for nothing.
        process = try sandbox.spawn(["canberra-gtk-play", "-f", file, "-d", description],
                                    extraEnvironment: ["DISPLAY": display.name, "NO_AT_BRIDGE": "1",
                                                       "GSETTINGS_BACKEND": "memory"],
                                    stderr: errorPath)
    }

    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until it has played the file and exited; its exit status.
    func waitUntilPlayed(timeout: Double = 10, pumping client: TestClient) -> Int32? {
        _ = process.waitForExit(timeout: timeout) { client.loop.iterate(timeout: 0.01) }
        return process.exitStatus
    }

    func stop() { process.stop() }
    deinit { stop() }
}
