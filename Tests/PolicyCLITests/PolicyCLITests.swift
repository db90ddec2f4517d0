import Testing
import PolicyCLI
