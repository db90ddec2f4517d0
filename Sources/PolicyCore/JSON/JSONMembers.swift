/// One JSON object's members, given in sorted key order, nil ones left
/// out, written straight into a text: `write` takes the text over while
/// `fill` gives the members and hands it back after (no copy of it, nor one
/// per object). For the texts written by hand where the generic encoder was
/// too slow at hundreds of streams — the journal before every reaction, each
/// stream's status after it (docs/PERFORMANCE.md, "Limits found") — and
/// writing exactly what `JSONValueEncoder.text` writes.
struct JSONMembers {
    private var text: [UInt8] = []
    private var empty = true
    private let escapingSlashes: Bool
    /// A number that JSON cannot hold (infinite, NaN) was left out.
    private var failed = false

    /// Appends the object `fill` gives to `output`. False when a number JSON
    /// cannot hold was left out: the caller then falls back to the generic
    /// encoder, which says where.
    static func write(into output: inout [UInt8], escapingSlashes: Bool, _ fill: (inout JSONMembers) -> Void) -> Bool {
        var members = JSONMembers(escapingSlashes: escapingSlashes)
        swap(&members.text, &output)
        members.text.append(UInt8(ascii: "{"))
        fill(&members)
        members.text.append(UInt8(ascii: "}"))
        swap(&members.text, &output)
        return !members.failed
    }

    private init(escapingSlashes: Bool) {
        self.escapingSlashes = escapingSlashes
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
        nested(fill)
    }

    /// An array of objects, each written by `fill`.
    mutating func objects<Element>(_ name: StaticString, _ elements: [Element],
                                   _ fill: (Element, inout JSONMembers) -> Void) {
        key(name)
        text.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            nested { fill(element, &$0) }
        }
        text.append(UInt8(ascii: "]"))
    }

    private mutating func nested(_ fill: (inout JSONMembers) -> Void) {
        let complete = Self.write(into: &text, escapingSlashes: escapingSlashes, fill)
        failed = failed || !complete
    }
}
