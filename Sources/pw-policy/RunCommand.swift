import ArgumentParser

/// `pw-policy run`: the agent. (Being written by the lead.)
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the policy agent.")
    @OptionGroup var remote: RemoteOptions
    func run() throws {}
}
