"""The papers' tables: one module per paper registers its methods, data sets and tables.

A benchmark folder for :mod:`marginclust.bench` (not part of the installed
package): ``marginclust bench`` loads it from a repository checkout
(``marginclust bench --list``; ``--benchmark benchmarks/papers`` by default), and
Python code with ``marginclust.bench.load_benchmark("benchmarks/papers")`` or,
with ``benchmarks/`` on the path, ``import papers``. The numbers the papers print
are in ``published/<paper>.csv``.
"""

from . import baselines, bmmc, emmc, pkm, reachability, slmc, wocsvm  # noqa: F401

__all__ = ["baselines", "bmmc", "emmc", "pkm", "reachability", "slmc", "wocsvm"]
