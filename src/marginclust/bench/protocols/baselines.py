"""Benchmark protocol module: baselines (filled in by its issue)."""
