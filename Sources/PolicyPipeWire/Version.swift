import CPipeWire
public func libraryVersion() -> String { String(cString: pw_get_library_version()) }
