"""Property-based reliability suite (issue 16)."""
