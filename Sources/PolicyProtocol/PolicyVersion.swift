import PolicyModel
import PolicyStack

/// pw-policy's version, shown by `pw-policy version` and published by the
/// agent. The one declaration of the release: `scripts/version` reads both
/// values from this file for the Debian package's version, the man page's
/// date and the changelog check (docs/PACKAGING.md, "One version").
public enum PolicyVersion {
    public static let number = "0.1.0"
    /// The day `number` was released (yyyy-mm-dd): the man page's date and
    /// the date of `number`'s entry in debian/changelog.
    public static let date = "2026-11-26"
}
