"""A benchmark's result text: printed, and appended to a results file when one is named."""

from __future__ import annotations

from pathlib import Path


def publish(text: str, out: str | None) -> None:
    """Print ``text``; with ``out``, append it to that file after a blank line."""
    print(text)
    if out:
        with Path(out).open("a") as fh:
            fh.write("\n" + text)
