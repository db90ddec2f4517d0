import Foundation
import PolicyTestSupport
import Testing

/// A real client of the audio-session API on a scene's sandbox:
/// `Tests/Clients/audio-session-client` (python3-dbus, written against
/// docs/API.md), steered by lines on its stdin; what it printed is read
/// back as `Line`s (docs/TESTING.md).
final class APIClient {
    static let script = Sandbox.repositoryRoot + "/Tests/Clients/audio-session-client"

    /// One line it printed: `TIME WORD REST…`.
    struct Line: CustomStringConvertible {
        var time: Double
        var word: String
        var rest: [String]
        var description: String { "\(String(format: "%.3f", time)) \(word) \(rest.joined(separator: " "))" }
        /// What follows the word, as printed.
        var text: String { rest.joined(separator: " ") }
    }

    let name: String
    let process: ChildProcess
    private let scene: AgentScene
    private let output: String
    /// Its unique bus name and pid, from its `ready` line.
    private(set) var uniqueName = ""
    private(set) var pid: Int32 = 0
    /// The session it made last.
    private(set) var session = ""

    init(_ name: String, scene: AgentScene) throws {
        try RealClient.require("python3", package: "python3")
        self.name = name
        self.scene = scene
        output = scene.sandbox.path("\(name).out")
        process = try ChildProcess([Self.script], environment: scene.sandbox.environment, input: true, stdout: output,
                                   stderr: scene.sandbox.path("\(name).err"))
        let ready = try #require(wait { $0.word == "ready" }, "the client \(name) did not start: \(errors)")
        uniqueName = ready.rest.first ?? ""
        pid = Int32(ready.rest.dropFirst().first ?? "") ?? 0
    }

    var errors: String { (try? String(contentsOfFile: scene.sandbox.path("\(name).err"), encoding: .utf8)) ?? "" }

    var lines: [Line] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // Whole lines only: the client may be writing the last one.
        let whole = text.lastIndex(of: "\n").map { text[...$0] } ?? ""
        return whole.split(separator: "\n").compactMap { raw in
            let words = raw.split(separator: " ").map(String.init)
            guard words.count >= 2, let time = Double(words[0]) else { return nil }
            return Line(time: time, word: words[1], rest: Array(words.dropFirst(2)))
        }
    }

    /// Waits (turning the scene's loop) for a line after the first `after`.
    func wait(after: Int = 0, timeout: Double = 5, _ condition: (Line) -> Bool) -> Line? {
        var found: Line?
        _ = scene.client.wait(timeout: timeout) { _ in
            found = self.lines.dropFirst(after).first(where: condition)
            return found != nil
        }
        return found
    }

    /// Sends a command and waits for its answer (`created`, `done`, `error`,
    /// `property`, `spawned`, `exited`, `flooded`, `introspection`); records
    /// an issue and returns nil when none came.
    @discardableResult
    func request(_ command: String, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation) -> Line? {
        let before = lines.count
        process.send([command])
        let answers: Set<String> = ["created", "done", "error", "property", "spawned", "exited", "flooded", "introspection"]
        let answer = wait(after: before, timeout: timeout) { answers.contains($0.word) }
        print("api client \(name): \(command) → \(answer.map(\.description) ?? "no answer")")
        if answer == nil { Issue.record("\(name) did not answer '\(command)': \(errors)", sourceLocation: sourceLocation) }
        if let answer, answer.word == "created" { session = answer.text }
        return answer
    }

    /// `create` and the session's path.
    @discardableResult
    func create(_ category: String, options: [String] = [], mode: String = "-",
                sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let answer = request("create \(category) \(options.isEmpty ? "-" : options.joined(separator: ",")) \(mode)",
                             sourceLocation: sourceLocation)
        #expect(answer?.word == "created", "\(String(describing: answer))", sourceLocation: sourceLocation)
        return session
    }

    /// A property of its current session, as JSON text.
    func property(_ name: String) -> String? {
        let answer = request("get \(name)")
        return answer?.word == "property" ? answer?.rest.dropFirst().joined(separator: " ") : nil
    }

    /// The signals it got since line `after`, as `Member ARGS` (PropertiesChanged with what changed).
    func signals(after: Int = 0) -> [(time: Double, text: String)] {
        lines.dropFirst(after).filter { $0.word == "signal" }.map { ($0.time, $0.rest.dropFirst().joined(separator: " ")) }
    }

    /// Asks it to quit (its sessions end as it leaves the bus), once; a
    /// client that already left is not written to (its closed stdin would
    /// be a SIGPIPE for the test runner).
    func stop() {
        guard process.isRunning else { return }
        process.send(["quit"])
        if !process.waitForExit(timeout: 3) { process.stop() }
    }

    deinit { process.stop() }
}
