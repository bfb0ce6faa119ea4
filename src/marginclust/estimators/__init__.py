"""Public estimators, one module per method family (import them from ``marginclust``)."""
