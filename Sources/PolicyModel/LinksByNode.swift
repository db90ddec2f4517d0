import Synchronization

/// `Graph`'s links by the node they leave and the node they enter, each
/// list by link id: made from the links when first asked, and replaced
/// (not changed) when the links change, so a copy of the graph keeps the
/// index of its own links. Not part of what the graph is: every index is
/// equal to every other.
struct LinksByNode: Sendable, Equatable {
    struct Index: Sendable {
        var from: [UInt32: [Graph.Link]] = [:]
        var to: [UInt32: [Graph.Link]] = [:]
    }

    private final class Box: Sendable {
        let index = Mutex<Index?>(nil)
    }

    private let box = Box()

    func index(of links: [UInt32: Graph.Link]) -> Index {
        box.index.withLock { index in
            if let index { return index }
            var made = Index()
            for id in links.keys.sorted() {
                let link = links[id]!
                made.from[link.outputNode, default: []].append(link)
                made.to[link.inputNode, default: []].append(link)
            }
            index = made
            return made
        }
    }

    static func == (_: LinksByNode, _: LinksByNode) -> Bool { true }
}
