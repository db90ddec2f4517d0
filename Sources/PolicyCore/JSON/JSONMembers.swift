/// One JSON object's members, given in sorted key order, nil ones left
/// out, written straight into a text: it takes the text over until `close`
/// hands it back (no copy of it, nor one per object). For the texts written
/// by hand where the generic encoder was too slow at hundreds of streams —
/// the journal before every reaction, each stream's status after it
/// (docs/PERFORMANCE.md, "Limits found") — and writing exactly what
/// `JSONValueEncoder.text` writes.
struct JSONMembers {
    private var text: [UInt8] = []
    private var empty = true
    private let escapingSlashes: Bool
    /// A number that JSON cannot hold (infinite, NaN) was left out: the
    /// caller falls back to the generic encoder, which says where.
    private(set) var failed = false

    init(into output: inout [UInt8], escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
        swap(&text, &output)
        text.append(UInt8(ascii: "{"))
    }

    mutating func close(into output: inout [UInt8]) {
        text.append(UInt8(ascii: "}"))
        swap(&text, &output)
    }

    private mutating func key(_ key: StaticString) {
        if !empty { text.append(UInt8(ascii: ",")) }
        empty = false
        text.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { text.append(contentsOf: $0) }
        text.append(contentsOf: "\":".utf8)
    }

    mutating func number(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        guard case .number(let written)? = try? JSONValueEncoder.number(value, path: nil) else {
            failed = true
            return
        }
        key(name)
        text.append(contentsOf: written.utf8)
    }

    mutating func integer<I: BinaryInteger>(_ name: StaticString, _ value: I?) {
        guard let value else { return }
        key(name)
        text.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        text.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        JSONValue.writeString(value, to: &text, escapingSlashes: escapingSlashes)
    }

    mutating func strings(_ name: StaticString, _ values: [String]) {
        key(name)
        let escapingSlashes = escapingSlashes
        JSONValue.writeArray(values, to: &text) { JSONValue.writeString($0, to: &$1, escapingSlashes: escapingSlashes) }
    }

    mutating func object(_ name: StaticString, _ fill: (inout JSONMembers) -> Void) {
        key(name)
        var nested = JSONMembers(into: &text, escapingSlashes: escapingSlashes)
        fill(&nested)
        nested.close(into: &text)
        failed = failed || nested.failed
    }

    /// An array of objects, each written by `fill`.
    mutating func objects<Element>(_ name: StaticString, _ elements: [Element],
                                   _ fill: (Element, inout JSONMembers) -> Void) {
        key(name)
        text.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            var nested = JSONMembers(into: &text, escapingSlashes: escapingSlashes)
            fill(element, &nested)
            nested.close(into: &text)
            failed = failed || nested.failed
        }
        text.append(UInt8(ascii: "]"))
    }
}
