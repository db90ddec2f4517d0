#if canImport(Glibc)
import Glibc
#endif

/// This process's environment, read without Foundation (the agent does not
/// load it: docs/PERFORMANCE.md, "The agent's memory").
public func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let string = String(cString: entry)
        if let equals = string.firstIndex(of: "=") {
            result[String(string[..<equals])] = String(string[string.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
