import CSystemd

/// An sd-bus slot (a pending call or a match) with the Swift code its
/// callback reaches; the slot is unreferenced on deinit, which cancels the
/// call or removes the match, so no callback can reach a freed handler.
final class BusSlot {
    var slot: OpaquePointer?
    /// For a match: every signal.
    var handler: ((OpaquePointer) -> Void)?
    /// For a call: its one reply (cleared when it ran).
    var completion: ((Result<[BusValue], BusCallError>) -> Void)?

    init(handler: ((OpaquePointer) -> Void)? = nil) {
        self.handler = handler
    }

    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs the completion once, whatever happens after.
    func complete(_ result: Result<[BusValue], BusCallError>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    /// The C callback of a match: userdata is the `BusSlot`.
    static let callback: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<BusSlot>.fromOpaque(userdata).takeUnretainedValue().handler?(message)
        return 0
    }

    /// The C callback of a call's reply: an error reply (the callee's, or
    /// sd-bus's own for a timeout or a callee that left) or the body read.
    static let replyCallback: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let slot = Unmanaged<BusSlot>.fromOpaque(userdata).takeUnretainedValue()
        if sd_bus_message_is_method_error(message, nil) > 0 {
            let error = sd_bus_message_get_error(message)
            slot.complete(.failure(BusCallError(name: error?.pointee.name.map { String(cString: $0) } ?? "unknown error",
                                                message: error?.pointee.message.map { String(cString: $0) } ?? "")))
        } else {
            do {
                slot.complete(.success(try BusMessage.readBody(message)))
            } catch {
                slot.complete(.failure(BusCallError(name: "pw-policy.MalformedReply", message: "\(error)")))
            }
        }
        return 0
    }

    deinit {
        if let slot { sd_bus_slot_unref(slot) }
    }
}

/// A signal subscription; the match is removed when this is released.
public final class BusMatch {
    let slot: BusSlot
    init(slot: BusSlot) { self.slot = slot }
}
