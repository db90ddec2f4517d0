import PolicyCore

/// A client of the audio-session service, as `pw-policy launch` is one
/// (docs/API.md): it makes a session on its own connection, reads its
/// token, and holds the session as long as it holds the connection.
public final class AudioSessionClient {
    public let bus: SessionBus
    public private(set) var path: String?
    public private(set) var token: String?

    public init(bus: SessionBus) { self.bus = bus }

    /// `CreateSession`, then its `Token`; `done` hears nil or why it failed.
    public func create(_ declaration: AudioSessionTable.Declaration, done: @escaping (BusCallError?) -> Void) {
        let options = declaration.options.sorted().map { BusOut.string($0.rawValue) }
        bus.call(destination: AudioSessionAPI.busName, path: AudioSessionAPI.managerPath,
                 interface: AudioSessionAPI.managerInterface, member: AudioSessionAPI.createSession,
                 values: [.string(declaration.category.rawValue), .array("s", options), .string(declaration.mode.rawValue)],
                 timeout: 2) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error): done(error)
            case .success(let body):
                guard let path = body.first?.string else {
                    return done(BusCallError(name: "pw-policy.MalformedReply", message: "CreateSession answered \(body)"))
                }
                self.path = path
                bus.call(destination: AudioSessionAPI.busName, path: path, interface: SessionBus.propertiesInterface,
                         member: "Get", arguments: [AudioSessionAPI.sessionInterface, AudioSessionProperty.token.rawValue],
                         timeout: 2) { [weak self] result in
                    switch result {
                    case .failure(let error): done(error)
                    case .success(let body):
                        self?.token = body.first?.string
                        done(nil)
                    }
                }
            }
        }
    }
}
