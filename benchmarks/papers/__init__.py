"""Paper protocols: one module per paper registers its methods, tables and published numbers."""
