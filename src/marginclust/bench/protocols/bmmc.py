"""Benchmark protocol module: bmmc (filled in by its issue)."""
