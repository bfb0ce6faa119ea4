"""Benchmark protocol module: measures (filled in by its issue)."""
