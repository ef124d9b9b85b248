"""The figures layer: from a figure question to a stated, cited, checked number.

* ``model``: the records (``FigureRequest``, ``FigureInput``, ``WorkRow``, ``FigureResult``);
* ``formula``: the formula grammar (``parse``, ``render``, ``inputs``, ``bind``, ``evaluate``);
* ``question``: ``parse_figure_question`` (with ``asked``, ``phrases``, ``definitions``);
* ``compute``: ``lookup``, ``compute``, ``answer_figure`` (facts ranked by ``lookup`` module);
* ``statement``: ``figure_sentence``, ``missing_sentence``, ``work_lines``;
* ``units``: units, rounding and how values are written.

The metric catalogue it reads is ``core.metrics`` (foundation layer).
"""
