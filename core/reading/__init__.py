"""Reading an analyst's question once into a typed ``Reading`` (``read_question``).

* ``model``: the ``Reading`` and its parts (companies, measures, matches), ``summary()``;
* ``lexicon`` / ``lexicon.toml``: the words as data (measures, phrases, kinds, directions);
* ``companies``: one resolver for names, tickers in any case, typos and brands;
* ``read``: normalise the words, read with the grammar, settle the kind, type the reading;
* ``several``: one analysis per measure and per fiscal year asked of several companies.
"""

from core.reading.model import Reading
from core.reading.read import normalise, read_plans, read_question

__all__ = ["Reading", "normalise", "read_plans", "read_question"]
