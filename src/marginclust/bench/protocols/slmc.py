"""Benchmark protocol module: slmc (filled in by its issue)."""
