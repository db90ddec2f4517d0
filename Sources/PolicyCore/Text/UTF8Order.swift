extension Collection {
    /// The elements in the byte order of their names' UTF-8: the order of
    /// JSONEncoder's sorted keys, and of alphasort in the C locale. Each
    /// name's bytes are taken once and only the elements move: sorting whole
    /// members of a map copied every value on every move, most of the
    /// journal's encoding at hundreds of streams (docs/PERFORMANCE.md).
    func sortedByUTF8(name: (Element) -> String) -> [Element] {
        map { (bytes: Array(name($0).utf8), element: $0) }
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
            .map(\.element)
    }
}
