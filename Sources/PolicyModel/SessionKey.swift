/// Identifies an application's audio session: the streams of one app (same
/// process / application id / client) that share a category act as one, so a
/// call's capture and playback streams are one session.
public struct SessionKey: Sendable, Hashable, Comparable, Codable, CodingKeyRepresentable, CustomStringConvertible {
    public var rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static func < (a: SessionKey, b: SessionKey) -> Bool { a.rawValue < b.rawValue }
    public var description: String { rawValue }

    /// The app instance the session belongs to: session keys are
    /// `<app instance>/<category>` (AppIdentity.sessionKey), so this is the
    /// part before the last `/`, or the whole key when it has none. Sessions
    /// of one app never hold, duck or silence each other (docs/POLICY.md,
    /// "One app").
    public var app: Substring {
        guard let slash = rawValue.lastIndex(of: "/") else { return Substring(rawValue) }
        return rawValue[..<slash]
    }

    // A journal of EngineMemory then reads as a JSON object keyed by session.
    public var codingKey: any CodingKey { SessionCodingKey(stringValue: rawValue) }
    public init?<T: CodingKey>(codingKey: T) { self.init(codingKey.stringValue) }
    private struct SessionCodingKey: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
