#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyAgent
import PolicyPipeWire

// The agent of `pw-policy run`, which starts it: the same agent, in an
// executable without Foundation or the command line's parser, so that the
// long-running process stays small (docs/PERFORMANCE.md, "Memory").
let arguments = CommandLine.arguments.dropFirst()
guard arguments.first == "run", let launch = AgentLaunch(arguments: Array(arguments.dropFirst())) else {
    Log.standardError("pw-policy-agent: not a command; start the agent with 'pw-policy run'\n")
    exit(ExitStatus.usage.rawValue)
}
exit(launch.run(version: PolicyVersion.number).rawValue)
