import PolicyModel
import PolicyStack

/// How `pw-policy` exits, the agent and every command alike: sysexits(3), as
/// users of the pw-* tools expect (docs/CLI.md, exit codes). The one table.
public enum ExitStatus: Int32, Sendable, Equatable {
    case ok = 0
    /// The stream, app or override named does not exist.
    case notFound = 1
    /// The command line is wrong (EX_USAGE).
    case usage = 64
    /// The input is not what it should be: a dump that is not pw-dump's JSON (EX_DATAERR).
    case dataError = 65
    /// An input file cannot be read (EX_NOINPUT).
    case noInput = 66
    /// PipeWire or the agent cannot be reached (EX_UNAVAILABLE).
    case unavailable = 69
    /// A bug or an unexpected answer (EX_SOFTWARE).
    case software = 70
    /// PipeWire refused the request to this client (EX_NOPERM).
    case noPermission = 77
    /// The configuration is invalid (EX_CONFIG).
    case config = 78
}
