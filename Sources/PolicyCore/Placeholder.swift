public enum PolicyCoreVersion { public static let string = "0.1.0" }
