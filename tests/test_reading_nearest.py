"""A measure the catalogue does not name (core.reading.nearest): taken only when the bundled
model puts one catalogue metric near enough and clearly ahead (said in the reading), named as
not answered with the nearest when it is only close, never guessed; the real
all-MiniLM-L6-v2 on the fictional filers of tests/test_analysis."""

from __future__ import annotations

import numpy as np
import pytest

from core.reading import read_question
from core.reading.nearest import MARGIN, TAKE, Near, measure_words, taken
from tests.test_reading import DOCS, STORE


def test_taken_needs_the_threshold_and_the_margin_over_the_next_metric():
    for top, second, want in ((TAKE + 0.01, TAKE - MARGIN - 0.01, True),
                              (TAKE + 0.01, TAKE - MARGIN + 0.02, False),
                              (TAKE - 0.01, 0.1, False), (0.99, None, True)):
        near = [Near("capex", "capital spending", top)] + (
            [Near("rnd", "r&d", second)] if second is not None else [])
        assert (taken(near) is not None) is want, (top, second)
    assert taken([]) is None


def test_measure_words_leave_only_the_measure():
    common = frozenset({"what", "was", "were", "the", "in", "of", "on", "did", "how"})
    for text, want in (("What were 's selling costs in FY2024?", "selling costs"),
                       ("How much did  spend on stock based pay?", "stock based pay"),
                       ("What was the   in Q3?", ""),
                       ("What was a b c d e f g?", "")):
        assert measure_words(text, common) == want, text


class _Toward:
    """An embedder that puts every text on one of two axes: texts naming ``near`` (and the
    ``words`` asked) on the first, the rest on the second (so the cosine is 1 or 0)."""

    def __init__(self, near: str, words: str = "plant outlays"):
        self.near, self.words, self.name = near, words, f"toward-{near}"

    def encode(self, texts):
        return np.array([[1.0, 0.0] if self.near in t.lower() or t == self.words else
                         [0.0, 1.0] for t in texts])


def test_a_measure_near_one_catalogue_name_is_read_and_said():
    reading, _, request = read_question("What were Acme's plant outlays in FY2024?", DOCS,
                                        STORE, embedder=_Toward("capital spending"))
    # every name of capex that says "capital spending" is at 1.0, the others at 0.0
    assert request is not None and request.metric == "capex"
    said = [m for m in reading.matches if m.words == "plant outlays"]
    assert said and said[0].how.startswith("the nearest catalogue name, similarity 1.00")


def test_no_embedder_or_a_text_question_takes_nothing():
    reading, plan, request = read_question("What were Acme's plant outlays in FY2024?",
                                           DOCS, STORE)
    assert plan is None and request is None and reading.kind == "text"
    reading, plan, request = read_question("Why did Acme's plant outlays rise?", DOCS,
                                           STORE, embedder=_Toward("capital"))
    assert plan is None and request is None and not reading.matches


@pytest.mark.slow
def test_the_bundled_model_takes_a_near_name_and_only_names_a_close_one(real_embedder):
    reading, _, request = read_question("What were Acme's share buybacks in FY2024?", DOCS,
                                        STORE, embedder=real_embedder)
    assert request is not None and request.metric == "share_repurchases"  # a catalogue name
    reading, plan, request = read_question("What were Acme's selling costs in FY2024?",
                                           DOCS, STORE, embedder=real_embedder)
    assert plan is None and request is None  # cost of goods sold is near, not near enough
    assert reading.nearest and reading.nearest[0] == "cogs"
    assert "'selling costs' is no measure of the catalogue (nearest: cost of goods sold" \
        in reading.not_answered()
    assert [c.name for c in reading.companies] == ["ACME CORP"]
    reading, _, _ = read_question("What were Acme's main risks in FY2024?", DOCS, STORE,
                                  embedder=real_embedder)
    assert reading.unread == [] and reading.nearest == []  # nothing near: nothing said
