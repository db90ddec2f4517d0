import PolicyPipeWire
print(libraryVersion())
