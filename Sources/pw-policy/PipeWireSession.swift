import ArgumentParser
import PolicyPipeWire

/// A short-lived connection for one CLI command: connect, mirror, sync.
struct PipeWireSession {
    let loop: EventLoop
    let connection: Connection
    let mirror: GraphMirror

    static func open(remote: String?) throws -> PipeWireSession {
        let loop = EventLoop()
        let connection: Connection
        do {
            connection = try Connection(loop: loop, remote: remote, applicationName: "pw-policy-cli")
        } catch {
            printError("\(error)")
            throw ExitCodes.unavailable
        }
        let mirror = GraphMirror(connection: connection)
        guard mirror.waitForInitialSync() else {
            printError("PipeWire at '\(connection.remote)' did not answer")
            throw ExitCodes.unavailable
        }
        return PipeWireSession(loop: loop, connection: connection, mirror: mirror)
    }
}
