/// Pure renderers for the pw-policy CLI (status tree, explain, JSON).
public enum PolicyCLI {}
