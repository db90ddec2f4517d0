/// Route changes (docs/POLICY.md): unplugging private outputs pauses what was
/// playing there; plugging in, or the user picking another default or port,
/// pauses nothing.
///
/// An output counts as private while it is present, available and plays to a
/// private port. It stops being private when its node goes away (USB,
/// Bluetooth), when the port it plays to reports unplugged, or when the same
/// node switches from its headphones port to the speakers: an unplug, unless
/// the headphones port is still plugged — then the user picked the speakers.
extension DecisionRun {
    /// Reads the outputs and reports device-level route changes.
    mutating func trackOutputs() {
        for output in input.outputs where outputs[output.id] == nil {
            outputs[output.id] = output
            if output.isAvailable {
                usableOutputs.insert(output.id)
                if output.isPrivate { privateOutputs.insert(output.id) }
            }
        }
        // The first decision has nothing to compare with: everything would look new.
        guard memory.time != nil else { return }

        var lost: [(id: UInt32, name: String)] = []
        var picked: [(id: UInt32, name: String)] = []
        for (id, name) in memory.outputs {
            if !usableOutputs.contains(id) {
                lost.append((id, name))
            } else if memory.privateOutputs.contains(id), !privateOutputs.contains(id) {
                // Still there but no longer private: a jack pulled from the
                // port it played to, or another port the user picked while
                // that one stays plugged. Without port information, an unplug.
                if let old = memory.outputPorts?[id], let now = outputs[id], let unplugged = now.unpluggedPorts,
                   now.port != old, !unplugged.contains(old) {
                    picked.append((id, name))
                    portsPickedByUser.insert(id)
                } else {
                    lost.append((id, name))
                }
            }
        }
        var appeared: [(id: UInt32, name: String)] = []
        for id in usableOutputs {
            if memory.outputs[id] == nil || (privateOutputs.contains(id) && !memory.privateOutputs.contains(id)) {
                appeared.append((id, outputs[id]?.name ?? "\(id)"))
            }
        }
        for output in lost.sorted(by: { $0.id < $1.id }) {
            routeEvents.append(.routeChanged(reason: .oldDeviceUnavailable, output: output.name))
        }
        for output in appeared.sorted(by: { $0.id < $1.id }) {
            routeEvents.append(.routeChanged(reason: .newDeviceAvailable, output: output.name))
        }
        for output in picked.sorted(by: { $0.id < $1.id }) {
            routeEvents.append(.routeChanged(reason: .userChoice, output: output.name))
        }
        // A default that moves while no device came or went is the user's pick.
        if lost.isEmpty, appeared.isEmpty, picked.isEmpty, let chosen = input.defaultOutput, chosen != memory.defaultOutput {
            routeEvents.append(.routeChanged(reason: .userChoice, output: outputs[chosen]?.name ?? "\(chosen)"))
        }
    }

