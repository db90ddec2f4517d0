import PolicyCore

/// A command failed in a way the user can act on: one line for stderr and the
/// exit code it maps to (sysexits(3), as the pw-* tools use them).
public struct CLIFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The exit status it maps to.
    public typealias Kind = ExitStatus

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind; self.message = message
    }

    public var description: String { message }

    /// What a command that writes a request says when PipeWire refuses it.
    public static func writeRefused(remote: String) -> CLIFailure {
        CLIFailure(.noPermission,
                   "PipeWire at '\(remote)' refused the request: this client may read the '\(AgentProtocol.metadataName)' "
                   + "metadata but not write it (a sandboxed or restricted client, see pipewire.access)")
    }

    /// What every command that needs the agent says when it is not running.
    public static func agentNotRunning(remote: String) -> CLIFailure {
        CLIFailure(.unavailable,
                   "the agent is not running (no '\(AgentProtocol.metadataName)' metadata on PipeWire at '\(remote)'); "
                   + "start it with 'pw-policy run'")
    }
}
