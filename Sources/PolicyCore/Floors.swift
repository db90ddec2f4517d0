/// The floors the core stands on are modules of their own (docs/ARCHITECTURE.md,
/// "Where things are"), so that nothing in them can name the floors above:
/// the compiler, not a test, keeps it. Those who use the core see them too.
@_exported import PolicyModel
@_exported import PolicyStack
@_exported import PolicyProtocol
