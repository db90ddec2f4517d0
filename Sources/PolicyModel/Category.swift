/// What a stream's sound means to the user (docs/POLICY.md, "Categories", after the iOS audio
/// session categories).
public enum Category: String, CaseIterable, Sendable, Codable, Hashable, Comparable {
    case ambient
    case soloAmbient = "solo-ambient"
    case playback
    case record
    case playAndRecord = "play-and-record"
    case audioProcessing = "audio-processing"
    case systemSound = "system-sound"

    public static func < (a: Category, b: Category) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Options that refine a category's interaction with other audio.
public enum PolicyOption: String, CaseIterable, Sendable, Codable, Hashable, Comparable {
    case mixWithOthers = "mix-with-others"
    case duckOthers = "duck-others"
    case interruptSpokenAudio = "interrupt-spoken-audio"

    public static func < (a: PolicyOption, b: PolicyOption) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A hint on what kind of content a session plays.
public enum AudioMode: String, CaseIterable, Sendable, Codable, Hashable {
    case `default`
    /// Audiobooks, podcasts, screen readers: paused rather than ducked when a
    /// session with `interrupt-spoken-audio` asks for it.
    case spokenAudio = "spoken-audio"
}

/// Direction of a stream as seen from the application.
public enum StreamDirection: String, Sendable, Codable, Hashable {
    /// The app plays: an `Stream/Output/Audio` node.
    case playback
    /// The app captures: an `Stream/Input/Audio` node.
    case capture
}
