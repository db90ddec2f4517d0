/// A stream's status as the agent publishes it (`AgentProtocol.streamKey`),
/// written by hand: when hundreds of streams duck, every one's status
/// changes, and the generic encoder took most of the publish after the
/// gains (docs/PERFORMANCE.md, "Limits found"). The text is the one
/// `StatusPublisher.json` writes for it (StreamStatusTextTests compare them).
enum StreamStatusText {
    static func encode(_ status: StreamStatus) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        let complete = JSONMembers.write(into: &output, escapingSlashes: false) { members in
            members.string("app", status.app)
            members.string("appKey", status.appKey)
            members.string("category", status.category)
            members.string("direction", status.direction)
            members.objects("duckedBy", status.duckedBy) { ducker, members in
                members.string("app", ducker.app)
                members.string("session", ducker.session)
                members.string("which", ducker.which)
            }
            members.bool("exempt", status.exempt)
            members.strings("explanation", status.explanation)
            members.number("gain", status.gain)
            if let hold = status.hold {
                members.object("hold") { members in
                    members.string("app", hold.app)
                    members.string("by", hold.by)
                    members.string("byApp", hold.byApp)
                    members.string("byWhich", hold.byWhich)
                    members.string("kind", hold.kind)
                    members.string("output", hold.output)
                    members.bool("resumable", hold.resumable)
                }
            }
            members.integer("id", status.id)
            members.string("mode", status.mode)
            members.strings("options", status.options)
            members.string("output", status.output)
            if let player = status.player {
                members.object("player") { members in
                    members.string("busName", player.busName)
                    members.string("identity", player.identity)
                    members.string("matchedBy", player.matchedBy)
                    members.string("pausedByAgent", player.pausedByAgent)
                    members.string("status", player.status)
                }
            }
            members.string("reason", status.reason)
            members.string("session", status.session)
            members.bool("silenced", status.silenced)
            members.string("source", status.source)
            members.string("state", status.state)
            members.string("via", status.via)
            members.strings("warnings", status.warnings)
        }
        return complete ? String(decoding: output, as: UTF8.self) : StatusPublisher.json(status)
    }
}
