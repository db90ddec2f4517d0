import Foundation

/// What WirePlumber remembers per stream key between streams and between its
/// runs (none of it may hold a policy gain), read from its state
/// file as WirePlumber wrote it. Tests only: the agent itself must go
/// through the interface WirePlumber offers (its `route-settings`
/// metadata), never its files.
///
/// Both generations key a stream by the first of `media.role`,
/// `application.id`, `application.name`, `media.name`, `node.name` it has,
/// as `Output/Audio:media.role:Notification`, and save 1 s after the last
/// change; their files differ:
/// * 0.4.x `restore-stream.lua`: `$XDG_STATE_HOME/wireplumber/restore-stream`,
///   group `[restore-stream]`, one line per field, `KEY:FIELD=VALUE`
///   (`volume=0.2`, `mute=false`, `channelVolumes=0.5;0.5;`,
///   `channelMap=FL;FR;`);
/// * 0.5.x `state-stream.lua`: `$XDG_STATE_HOME/wireplumber/stream-properties`,
///   group `[stream-properties]`, one line per key, `KEY=JSON`
///   (`{"volume":0.200000, "mute":false, "channelVolumes":[0.500000, 0.500000], "channelMap":["FL", "FR"]}`).
/// `WpState` escapes a key's `\`, space, `=`, `[`, `]` as `\\`, `\s`, `\e`,
/// `\o`, `\c`; GKeyFile escapes values' `\`, leading space, newlines, tabs.
struct WirePlumberSavedState: Equatable, CustomStringConvertible {
    struct Stored: Equatable {
        var volume: Double?
        var mute: Bool?
        var channelVolumes: [Double]?
        var channelMap: [String]?
    }

    static let files = ["restore-stream", "stream-properties"]

    /// By stream key, e.g. "Output/Audio:application.name:mpv".
    var streams: [String: Stored] = [:]
    /// The file it was read from; nil when WirePlumber has written none yet.
    var file: String?

    subscript(key: String) -> Stored? { streams[key] }

    /// The sandbox's WirePlumber state, from whichever generation's file
    /// exists (the newer one if both do).
    static func read(in sandbox: Sandbox) -> WirePlumberSavedState {
        let directory = sandbox.environment["XDG_STATE_HOME"]! + "/wireplumber/"
        let newest = files.map { directory + $0 }
            .compactMap { path in
                (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date).map { (path, $0) }
            }
            .max { $0.1 < $1.1 }?.0
        guard let newest, let text = try? String(contentsOfFile: newest, encoding: .utf8) else { return .init() }
        var state = parse(text)
        state.file = newest
        return state
    }

    static func parse(_ text: String) -> WirePlumberSavedState {
        var state = WirePlumberSavedState()
        var group = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || line.isEmpty { continue }
            if line.hasPrefix("["), line.hasSuffix("]") { group = String(line.dropFirst().dropLast()); continue }
            // The key's own '=' are escaped: the first one separates.
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = unescapeKey(String(line[..<equals]))
            let value = unescapeValue(String(line[line.index(after: equals)...]))
            switch group {
            case "restore-stream":
                guard let colon = key.lastIndex(of: ":") else { continue }
                let stream = String(key[..<colon]), field = String(key[key.index(after: colon)...])
                var stored = state.streams[stream] ?? Stored()
                let items = value.split(separator: ";").map(String.init)
                switch field {
                case "volume": stored.volume = Double(value)
                case "mute": stored.mute = value == "true"
                case "channelVolumes": stored.channelVolumes = items.compactMap(Double.init)
                case "channelMap": stored.channelMap = items
                default: continue
                }
                state.streams[stream] = stored
            case "stream-properties":
                guard let object = (try? JSONSerialization.jsonObject(with: Data(value.utf8))) as? [String: Any] else { continue }
                state.streams[key] = Stored(volume: (object["volume"] as? NSNumber)?.doubleValue,
                                            mute: object["mute"] as? Bool,
                                            channelVolumes: (object["channelVolumes"] as? [NSNumber])?.map(\.doubleValue),
                                            channelMap: object["channelMap"] as? [String])
            default:
                continue
            }
        }
        return state
    }

    private static func unescapeKey(_ key: String) -> String {
        unescape(key, ["\\": "\\", "s": " ", "e": "=", "o": "[", "c": "]"])
    }

    private static func unescapeValue(_ value: String) -> String {
        unescape(value, ["\\": "\\", "s": " ", "n": "\n", "t": "\t", "r": "\r"])
    }

    private static func unescape(_ text: String, _ table: [Character: Character]) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(table[character] ?? character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// One line per key, for messages.
    var description: String {
        streams.sorted { $0.key < $1.key }.map { key, stored in
            "\(key): volume \(stored.volume.map { "\($0)" } ?? "-"), mute \(stored.mute.map { "\($0)" } ?? "-"), channelVolumes \(stored.channelVolumes.map { "\($0)" } ?? "-")"
        }.joined(separator: "\n")
    }
}
