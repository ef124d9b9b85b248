"""The analysis layer: answers that combine figures and judge (compare, rank, verdicts,
several metrics, criteria), as plain functions over the figures layer's results.

* ``model``: the records (``AnalysisSpec``, ``PeerRow``, ``AnalysisResult``).
"""
