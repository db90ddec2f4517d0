import PolicyCore
print("engine benchmark: not written yet")
