import ArgumentParser
import PolicyCLI

/// Shell completions that ask PipeWire: stream ids and names, app keys. They
/// stay silent and quick when PipeWire or the agent is not there.
enum Completions {
    static let stream = CompletionKind.custom { words, _, prefix in
        guard let session = try? PipeWireSession.open(remote: CompletionWords.remote(in: words), timeout: 1) else { return [] }
        return CompletionWords.streams(session.streams, prefix: prefix)
    }

    static let app = CompletionKind.custom { words, _, prefix in
        guard let session = try? PipeWireSession.open(remote: CompletionWords.remote(in: words), timeout: 1) else { return [] }
        return CompletionWords.apps(session.streams, overrides: Array(session.snapshot.appOverrides.keys), prefix: prefix)
    }
}
