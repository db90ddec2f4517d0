import PolicyCore

/// What `check-config` prints: the effective merged configuration, or every
/// problem with its `file:line:col`.
public enum ConfigReport {
    /// SPA-JSON headed by `#` comments naming the files, so the output is
    /// itself a valid configuration.
    public static func text(_ loaded: LoadedConfig) -> String {
        var out = "# pw-policy: the configuration is valid.\n# Effective configuration, merged from (in order):\n"
        out += loaded.files.map { "#   \($0)\n" }.joined()
        out += "\n" + ConfigRenderer.spaJSON(loaded.merged, annotatingOrigins: true)
        return out
    }

    /// `{"valid": true, "files": […], "config": {…}}`; the config is the
    /// merged document in its own key order.
    public static func json(_ loaded: LoadedConfig) -> String {
        let config = ConfigRenderer.json(loaded.merged).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
            .trimmingTrailingNewlines
        // Indented by four, as ConfigRenderer indents the config itself.
        return "{\n    \"valid\": true,\n    \"files\": \(CLIJSON.line(loaded.files)),\n    \"config\": "
            + config.dropFirst(4) + "\n}\n"
    }

    /// One line per problem, as compilers print them: `file:line:col: message`.
    public static func errorText(_ error: ConfigError) -> String {
        error.description
    }

    /// `{"valid": false, "errors": [{"file", "line", "column", "message"}]}`.
    public static func errorJSON(_ error: ConfigError) -> String {
        struct Problem: Encodable { var file: String; var line: Int; var column: Int; var message: String }
        struct Report: Encodable { var valid: Bool; var errors: [Problem] }
        let problems = error.all.map { Problem(file: $0.file, line: $0.line, column: $0.column, message: $0.message) }
        return CLIJSON.render(Report(valid: false, errors: problems)) + "\n"
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var result = self
        while result.last == "\n" { result.removeLast() }
        return result
    }
}
