"""Benchmark protocol module: pkm (filled in by its issue)."""
