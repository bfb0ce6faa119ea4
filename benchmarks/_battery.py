"""Gagolewski's clustering benchmark framework: read a battery folder and score a partition.

A battery folder holds ``NAME.data.gz`` (points, whitespace separated) and one or more
``NAME.labelsJ.gz`` reference partitions (label 0 marks noise, excluded from scoring;
K is the largest label of that reference). The framework's rules (its README):

- preprocessing "original": drop zero-variance columns, centre every column, divide
  all of X by its overall standard deviation (one number, shapes kept);
- for each reference, run the algorithm with that reference's K and score the
  non-noise points; a data set's score is the best over its references.

``BATTERY_ROOT`` defaults to ``../shared/battery`` beside the repository; set
``MARGINCLUST_BATTERY`` (a folder of battery folders) to read another copy of the
suite, e.g. its other batteries.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from marginclust.metrics import adjusted_rand_index, normalized_clustering_accuracy

__all__ = [
    "BATTERY_ROOT",
    "BatterySet",
    "battery_root",
    "list_sets",
    "load_set",
    "preprocess",
    "score_partitions",
]

BATTERY_ROOT = Path(__file__).resolve().parents[2] / "shared" / "battery"


def battery_root(root: str | os.PathLike[str] | None = None) -> Path:
    """The folder of battery folders: ``root``, ``$MARGINCLUST_BATTERY`` or the shared one."""
    if root is not None:
        return Path(root)
    env = os.environ.get("MARGINCLUST_BATTERY")
    return Path(env) if env else BATTERY_ROOT


@dataclass(frozen=True)
class BatterySet:
    """One data set of a battery: points and reference partitions (0 = noise)."""

    battery: str
    name: str
    X: np.ndarray
    references: tuple[np.ndarray, ...]

    @property
    def key(self) -> str:
        """``"battery/name"``."""
        return f"{self.battery}/{self.name}"

    @property
    def n_samples(self) -> int:
        """Number of points."""
        return int(self.X.shape[0])

    def ks(self) -> list[int]:
        """The distinct K of the references, in order of first appearance."""
        seen: list[int] = []
        for ref in self.references:
            k = int(ref.max())
            if k not in seen:
                seen.append(k)
        return seen


def list_sets(
    batteries: tuple[str, ...] = ("fcps", "graves", "wut"),
    *,
    max_samples: int | None = 3000,
    root: str | os.PathLike[str] | None = None,
    skipped: list[tuple[str, str]] | None = None,
) -> list[str]:
    """Keys ``"battery/name"`` of the sets with at most ``max_samples`` points, sorted.

    A data file that cannot be read (e.g. a truncated download) is left out; when
    ``skipped`` is a list, ``(key, reason)`` is appended to it.
    """
    base = battery_root(root)
    keys = []
    for battery in batteries:
        for path in sorted((base / battery).glob("*.data.gz")):
            name = path.name[: -len(".data.gz")]
            if max_samples is not None:
                try:
                    rows = _count_rows(path)
                except (OSError, EOFError) as exc:
                    if skipped is not None:
                        skipped.append((f"{battery}/{name}", f"unreadable: {exc}"))
                    continue
                if rows > max_samples:
                    continue
            keys.append(f"{battery}/{name}")
    return keys


def _count_rows(path: Path) -> int:
    import gzip

    with gzip.open(path, "rt") as fh:
        return sum(1 for line in fh if line.strip())


def load_set(key: str, *, root: str | os.PathLike[str] | None = None) -> BatterySet:
    """Read ``battery/name``: its points (float64) and every reference partition."""
    battery, name = key.split("/", 1)
    folder = battery_root(root) / battery
    X = np.loadtxt(folder / f"{name}.data.gz", ndmin=2)
    refs = []
    for j in range(100):
        path = folder / f"{name}.labels{j}.gz"
        if not path.is_file():
            break
        ref = np.loadtxt(path, dtype=np.int64, ndmin=1).ravel()
        if ref.shape != (X.shape[0],):
            raise ValueError(f"{path}: {ref.size} labels for {X.shape[0]} points")
        refs.append(ref)
    if not refs:
        raise FileNotFoundError(f"{folder / name}: no labels0 file")
    return BatterySet(battery, name, X, tuple(refs))


def preprocess(X: np.ndarray, how: str = "original") -> np.ndarray:
    """The framework's preprocessing: ``"original"`` or ``"standardise"`` (per column)."""
    X = np.asarray(X, dtype=np.float64)
    X = X[:, X.std(axis=0) > 0]
    X = X - X.mean(axis=0)
    if how == "original":
        return X / X.std()
    if how == "standardise":
        return X / X.std(axis=0)
    raise ValueError(f"how must be 'original' or 'standardise'; got {how!r}")


def score_partitions(
    ds: BatterySet, fit: Callable[[int], np.ndarray]
) -> Iterator[tuple[int, int, float, float]]:
    """Yield ``(reference index, K, NCA, ARI)`` for each reference, fitting once per K.

    ``fit(K)`` returns labels for every point; noise points (reference label 0) are
    left out of the scores. A data set's score is the best over its references.
    """
    cache: dict[int, np.ndarray] = {}
    for j, ref in enumerate(ds.references):
        k = int(ref.max())
        if k not in cache:
            cache[k] = np.asarray(fit(k))
        keep = ref > 0
        yield (
            j,
            k,
            normalized_clustering_accuracy(ref[keep], cache[k][keep]),
            adjusted_rand_index(ref[keep], cache[k][keep]),
        )
