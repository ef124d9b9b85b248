"""One money formatter, rounding a half up (issue 38, item 18): "$412.5 million" was stated
"$413 million" in the answer but "$412 million" in the work table of the dashboard (Python's
round-half-even), and the CLI's progress line printed a fact in millions as "112,390 USD"
(or "$ 412.5 USD") beside the answer's "$112,390 million". Every place that writes an amount
now goes through ``core.figures.units`` (``amount``, ``display``, ``number``).

Values are generated (a half at every scale and sign, printed in the ways statements print
them); the answers are those of a fictional filer whose every line ends in a half."""

from __future__ import annotations

import itertools
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

from components.figures_view import base_value
from core.agent.events import FactsFound, FactView
from core.figures.units import amount, display
from tests.hostile.filers import Filer, ingest

MILLIONS = [7, 99, 412, 1_234, 38_765, 112_389]
PRINTED = ["{v:,.1f}", "$ {v:,.1f}", "${v:,.1f}", "({v:,.1f})"]


def _up(value: float, places: int = 0) -> str:
    exact = Decimal(str(value)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    return f"{exact:,.{places}f}"


@pytest.mark.parametrize(("m", "printed", "unit"), itertools.product(
    MILLIONS, PRINTED, ["USD"]))
def test_the_progress_line_states_a_fact_in_millions_as_an_amount(m, printed, unit):
    half = m + 0.5
    negative = printed.startswith("(")
    value = -half * 1e6 if negative else half * 1e6
    fact = FactView(ref="revenue[FY2024]", label="Revenue", metric="revenue",
                    period="FY2024", value=value, printed=printed.format(v=half), unit=unit,
                    source="table", page=40, chunk_id="doc-0001")
    line = FactsFound(node="lookup", step=0, metric="revenue", periods=["FY2024"],
                      facts=[fact]).line()
    assert not re.search(r"\d\s+USD\b", line), line  # never "112,389.5 USD"
    stated = amount(value, unit)
    assert stated in line, line
    whole = _up(half, 0 if half >= 10 else 1)
    assert stated == ("-" if negative else "") + f"${whole} million", stated


@pytest.mark.parametrize("m", MILLIONS)
def test_a_fact_printed_whole_in_millions_is_never_said_in_dollars(m):
    fact = FactView(label="Operating income", value=m * 1e6, printed=f"{m:,}", unit="USD",
                    source="table")
    line = FactsFound(node="lookup", step=0, metric="operating_income",
                      facts=[fact]).line()
    assert f"${m:,} million" in line and f"{m:,} USD" not in line, line


HALVES = [0.125, 0.5, 2.5, 12.25, 412.5, 1_234.5, 99_999.5]


@pytest.mark.parametrize(("v", "sign"), itertools.product(HALVES, [1, -1]))
def test_every_table_of_the_dashboard_rounds_a_half_as_the_answer_does(v, sign):
    from components.peer_grid import number_format

    value = sign * v
    # the work table (an input in dollars), beside the answer's "$413 million"
    assert base_value(value * 1e6, "USD") == amount(value * 1e6, "USD")
    assert base_value(value, "percent") == display(value, "percent", 1)
    assert base_value(value, "USD/share") == f"{'-' if sign < 0 else ''}${_up(v, 2)}"
    # the peer grid's columns (numbers in the column's unit)
    assert number_format("USD millions")(value) == display(value, "USD millions", 0) \
        .replace(" million", "")
    assert number_format("%")(value) == display(value, "percent", 2)
    assert number_format("days")(value) == display(value, "days", 1).removesuffix(" days")


LINES = {"Revenue": (41_234.5, 38_765.5), "Operating income": (8_642.5, 7_531.5),
         "Net income": (5_308.5, 4_197.5)}
ASKED = ["What was Pellworth's {m} in fiscal 2024?", "Pellworth {m} FY2024",
         "How much was Pellworth's {m} in 2023?"]


@pytest.fixture(scope="module")
def pellworth(tmp_path_factory):
    from core.app.research import ResearchService

    settings, corpus = ingest(tmp_path_factory.mktemp("halves"), [
        Filer("PELLWORTH HALVES INC.", "0000900011", "PWH", lines=LINES)])
    yield ResearchService.from_corpus(settings, corpus)
    corpus.close()


@pytest.mark.parametrize(("m", "phrasing"), itertools.product(
    ["revenue", "operating income", "net income", "operating margin", "revenue growth"],
    range(len(ASKED))))
def test_an_amount_ending_in_a_half_is_stated_alike_everywhere_a_user_reads_it(
        pellworth, m, phrasing):
    from core.cli.agent import format_event

    record = pellworth.ask(ASKED[phrasing].format(m=m))
    shown = [record.answer.text, *(format_event(e) or "" for e in record.events)]
    text = "\n".join(shown)
    assert not re.search(r"\d\s+USD\b", text), text
    for a, b in LINES.values():
        for half in (a, b):
            down = f"{int(half):,}"  # 41,234 for 41,234.5: round-half-even's, or cut
            assert not re.search(rf"(?<![\d,.]){down}(?![\d,]|\.5)", text), (half, text)
