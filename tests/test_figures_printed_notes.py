"""A sign-only difference is no conflict, amounts are written by one formatter (sign before
the currency, a half rounded up), a quoted row never glues a value to its change column,
and the live progress never says "step 4 of 3". Amounts, labels and change columns come
from slots."""

from __future__ import annotations

import itertools

import pytest

from core.agent.events import PlanApproved, StepStarted
from core.agent.state import PlanStep
from core.figures.differing import alt_text, differing_note
from core.figures.printed_row import cells, quoted, split_heading
from core.foundation.types import Fact

AMOUNTS = [52_535.0, 1_204.4, 412.5, 87.25, 9_999.5]
LABELS = ["Purchases of property and equipment", "Net cash used in investing activities",
          "Repurchases of common stock"]


def _fact(value_millions: float, doc: str = "d1") -> Fact:
    return Fact(fact_id=f"{doc}-{value_millions}", doc_id=doc, source="table", label="x",
                period_type="duration", fiscal_year=2024, value=value_millions * 1e6,
                unit="USD", scale=6)


@pytest.mark.parametrize(("amount", "label"), list(itertools.product(AMOUNTS, LABELS)))
def test_a_sign_only_difference_is_no_conflict(amount, label):
    used, other = _fact(-amount), _fact(amount, "d2")
    assert differing_note(label, "FY2024", used, [other], "USD") == []
    assert differing_note(label, "FY2024", _fact(amount), [_fact(-amount, "d2")], "USD") == []
    real = differing_note(label, "FY2024", used, [other, _fact(amount + 7, "d3")], "USD")
    assert len(real) == 1 and "differ" in real[0]
    assert f"({alt_text(_fact(amount + 7), 'USD')}); used {alt_text(used, 'USD')}." in real[0]
    assert alt_text(used, "USD").startswith("-$") and "$-" not in real[0]
    # a negative print taken as a positive amount: the others in the same convention, once
    taken = differing_note(label, "FY2024", used, [other, _fact(-amount - 7, "d3"),
                                                   _fact(amount + 7, "d4")], "USD", amount * 1e6)
    assert taken == [f"{label} FY2024: other filings or tables differ "
                     f"({alt_text(_fact(amount + 7), 'USD')}); used "
                     f"{alt_text(_fact(amount), 'USD')}."]


@pytest.mark.parametrize(("millions", "shown"), [
    (412.5, "$413 million"), (-412.5, "-$413 million"), (52_535.0, "$52,535 million"),
    (-52_535.0, "-$52,535 million"), (2.25, "$2.3 million"), (-2.25, "-$2.3 million"),
    (-0.05, "-$50,000"), (100.5, "$101 million")])
def test_one_money_formatter_rounds_a_half_up_and_puts_the_sign_first(millions, shown):
    assert alt_text(_fact(millions), "USD") == shown


LINES = ["Revenue", "Net income", "Graphics", "Operating expenses"]
FIGURES = ["$26,974", "11,906", "(3,962)", "56.9%", "$1.74"]
CHANGES = ["—%", "Down 55%", "Up 50%", "(25)%", "36%", "Down 8.0 pts", "12.5%"]


@pytest.mark.parametrize(("line", "figure", "change"),
                         list(itertools.product(LINES, FIGURES, CHANGES))[::3])
def test_a_quoted_row_never_glues_a_value_to_its_change_column(line, figure, change):
    row = f"{line} | {figure} | {figure} {change}"
    assert cells(row) == [line, figure, figure, change]
    assert quoted(row) == f"{line} | {figure} | {figure} | {change}"
    assert quoted(f"{line} | {figure} | {figure}") == f"{line} | {figure} | {figure}"
    assert split_heading(f"January {len(line)}, 2023 Change") == [
        f"January {len(line)}, 2023", "Change"]


def test_the_progress_counts_steps_added_after_the_plan_was_drawn():
    from components.jobs import progress_line, steps_planned

    for proposed, added in itertools.product([1, 2, 3], [1, 2]):
        plan = [PlanStep(sub_question=f"s{i}") for i in range(proposed + added)]
        events = [PlanApproved(node="review", plan=plan, edited=True)]
        events += [StepStarted(node="start_step", step=i, sub_question=f"s{i}",
                               tool="filing_search") for i in range(proposed + added)]
        assert steps_planned(events, proposed) == proposed + added
        line = progress_line(events, 3.0, proposed)
        assert f"step {proposed + added} of {proposed + added}" in line, line
        # no approval event seen (the fast path): never fewer than the steps started
        assert f"of {proposed + added}" in progress_line(events[1:], 3.0, proposed)
