"""Summarise a MARGINCLUST_PROPS_STATS file: cases tried and failures per category.

    MARGINCLUST_PROPS_STATS=/tmp/props.tsv python -m pytest tests/properties
    python -m tests.properties.stats /tmp/props.tsv
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict


def summarise(path: str) -> str:
    tried: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    na: Counter[str] = Counter()
    failing: dict[str, set[str]] = defaultdict(set)
    for line in open(path):
        category, config, case, outcome = line.rstrip("\n").split("\t", 3)
        top = category.split(":")[0]
        if outcome.startswith("n/a"):
            na[top] += 1
            continue
        tried[top] += 1
        if outcome.startswith("fail"):
            failed[top] += 1
            failing[category].add(config)
    rows = ["| category | cases checked | failures | not applicable |", "|---|---|---|---|"]
    for top in sorted(set(tried) | set(na)):
        rows.append(f"| {top} | {tried[top]} | {failed[top]} | {na[top]} |")
    rows.append("")
    for category in sorted(failing):
        rows.append(f"{category}: {', '.join(sorted(failing[category]))}")
    return "\n".join(rows)


if __name__ == "__main__":
    print(summarise(sys.argv[1]))
