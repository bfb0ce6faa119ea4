"""Property-based reliability suite."""
