"""Measuring code, never imported by the product: ``bench`` (ingest and search timings),
``measure`` (retrieval recall on the shared benchmarks) and synthetic corpora."""
