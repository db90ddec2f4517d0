import PolicyModel

/// The socket libpipewire connects a client to, found the way its native
/// protocol finds it (the same in PipeWire 0.3.65 and 1.4): the remote is `PIPEWIRE_REMOTE` when set and not empty
/// (it wins over the name a client asks for), else that name, else
/// `pipewire-0`; an absolute name (or an abstract `@name`) is the socket
/// itself, any other is looked for in `PIPEWIRE_RUNTIME_DIR`, else
/// `XDG_RUNTIME_DIR`, else `USERPROFILE`, and then in `/run/pipewire`. What
/// the "no PipeWire" message names (docs/CLI.md, "Exit status").
public struct PipeWireSocket: Sendable, Equatable {
    /// The socket a person expects: the user's.
    public var path: String
    /// None of the runtime directory variables is set, so only the system
    /// socket was tried (`path`), never the user's.
    public var runtimeDirUnset: Bool

    public init(remote: String?, environment: [String: String]) {
        let remote = [environment["PIPEWIRE_REMOTE"], remote].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? "pipewire-0"
        // An empty variable counts as set: libpipewire takes getenv's "" as the directory.
        let runtimeDir = environment["PIPEWIRE_RUNTIME_DIR"] ?? environment["XDG_RUNTIME_DIR"] ?? environment["USERPROFILE"]
        if remote.hasPrefix("/") || remote.hasPrefix("@") {
            path = remote
            runtimeDirUnset = false
        } else {
            path = (runtimeDir ?? "/run/pipewire") + "/" + remote
            runtimeDirUnset = runtimeDir == nil
        }
    }

    /// What to tell a person when no daemon answered there.
    public var nobodyListens: String {
        let tried = runtimeDirUnset ? "tried the socket \(path); XDG_RUNTIME_DIR is not set" : "tried the socket \(path)"
        return "no PipeWire is running for this user (\(tried)); "
            + "start it with 'systemctl --user start pipewire pipewire-pulse wireplumber'"
    }
}
