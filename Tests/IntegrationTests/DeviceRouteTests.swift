import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire
import Testing

/// A card's Routes reach the mirror as the card and WirePlumber
/// change them — the laptop jack path (docs/TESTING.md, "The test card").
@Suite(.serialized)
struct DeviceRouteTests {
    static func speaker(_ available: Graph.Availability) -> Graph.Route {
        Graph.Route(index: 0, device: 0, direction: .output, name: "analog-output-speaker", description: "Speakers",
                    available: available, portType: "speaker", devices: [0])
    }

    static func headphones(_ available: Graph.Availability) -> Graph.Route {
        Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones", description: "Headphones",
                    available: available, portType: "headphones", devices: [0])
    }

    static let hdmi = Graph.Route(index: 2, device: 1, direction: .output, name: "hdmi-output-0",
                                  description: "HDMI / DisplayPort", available: .yes, portType: "hdmi", devices: [1])

    /// The mirror follows every Route change of an exported card: the daemon
    /// tells a subscribed client only that the params changed (no param event
    /// comes for a device a client exports, as WirePlumber exports ALSA
    /// cards), so the mirror must enumerate them again. After each step the
    /// mirror must hold exactly the Routes pw-dump reads, and no route of a
    /// device the profile no longer has.
    @Test func mirrorFollowsJackRouteAndProfileChangesOfACard() throws {
        let sandbox = try Sandbox()
        let client = try TestClient(sandbox: sandbox)
        let card = try TestCard(sandbox: sandbox, client: client)

        func expectRoutes(_ expected: [Graph.Route]?, after step: String, isPrivate: Bool? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
            // nil: whichever port of the analog device WirePlumber chose
            // (its saved choice), as long as pw-dump agrees.
            #expect(card.waitUntilSettled(pumping: client), "\(step): WirePlumber kept switching routes: \(card.lines.suffix(8))",
                    sourceLocation: sourceLocation)
            // Settled once the mirror has what is expected and a fresh pw-dump
            // agrees: WirePlumber may pass through another port before the one
            // it settles on, and each read sees one moment of that.
            let settled = client.wait { graph in
                let routes = card.routes(in: graph)
                if let expected, routes != expected { return false }
                guard routes.count == 1, routes[0].device == 0 || expected != nil else { return false }
                return (try? card.dumpedRoutes(in: sandbox)) == routes.map(TestCard.DumpedRoute.init)
            }
            let mirrored = card.routes(in: client.graph)
            #expect(settled, "\(step): the mirror has \(mirrored), expected \(expected.map { "\($0)" } ?? "one route of device 0")\ncard: \(card.lines.suffix(6))",
                    sourceLocation: sourceLocation)
            let dumped = try card.dumpedRoutes(in: sandbox)
            #expect(dumped == mirrored.map(TestCard.DumpedRoute.init), "\(step): pw-dump has \(dumped), the mirror \(mirrored)",
                    sourceLocation: sourceLocation)
            if let isPrivate {
                // The agent's reading of the same graph (OutputDetection): the
                // active port decides whether the card's sink is private.
                let output = OutputDetection.outputs(in: client.graph).first { $0.id == card.sinkID }
                #expect(output?.isPrivate == isPrivate, "\(step): the sink reads as \(String(describing: output))",
                        sourceLocation: sourceLocation)
            }
        }

        // WirePlumber picks the headphones, the best available port.
        try expectRoutes([Self.headphones(.yes)], after: "start", isPrivate: true)
        // The jack is pulled: WirePlumber switches the Route to the
        // speakers, and the sink is no longer private.
        #expect(card.send("unplug-headphones", pumping: client))
        try expectRoutes([Self.speaker(.unknown)], after: "unplug-headphones", isPrivate: false)
        #expect(card.send("plug-headphones", pumping: client))
        try expectRoutes([Self.headphones(.yes)], after: "plug-headphones", isPrivate: true)
        // The user picks the speakers while the headphones are in (ACP: the
        // speaker port is then unavailable).
        #expect(card.send("route speaker", pumping: client))
        try expectRoutes([Self.speaker(.no)], after: "route speaker", isPrivate: false)
        // Another profile: the Route of device 0 goes, device 1's comes.
        #expect(card.send("profile hdmi", pumping: client))
        try expectRoutes([Self.hdmi], after: "profile hdmi")
        // No "profile off" step: a device whose Route list becomes empty
        // leaves the daemon's param cache with the last non-empty list (its
        // enumeration clears the cache on the first result only), so every
        // client, pw-dump too, still reads the old route (docs/TESTING.md).
        #expect(card.send("profile analog", pumping: client))
        try expectRoutes(nil, after: "profile analog")
    }
}
