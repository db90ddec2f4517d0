import Testing

/// The integration suites whose checks depend on timing or audio: they
/// record what reaches a sink's monitor (RMS of a duck, frames leaked by an
/// unplug), read a gain a fixed time after a fade starts, give the agent a
/// short while to restore after a restart, or race WirePlumber's start-up.
/// Each test runs a PipeWire, a WirePlumber, the agent and players; two of
/// them side by side on a 2-core machine starve each other's graph cycles
/// and fades. `.serialized` here is recursive: the tests of every suite
/// nested in this one (in `extension TimingSensitiveSuites`) run one at a
/// time; `scripts/test` runs them after every other suite, alone.
/// docs/CLI.md, "Tests".
@Suite(.serialized)
enum TimingSensitiveSuites {}
