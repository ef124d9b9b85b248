"""Rounding as financial statements round (issue 32): a half goes away from zero ("$ 412.5"
in millions is stated "$413 million", not round-half-even's "$412 million"); the decimals a
question asks for are kept. Properties over many values, then the answer end to end."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.figures.units import display, half_up
from tests.hostile.kit import HALFWAY_10K


@pytest.mark.parametrize(("value", "unit", "decimals", "shown"), [
    (412.5, "USD millions", 0, "$413 million"),
    (412.5, "USD millions", 1, "$412.5 million"),
    (-412.5, "USD millions", 0, "-$413 million"),
    (0.5, "USD", 0, "$1"),
    (2.5, "times", 0, "3x"),
    (0.125, "percent", 2, "0.13%"),
    (2.675, "USD", 2, "$2.68"),  # its binary value is 2.67499...; statements print 2.675
    (-0.4, "USD", 0, "$0"),  # no "-$0"
])
def test_halves_round_away_from_zero(value, unit, decimals, shown):
    assert display(value, unit, decimals) == shown


@given(st.integers(min_value=0, max_value=10**12))
def test_every_half_dollar_rounds_up_in_size(m):
    assert display(m + 0.5, "USD", 0) == f"${m + 1:,}"
    assert display(-(m + 0.5), "USD", 0) == f"-${m + 1:,}"
    assert half_up(m + 0.5, 0) == m + 1 and half_up(-(m + 0.5), 0) == -(m + 1)


@given(st.integers(min_value=-10**9, max_value=10**9), st.integers(min_value=0, max_value=6))
def test_a_value_already_at_the_decimals_asked_is_shown_exactly(k, places):
    value = k / 10**places
    exact = Decimal(k).scaleb(-places)
    body = f"{abs(exact):,.{places}f}"
    assert display(value, "USD", places) == ("-" if k < 0 else "") + f"${body}"


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15),
       st.integers(min_value=0, max_value=8))
def test_rounding_moves_a_value_by_at_most_half_a_step(value, places):
    assert abs(half_up(value, places) - value) <= 0.5 * 10**-places + abs(value) * 1e-15


@pytest.fixture(scope="module")
def halfway(tmp_path_factory):
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.foundation.config import Settings
    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=tmp_path_factory.mktemp("halfway") / "store",
                        cache_enabled=False, _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    report = corpus.ingest_bytes(HALFWAY_10K.encode(), "halfway-10k-2024.htm")
    assert {f.printed for f in corpus.store.facts(metric="revenue")} == {"$ 412.5", "$ 380.5"}
    yield ResearchService.from_corpus(settings, corpus), report
    corpus.close()


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Halfway Widgets' revenue in fiscal 2024?", "$413 million"),
    ("What was Halfway Widgets' revenue in fiscal 2023?", "$381 million"),
    ("What was Halfway Widgets' revenue in fiscal 2024? Round to one decimal place.",
     "$412.5 million"),
])
def test_the_answer_states_the_figure_rounded_as_statements_round(halfway, question, figure):
    service, _ = halfway
    record = service.ask(question)
    first = record.answer.text.splitlines()[0]
    assert figure in first, record.answer.text


@pytest.mark.parametrize("question", ["What was Halfway Widgets' revenue in fiscal 2024?",
                                      "What was Halfway Widgets's revenue in fiscal 2024?",
                                      "What was the revenue of Halfway Widgets in fiscal 2024?"])
def test_a_possessive_in_the_question_is_not_taken_into_the_name(halfway, question):
    """The question's "Widgets'" is the possessive of "Halfway Widgets": the answer says
    "Halfway Widgets' FY2024 revenue", never "Halfway Widgets''s"."""
    service, _ = halfway
    first = service.ask(question).answer.text.splitlines()[0]
    assert first.startswith("Halfway Widgets' FY2024 revenue was $413 million"), first
    assert "''" not in first
