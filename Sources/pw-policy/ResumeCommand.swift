import ArgumentParser
import PolicyCLI

/// `pw-policy resume`: continues a held stream.
struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a stream the policy holds (e.g. after its headphones were unplugged).",
        discussion: """
        A stream held because its private output went away stays held until you resume it; \
        one interrupted by another session resumes on its own when that session ends, if \
        the interruption was resumable. Resuming relinks the stream and restores its gain.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var argument: StreamArgument
    @OptionGroup var color: ColorOptions

    func run() throws {
        try reportingFailures {
            let session = try PipeWireSession.open(remote: remote.remote)
            _ = try session.requireAgent()
            let target = try StreamResolver.resolve(argument.stream, among: session.streams, graph: session.graph)
            guard target.status?.hold != nil else {
                print("stream \(target.id) \"\(target.app)\" is not held; nothing to resume")
                return
            }
            try session.write(ControlWrites.resume(target.id))
            // Our request reaches us back through the agent after the round
            // trip, so "handled" means: seen pending, then gone (or resumed).
            var sawRequest = false
            let handled = session.waitForAgent { snapshot in
                if snapshot.pendingResumes.contains(target.id) { sawRequest = true; return false }
                return sawRequest || snapshot.streams[target.id]?.hold == nil
            }
            if !handled {
                print("stream \(target.id) \"\(target.app)\": resume requested; the agent has not handled it yet")
            } else if let hold = session.snapshot.streams[target.id]?.hold {
                print("stream \(target.id) \"\(target.app)\" is still held (\(hold.kind)"
                      + (hold.byName.map { " by \($0)" } ?? "") + "): see 'pw-policy explain \(target.id)'")
            } else {
                print("stream \(target.id) \"\(target.app)\" resumed")
            }
        }
    }
}
