extension SessionKey {
    /// The category part of a key made by `AppIdentity.sessionKey`
    /// (`pid:4711/playback`); nil for a key of another shape.
    var category: String? {
        guard let slash = rawValue.lastIndex(of: "/") else { return nil }
        return String(rawValue[rawValue.index(after: slash)...])
    }

    /// The app instance of the key in words: `pid 4711`, `client 45`, a
    /// sandboxed app's id.
    var instance: String {
        let instance = rawValue.lastIndex(of: "/").map { String(rawValue[..<$0]) } ?? rawValue
        if instance.hasPrefix("app:") { return String(instance.dropFirst(4)) }
        guard let colon = instance.firstIndex(of: ":") else { return instance }
        return instance[..<colon] + " " + instance[instance.index(after: colon)...]
    }
}
