/// pw-policy's version, shown by `pw-policy version` and published by the agent.
public enum PolicyVersion {
    public static let number = "0.1.0"
}
