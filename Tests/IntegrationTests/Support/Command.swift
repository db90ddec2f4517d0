import Foundation

/// Runs external commands (pw-play, pw-dump, pw-metadata…) for tests.
enum Command {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], environment: [String: String], timeout: Double) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read while it runs so a full pipe cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            usleep(100_000)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A command left running in the background; killed on `stop()` or deinit.
    final class Background: @unchecked Sendable {
        let process = Process()

        init(_ arguments: [String], environment: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }
        var isRunning: Bool { process.isRunning }

        /// Sends `signal` and waits for the process to end.
        func stop(signal: Int32 = SIGTERM) {
            guard process.isRunning else { return }
            kill(process.processIdentifier, signal)
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        /// Waits until it exits by itself; false on timeout.
        func waitForExit(timeout: Double) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            return !process.isRunning
        }

        deinit { stop() }
    }
}