    /// Finds playback streams whose private output went away while their
    /// session was playing, and streams the user asked to resume.
    /// Needs `gatherSessions` and `trackOutputs`.
    mutating func trackStreamRoutes() {
        routeLost = Array(repeating: nil, count: streams.count)
        routeLostNow = Array(repeating: false, count: streams.count)
        forgetRoute = Array(repeating: false, count: streams.count)
        portPickedOn = Array(repeating: nil, count: streams.count)
        resumeRequested = Array(repeating: false, count: streams.count)
        returnedTo = Array(repeating: nil, count: streams.count)
        rememberedStreams = Array(repeating: nil, count: streams.count)

        for index in streams.indices {
            let id = streams[index].id
            resumeRequested[index] = !input.resumeRequests.isEmpty && input.resumeRequests.contains(id) && memory.held[id] != nil
            guard let session = streamSession[index], sessions[session].takesPart,
                  streams[index].direction == .playback, let remembered = memory.streams[id] else { continue }
            rememberedStreams[index] = remembered
            if let output = streams[index].output, output == remembered.lastOutput {
                portPickedOn[index] = remembered.portPickedOn
            }

            if remembered.routeLost {
                // Held until the user resumes it: its app believes it is still
                // playing, and playing on would leak to the speakers.
                if resumeRequested[index] {
                    forgetRoute[index] = true
                } else if let back = returnedOutput(remembered) {
                    // route.resume-on-return: as if the user resumed it, there.
                    forgetRoute[index] = true
                    resumeRequested[index] = true
                    returnedTo[index] = back
                } else {
                    routeLost[index] = remembered.lastOutputName ?? "output \(remembered.lastOutput ?? 0)"
                }
                continue
            }
            guard remembered.lastOutputPrivate, let last = remembered.lastOutput,
                  !privateOutputs.contains(last) else { continue }
            // A port the user picked is where they want it to play: a route
            // the user picks continues without a pause (docs/POLICY.md).
            if portsPickedByUser.contains(last) {
                forgetRoute[index] = true
                portPickedOn[index] = remembered.lastOutputName ?? memory.outputs[last] ?? "output \(last)"
                continue
            }
            // A call goes on wherever the audio can go: nothing may keep a call
            // from being heard (docs/POLICY.md, "Categories").
            if sessions[session].category == .playAndRecord || !wasPlaying(session) {
                forgetRoute[index] = true
                continue
            }
            let name = remembered.lastOutputName ?? memory.outputs[last] ?? "output \(last)"
            routeLost[index] = name
            routeLostNow[index] = true
            routeEvents.append(.heldForRoute(stream: id, output: name))
        }
    }

    /// The private output a route-lost stream played to, when it is back
    /// within the window of `route.resume-on-return` (the same node name:
    /// the headphones port of the same sink, or headphones plugged again).
    private func returnedOutput(_ remembered: EngineMemory.StreamMemory) -> UInt32? {
        let settings = config.settings
        guard settings.resumeOnReturn, let lostAt = remembered.routeLostAt,
              now - lostAt <= Double(settings.resumeOnReturnMs) / 1000, let name = remembered.lastOutputName else { return nil }
        return privateOutputs.sorted().first { outputs[$0]?.name == name }
    }

    /// The session was active at the last decision (memory keeps only active
    /// sessions) or plays now: unplugging often idles its stream at the same time.
    private func wasPlaying(_ session: Int) -> Bool {
        if sessions[session].remembered != nil { return true }
        return sessions[session].streams.contains { stream in
            let id = streams[stream].id
            return (streams[stream].isRunning && memory.streams[id]?.routeLost != true)
                || resumeRequested[stream]
                || memory.held[id].map { $0 != .routeLost } ?? false
        }
    }

    /// What to remember about a playback stream's route; nil when nothing.
    func streamMemory(_ index: Int) -> EngineMemory.StreamMemory? {
        guard let session = streamSession[index], sessions[session].takesPart,
              streams[index].direction == .playback else { return nil }
        var remembered = forgetRoute[index] ? EngineMemory.StreamMemory() : rememberedStreams[index] ?? EngineMemory.StreamMemory()
        if let lostOutput = routeLost[index] {
            // Frozen while held: WirePlumber may already have moved it to the speakers.
            remembered.routeLost = true
            remembered.lastOutputName = remembered.lastOutputName ?? lostOutput
            remembered.routeLostAt = remembered.routeLostAt ?? now
            return remembered
        }
        remembered.routeLost = false
        remembered.routeLostAt = nil
        remembered.portPickedOn = portPickedOn[index]
        if let output = streams[index].output {
            remembered.lastOutput = output
            remembered.lastOutputPrivate = privateOutputs.contains(output)
            remembered.lastOutputName = outputs[output]?.name
        }
        return remembered.lastOutput == nil ? nil : remembered
    }

    /// The first available output whose properties match the stream's `prefer-target`.
    func preferredTarget(_ preference: TargetPreference, matchers: inout [TargetPreference: PropertyMatcher?]) -> UInt32? {
        let matcher: PropertyMatcher?
        if let cached = matchers[preference] {
            matcher = cached
        } else {
            // A pattern that does not compile matches nothing; the config loader reports it.
            matcher = try? PropertyMatcher(preference.matches)
            matchers[preference] = .some(matcher)
        }
        guard let matcher else { return nil }
        return input.outputs.first { $0.isAvailable && matcher.matches($0.props) }?.id
    }
}
