"""Feature maps as scikit-learn transformers (ELM random features, low-rank kernels)."""
