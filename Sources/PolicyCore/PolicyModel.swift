/// The floor the core stands on is a module of its own (docs/ARCHITECTURE.md,
/// "Where things are"), so that nothing in it can name the floors above: the
/// compiler, not a test, keeps it. Those who use the core see it too.
@_exported import PolicyModel
