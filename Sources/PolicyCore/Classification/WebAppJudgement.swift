/// How a browser's web app is judged when its entry's categories said
/// nothing (Chromium writes none unless the site's manifest has them):
/// as the app it is named after, a known app's name (`KnownApps`: "Google
/// Meet", "Microsoft Teams", "YouTube Music"), else by what its streams do
/// together: a call while it plays and captures — never as its browser
/// (docs/CLASSIFICATION.md, "Web apps").
enum WebAppJudgement {
    static func decide(_ entry: DesktopEntry, source: String, props: StreamProperties,
                       facts: StreamFacts) -> InferredCategory? {
        let playback = facts.direction == .playback
        // Playing and capturing at once, a web app is in a call.
        if let other = facts.instance.otherSide {
            return InferredCategory(.playAndRecord, evidence: "\(source): a web app in a call, its app also has \(other.description)")
        }
        if let name = entry.name, let kind = KnownApps.kind(of: name), kind != .browser {
            let named = "\(source), named like a known \(kind.rawValue)"
            switch (kind, playback) {
            case (.voip, true):
                if let (key, value) = RoleInference.namesACall(props) {
                    return InferredCategory(.playAndRecord, evidence: "\(named), \(key) = \"\(value)\" names a call")
                }
                return InferredCategory(.systemSound, evidence: "\(named), playback only: rings and pings")
            case (.voip, false):
                return InferredCategory(.playAndRecord, evidence: "\(named), capturing: the microphone side of a call")
            case (.musicPlayer, true), (.videoPlayer, true), (.alarmClock, true):
                return InferredCategory(.playback, evidence: named)
            case (.podcastPlayer, true):
                return InferredCategory(.playback, mode: .spokenAudio, evidence: named)
            case (.recorder, false):
                return InferredCategory(.record, evidence: named)
            default:
                break
            }
        }
        // A site of its own: what it plays mixes, as a page does; its
        // microphone is a web call.
        return playback
            ? InferredCategory(.playback, [.mixWithOthers], evidence: "\(source): a web app playing, it mixes as a page does")
            : InferredCategory(.playAndRecord, evidence: "\(source): a web app capturing, a web call")
    }
}
