"""Data sets: offline loaders and seeded synthetic generators.

:func:`load_dataset` reads scikit-learn's bundled sets, the shared CSV(.gz) files
(directory from ``data_home=`` or the environment variable ``MARGINCLUST_DATA``),
class subsets (``"satimage:1,2"``) and the synthetic sets of the papers.
"""

from ._loaders import DATA_ENV, dataset_exists, list_datasets, load_dataset, resolve_data_home
from ._synthetic import make_four_gaussians, make_pkm_310

__all__ = [
    "DATA_ENV",
    "dataset_exists",
    "list_datasets",
    "load_dataset",
    "make_four_gaussians",
    "make_pkm_310",
    "resolve_data_home",
]
