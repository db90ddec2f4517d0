import Foundation
import PolicyTestSupport

/// Headless Chromium on a local page in a "call": an `<audio>` element plays
/// the far end (a long tone, looped) while getUserMedia holds the
/// microphone; the test ends the microphone part, as a web call that stops
/// sending audio does, and the page plays on.
///
/// What Chromium 156 does there (through pipewire-pulse, all from its audio
/// service process, one `application.process.id`, while its MPRIS player
/// `org.mpris.MediaPlayer2.chromium.instance<browser pid>` is the browser
/// process, the audio service's parent): a playback stream
/// ("Chromium", media.name "Playback") opens with the page; the capture
/// ("Chromium input", "RecordStream") opens with getUserMedia and Chromium
/// then moves the page's audio to a second playback stream (the first goes
/// `idle` and is closed 5 s later); about 1 s after the microphone stops
/// the capture is gone and Chromium moves the audio to a third playback
/// stream, without a gap. Each move is a new node.
final class ChromiumCall {
    /// The page stops its microphone when the player is asked for the next
    /// track (`playerctl next`): a signal the test can send at the moment it
    /// chooses that touches neither the media element nor its playback.
    /// Every step is logged to the console, which Chromium prints on stderr
    /// (`--enable-logging=stderr`) as `"pw-policy-call: …"`.
    static let page = """
        <!doctype html>
        <title>pw-policy call</title>
        <audio id="far" loop></audio>
        <script>
        const far = document.getElementById("far");
        const say = what => console.log("pw-policy-call: " + what);
        let microphone = null;
        far.addEventListener("playing", () => say("playing"));
        far.addEventListener("pause", () => say("paused"));
        far.src = new URLSearchParams(location.search).get("audio");
        far.play().catch(error => say("play failed: " + error));
        navigator.mediaDevices.getUserMedia({ audio: true }).then(
          stream => { microphone = stream; say("microphone on"); },
          error => say("microphone failed: " + error));
        navigator.mediaSession.setActionHandler("nexttrack", () => {
          if (microphone) { microphone.getTracks().forEach(track => track.stop()); microphone = null; say("microphone stopped"); }
        });
        </script>
        """

    let process: ChildProcess
    let sandbox: Sandbox
    let stderrPath: String

    /// Opens the page with `audio` (a file) as the far end. The sandbox needs
    /// pipewire-pulse and a default source (`VirtualMicrophone`).
    init(sandbox: Sandbox, audio: String) throws {
        try RealClient.require("chromium", package: "chromium")
        self.sandbox = sandbox
        let home = sandbox.path("chromium")
        try FileManager.default.createDirectory(atPath: home + "/tmp", withIntermediateDirectories: true)
        let pagePath = sandbox.path("call.html")
        try ChromiumCall.page.write(toFile: pagePath, atomically: true, encoding: .utf8)
        var url = URLComponents(url: URL(fileURLWithPath: pagePath), resolvingAgainstBaseURL: false)!
        url.queryItems = [URLQueryItem(name: "audio", value: URL(fileURLWithPath: audio).absoluteString)]
        stderrPath = sandbox.path("chromium.stderr")
        // --no-sandbox: Chromium's own sandbox refuses to run as root. The
        // fake UI grants getUserMedia; the device is the default PipeWire
        // source (a fake device would capture nothing in PipeWire). Its
        // profile, caches and temporary files stay in the sandbox.
        process = try sandbox.spawn(["chromium", "--headless=new", "--no-sandbox", "--no-first-run",
                                     "--autoplay-policy=no-user-gesture-required", "--use-fake-ui-for-media-stream",
                                     "--user-data-dir=\(home)/profile", "--enable-logging=stderr", "--v=0",
                                     url.string!],
                                    extraEnvironment: ["HOME": home, "TMPDIR": home + "/tmp", "XDG_CACHE_HOME": home + "/cache"],
                                    stderr: stderrPath)
    }

    var pid: Int32 { process.pid }
    /// Its MPRIS player, as playerctl names it.
    var playerName: String { "chromium.instance\(pid)" }
    var busName: String { "org.mpris.MediaPlayer2." + playerName }

    /// What the page logged, in order.
    var console: [String] {
        ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "\"pw-policy-call: ") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != "\"" })
        }
    }

    /// Waits, turning `client`'s loop, until the page logged `message`.
    func waitFor(_ message: String, timeout: Double = 20, pumping client: TestClient) -> Bool {
        client.wait(timeout: timeout) { _ in self.console.contains(message) || !self.process.isRunning }
            && console.contains(message)
    }

    /// The player's PlaybackStatus, as playerctl reads it; nil when absent.
    func playbackStatus(pumping client: TestClient) -> String? {
        guard let result = try? client.run(["playerctl", "-p", playerName, "status"], in: sandbox),
              result.status == 0 else { return nil }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Asks the page to stop its microphone (see `page`).
    func stopMicrophone(pumping client: TestClient) throws {
        let result = try client.run(["playerctl", "-p", playerName, "next"], in: sandbox)
        guard result.status == 0 else { throw RealClientError.notReady("playerctl next", details: result.stderr) }
    }

    /// Ends the browser and whatever of its processes outlive it: its
    /// zygotes and utility processes are reparented when it dies by SIGKILL.
    func stop() {
        let family = ChromiumCall.descendants(of: process.pid)
        process.stop()
        for pid in family where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }

    deinit { stop() }

    private static func descendants(of root: pid_t) -> [pid_t] {
        var parents: [pid_t: pid_t] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
        }
        var family: [pid_t] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            family += children
            frontier += children
        }
        return family
    }
}
