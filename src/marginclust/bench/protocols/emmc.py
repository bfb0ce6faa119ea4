"""Benchmark protocol module: emmc (filled in by its issue)."""
