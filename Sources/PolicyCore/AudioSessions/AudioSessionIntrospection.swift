/// The introspection the agent answers on its audio-session objects, made
/// from the vocabulary (`AudioSessionAPI`, `AudioSessionProperty`,
/// `AudioSessionSignal`). The repository ships the two interfaces as
/// `dbus/org.pwpolicy.AudioSession1.xml` and
/// `dbus/org.pwpolicy.AudioSession1.Session.xml` (installed to
/// `$DATADIR/dbus-1/interfaces/`); a unit test checks that they say exactly
/// this, comments aside (docs/API.md).
public enum AudioSessionIntrospection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    /// The standard interfaces every object answers.
    static let standard = """
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Peer">
          <method name="Ping"/>
          <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Properties">
          <method name="Get"><arg name="interface" type="s" direction="in"/><arg name="property" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
          <method name="GetAll"><arg name="interface" type="s" direction="in"/><arg name="properties" type="a{sv}" direction="out"/></method>
          <method name="Set"><arg name="interface" type="s" direction="in"/><arg name="property" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
          <signal name="PropertiesChanged"><arg name="interface" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>
         </interface>

        """

    /// The manager's interface, as `dbus/org.pwpolicy.AudioSession1.xml` has it.
    public static let managerInterface = """
         <interface name="\(AudioSessionAPI.managerInterface)">
          <method name="\(AudioSessionAPI.createSession)">
           <arg name="category" type="s" direction="in"/>
           <arg name="options" type="as" direction="in"/>
           <arg name="mode" type="s" direction="in"/>
           <arg name="session" type="o" direction="out"/>
          </method>
         </interface>

        """

    /// A session's interface, as `dbus/org.pwpolicy.AudioSession1.Session.xml` has it.
    public static let sessionInterface: String = {
        var xml = """
             <interface name="\(AudioSessionAPI.sessionInterface)">
              <method name="\(AudioSessionAPI.setCategory)">
               <arg name="category" type="s" direction="in"/>
               <arg name="options" type="as" direction="in"/>
               <arg name="mode" type="s" direction="in"/>
              </method>
              <method name="\(AudioSessionAPI.deactivate)">
               <arg name="notify_others" type="b" direction="in"/>
              </method>
              <method name="\(AudioSessionAPI.close)"/>

            """
        for signal in AudioSessionSignal.allCases {
            if signal.arguments.isEmpty {
                xml += "  <signal name=\"\(signal.rawValue)\"/>\n"
            } else {
                xml += "  <signal name=\"\(signal.rawValue)\">\n"
                for argument in signal.arguments { xml += "   <arg name=\"\(argument.name)\" type=\"\(argument.signature)\"/>\n" }
                xml += "  </signal>\n"
            }
        }
        for property in AudioSessionProperty.allCases {
            xml += "  <property name=\"\(property.rawValue)\" type=\"\(property.signature)\" access=\"read\"/>\n"
        }
        return xml + " </interface>\n"
    }()

    /// A file of `$DATADIR/dbus-1/interfaces/`: one interface in a node.
    public static func file(_ interface: String) -> String {
        doctype + "\n<node>\n" + interface + "</node>\n"
    }

    /// What the manager object answers to Introspect.
    public static let manager = doctype + "\n<node>\n" + standard + managerInterface + " <node name=\"session\"/>\n</node>\n"
    /// What a session object answers.
    public static let session = doctype + "\n<node>\n" + standard + sessionInterface + "</node>\n"
    /// `…/session` itself: a node with no interface of its own.
    public static let emptyNode = doctype + "\n<node/>\n"
}
