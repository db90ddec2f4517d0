import ArgumentParser
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// `pw-policy version`, in the three-line style of the pw-* tools.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Show the version and the libpipewire versions.")

    @OptionGroup var color: ColorOptions

    static let number = PolicyVersion.number

    static var text: String {
        PipeWireLibrary.initialize()
        return """
        pw-policy \(number)
        Compiled with libpipewire \(PipeWireLibrary.compiledVersion)
        Linked with libpipewire \(PipeWireLibrary.linkedVersion)
        """
    }

    func run() {
        print(Self.text)
    }
}
