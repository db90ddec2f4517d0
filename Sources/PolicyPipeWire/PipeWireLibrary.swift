import CPipeWire
import PolicyCore

/// libpipewire's process-wide state. `pw_init` must run once before any other
/// call; it is idempotent, so every entry point calls `initialize()`.
public enum PipeWireLibrary {
    public static func initialize() {
        pw_init(nil, nil)
    }

    /// The version of libpipewire this binary runs with.
    public static var linkedVersion: String {
        String(cString: pw_get_library_version())
    }

    /// The version of the headers this binary was compiled against.
    public static var compiledVersion: String {
        String(cString: cpw_get_headers_version())
    }

    /// How the PipeWire this binary runs with reads SPA-JSON, so pw-policy
    /// reads its files the same way. The linked library is what counts: its
    /// config readers were compiled with the libspa of its own release
    /// (libspa's tokenizer is inline code). No call to `initialize()` is
    /// needed: the version is a constant of the library.
    public static var configDialect: SPAJSONDialect {
        SemanticVersion(parsing: linkedVersion).map { SPAJSONDialect(pipeWire: $0) } ?? .default
    }
}

/// Interface type names and versions (the C macros concatenate string literals,
/// which Swift cannot import).
enum InterfaceType {
    static let node = "PipeWire:Interface:Node"
    static let port = "PipeWire:Interface:Port"
    static let link = "PipeWire:Interface:Link"
    static let client = "PipeWire:Interface:Client"
    static let device = "PipeWire:Interface:Device"
    static let metadata = "PipeWire:Interface:Metadata"
    /// All the interfaces we bind are at version 3 in 0.3.65.
    static let version: UInt32 = 3
}

/// Copies a `spa_dict` into Swift strings. Must run inside the callback that
/// received the dict: its strings are not ours to keep.
func copyDictionary(_ dict: UnsafePointer<spa_dict>?) -> [String: String] {
    guard let dict, let items = dict.pointee.items else { return [:] }
    var result: [String: String] = [:]
    result.reserveCapacity(Int(dict.pointee.n_items))
    for index in 0..<Int(dict.pointee.n_items) {
        let item = items[index]
        guard let key = item.key else { continue }
        result[String(cString: key)] = item.value.map { String(cString: $0) } ?? ""
    }
    return result
}

/// Calls `body` with a `spa_dict` view of `properties`, valid only during the call.
func withDictionary<R>(_ properties: [String: String], _ body: (UnsafePointer<spa_dict>) -> R) -> R {
    let pwProperties = cpw_properties_new_empty()!
    defer { pw_properties_free(pwProperties) }
    for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
        pw_properties_set(pwProperties, key, value)
    }
    return withUnsafePointer(to: &pwProperties.pointee.dict) { body($0) }
}
