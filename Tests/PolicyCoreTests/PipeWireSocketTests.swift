import Testing
import PolicyCore

/// With no PipeWire, say that none runs for this user and name the
/// socket libpipewire tried, found the way it finds it.
@Suite struct PipeWireSocketTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var remote: String?
        var environment: [String: String]
        var path: String
        var runtimeDirUnset = false
        var testDescription: String
    }

    static let cases: [Case] = [
        Case(remote: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], path: "/run/user/1000/pipewire-0",
             testDescription: "the default remote in the user's runtime directory"),
        Case(remote: "pipewire-0", environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "PIPEWIRE_RUNTIME_DIR": "/tmp/pw"],
             path: "/tmp/pw/pipewire-0", testDescription: "PIPEWIRE_RUNTIME_DIR first"),
        Case(remote: nil, environment: ["USERPROFILE": "/home/u", "HOME": "/home/v"], path: "/home/u/pipewire-0",
             testDescription: "USERPROFILE without XDG_RUNTIME_DIR; HOME is not looked at"),
        Case(remote: "other", environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], path: "/run/user/1000/other",
             testDescription: "-r NAME"),
        Case(remote: "other", environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "PIPEWIRE_REMOTE": "mine"],
             path: "/run/user/1000/mine", testDescription: "PIPEWIRE_REMOTE wins over the name asked for"),
        Case(remote: "other", environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "PIPEWIRE_REMOTE": ""],
             path: "/run/user/1000/other", testDescription: "an empty PIPEWIRE_REMOTE does not"),
        Case(remote: "/tmp/sandbox/pipewire-0", environment: ["XDG_RUNTIME_DIR": "/run/user/1000"],
             path: "/tmp/sandbox/pipewire-0", testDescription: "an absolute name is the socket"),
        Case(remote: "@pipewire-0", environment: [:], path: "@pipewire-0", testDescription: "an abstract one too"),
        Case(remote: nil, environment: ["XDG_RUNTIME_DIR": ""], path: "/pipewire-0",
             testDescription: "an empty directory variable is used as it is, as getenv gives it"),
        Case(remote: nil, environment: [:], path: "/run/pipewire/pipewire-0", runtimeDirUnset: true,
             testDescription: "no runtime directory: only the system socket"),
    ]

    @Test(arguments: cases)
    func theSocketLibpipewireTries(_ example: Case) {
        let socket = PipeWireSocket(remote: example.remote, environment: example.environment)
        #expect(socket.path == example.path)
        #expect(socket.runtimeDirUnset == example.runtimeDirUnset)
    }

    @Test func theMessageNamesTheSocketAndHowToStartPipeWire() {
        let socket = PipeWireSocket(remote: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(socket.nobodyListens == "no PipeWire is running for this user (tried the socket /run/user/1000/pipewire-0); "
                + "start it with 'systemctl --user start pipewire pipewire-pulse wireplumber'")
        let unset = PipeWireSocket(remote: nil, environment: [:])
        #expect(unset.nobodyListens.hasPrefix(
            "no PipeWire is running for this user (tried the socket /run/pipewire/pipewire-0; XDG_RUNTIME_DIR is not set); "))
    }
}
