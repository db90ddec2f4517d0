import ArgumentParser
import Foundation
import PolicyAgent
import PolicyCore
import PolicyDBus
import PolicyPipeWire

/// `pw-policy launch`: runs a command with its streams declared, for apps
/// that cannot call the audio-session API themselves (docs/API.md,
/// "pw-policy launch").
struct LaunchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch",
        abstract: "Run a command with its audio streams declared (category, options, mode).",
        discussion: """
        Makes an audio session on the agent's org.pwpolicy.AudioSession1 service and \
        runs COMMAND as its child, so the session governs every stream COMMAND and its \
        children open, native and PulseAudio clients alike; the declaration and the \
        session's token are also set on their streams through PIPEWIRE_PROPS and \
        PULSE_PROP. Without a session bus or an agent, COMMAND runs with those \
        properties alone. SIGTERM and SIGHUP are passed on to COMMAND; SIGINT and \
        SIGQUIT, which a terminal sends to both, are left to it. Exits with COMMAND's \
        status (128 + the signal that ended it), 127 when it cannot be run, 64 on a \
        bad option.

        Examples:
          pw-policy launch --category ambient -- 0ad
          pw-policy launch --category playback --option duck-others -- spd-say hi
        """)

    @Option(help: ArgumentHelp("The category: \(Category.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "category"),
            completion: .list(Category.allCases.map(\.rawValue)))
    var category: String

    @Option(name: .customLong("option"),
            help: ArgumentHelp("An option, repeatable: \(PolicyOption.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "option"),
            completion: .list(PolicyOption.allCases.map(\.rawValue)))
    var options: [String] = []

    @Option(help: ArgumentHelp("The mode: \(AudioMode.allCases.map(\.rawValue).joined(separator: " or ")).", valueName: "mode"),
            completion: .list(AudioMode.allCases.map(\.rawValue)))
    var mode = AudioMode.default.rawValue

    /// It prints no colour; taken like every command's that prints.
    @OptionGroup var color: ColorOptions

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if case .failure(let refusal) = AudioSessionTable.declaration(category: category, options: options, mode: mode) {
            throw ValidationError(refusal.message)
        }
        if command.isEmpty { throw ValidationError("no command to run: pw-policy launch --category CATEGORY -- COMMAND [ARGS]") }
    }

    func run() throws {
        guard case .success(let declaration) = AudioSessionTable.declaration(category: category, options: options, mode: mode)
        else { throw ExitCode(.usage) }
        let loop = EventLoop()
        var environment = ProcessInfo.processInfo.environment
        // The session lives as long as this connection: kept until COMMAND ends.
        let client = Self.session(declaration, environment: environment, loop: loop)
        environment.merge(LaunchEnvironment.variables(for: declaration, token: client?.token, existing: environment)) { $1 }

        var child: pid_t = 0
        var status: Int32?
        // Before the child exists, so that neither its end nor a signal is missed.
        let reap = { (stop: Bool) in
            var raw: Int32 = 0
            guard child > 0, status == nil, waitpid(child, &raw, WNOHANG) == child else { return }
            status = Self.exitStatus(raw)
            if stop { loop.stop() }
        }
        var sources = [loop.onSignal(SIGCHLD) { reap(true) }]
        for signal in [SIGTERM, SIGHUP] {
            sources.append(loop.onSignal(signal) { if child > 0, status == nil { kill(child, signal) } })
        }
        // As system(3) does: the terminal sends these to COMMAND itself.
        for signal in [SIGINT, SIGQUIT] { sources.append(loop.onSignal(signal) {}) }
        switch Self.spawn(command, environment: environment) {
        case .success(let pid): child = pid
        case .failure(let error):
            printError("cannot run \(command[0]): \(String(cString: strerror(error.code)))")
            throw ExitCode(127)
        }
        reap(false)
        if status == nil { loop.run() }
        sources.removeAll()
        withExtendedLifetime(client) {}
        throw ExitCode(status ?? 0)
    }

    /// The session made for COMMAND, or nil (said on stderr) when there is
    /// no bus or no agent answering.
    static func session(_ declaration: AudioSessionTable.Declaration, environment: [String: String],
                        loop: EventLoop) -> AudioSessionClient? {
        switch SessionBus.connect(address: environment["DBUS_SESSION_BUS_ADDRESS"], on: loop) {
        case .failure(let error):
            printError("no audio session (\(error)); the streams carry the declaration as their own properties")
            return nil
        case .success(let bus):
            let client = AudioSessionClient(bus: bus)
            var answer: BusCallError??
            client.create(declaration) { answer = .some($0) }
            loop.run(timeout: 3) { answer != nil }
            switch answer {
            case .some(.none): return client
            case .some(.some(let error)):
                printError("no audio session (\(error)); the streams carry the declaration as their own properties")
            case .none:
                printError("no audio session (\(AudioSessionAPI.busName) did not answer within 3 s); "
                    + "the streams carry the declaration as their own properties")
            }
            return nil
        }
    }

    struct SpawnError: Error { var code: Int32 }

    /// Starts `arguments` from the PATH with `environment`, the terminal
    /// and the signals as a shell would leave them.
    static func spawn(_ arguments: [String], environment: [String: String]) -> Result<pid_t, SpawnError> {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], nil, &attributes, argv, envp)
        return result == 0 ? .success(pid) : .failure(SpawnError(code: result))
    }

    /// A waitpid status as a shell reports it.
    static func exitStatus(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }
}
