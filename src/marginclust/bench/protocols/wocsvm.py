"""Benchmark protocol module: wocsvm (filled in by its issue)."""
