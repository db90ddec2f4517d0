import Foundation
import PolicyTestSupport

/// A private X display for clients that refuse to run without one
/// (canberra-gtk-play is a GTK program). Xvfb picks a free display number
/// itself and prints it (`-displayfd`), so tests side by side never race
/// for one, and it is our child: stopped by pid, unlike what `xvfb-run`
/// leaves behind when it is killed.
final class XvfbDisplay {
    let process: ChildProcess
    /// ":N", for DISPLAY.
    let name: String

    init(sandbox: Sandbox) throws {
        try RealClient.require("Xvfb", package: "xvfb")
        let output = sandbox.path("xvfb-\(UUID().uuidString).out")
        let process = try ChildProcess(["Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "320x240x24"],
                                             environment: sandbox.environment, stdout: output, stderr: output + ".err")
        self.process = process
        var number: String?
        _ = sandbox.wait(timeout: 10) {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { number = text.trimmingCharacters(in: .whitespacesAndNewlines) }
            return number != nil || !process.isRunning
        }
        guard let number, !number.isEmpty, process.isRunning else {
            throw RealClientError.notReady("Xvfb", details: (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? "")
        }
        name = ":" + number
    }

    func stop() { process.stop() }
    deinit { stop() }
}
