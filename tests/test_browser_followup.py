"""A conversation in a real browser (harness: ``tests.browser_kit``): NVIDIA's FY2023 and
AMD's FY2025 10-Ks ingested through the Library, a figure question, then two follow-ups typed
in the box under the answer ("and AMD?", "what about 2022?"), each run with its earlier
questions above it (each a button opening its run) and what it carried over said; Back
returns to the run that was open in one press; a question in the thread opens its earlier
run, the address naming it. At 1440 px the answer uses the page's width and the run's action
buttons are not cut."""

from __future__ import annotations

import pytest

from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
    LONG,
    answer_done,
    body,
    click,
    nav,
    page,
    server,
    settle,
    shot,
    tavily,
)
from tests.test_browser_analysis import _ingest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const answer = document.querySelector('[data-testid="stMainBlockContainer"] '
                                         + '[data-testid^="stBidiComponent"]');
  return [main.getBoundingClientRect().width, answer.getBoundingClientRect().width];
}"""
CUT = """() => Array.from(document.querySelectorAll('.st-key-res_actions button'))
  .map((b) => b.querySelector('p') || b)
  .filter((t) => t.scrollWidth > t.clientWidth + 1).map((t) => t.innerText)"""


def _thread(pg) -> str:
    return pg.url.split("thread=", 1)[1].split("&", 1)[0]


def _follow(pg, words: str, earlier: int) -> str:
    box = pg.get_by_role("textbox", name="Ask a follow-up")
    box.fill(words)
    click(pg, pg.get_by_role("button", name="Ask the follow-up"))
    pg.get_by_text(f"Conversation · {earlier} earlier question(s)").wait_for(timeout=LONG)
    answer_done(pg)
    return _thread(pg)


def test_a_three_question_conversation_with_follow_ups(page, tmp_path):  # noqa: F811
    pg = page
    _ingest(pg, tmp_path)
    nav(pg, "Research")
    pg.get_by_label("Question").fill("What was NVIDIA's revenue in fiscal 2023?")
    pg.get_by_role("button", name="Ask").click()
    answer_done(pg)
    one = _thread(pg)
    assert "Conversation ·" not in body(pg)
    main, answer = pg.evaluate(WIDTHS)
    assert answer > 0.75 * main, (main, answer)  # no column held empty beside it (was ~0.5)
    assert pg.evaluate(CUT) == [], "an action button's label is cut"
    shot(pg, "50-research-answer-1440")

    two = _follow(pg, "and AMD?", 1)
    text = body(pg)
    assert two != one and "carried from the previous question" in text
    assert "You asked “and AMD?”" in text
    assert pg.get_by_role("button", name="1. What was NVIDIA's revenue in fiscal 2023?").count()

    three = _follow(pg, "what about 2022?", 2)
    text = body(pg)
    assert three not in (one, two) and "2022" in text.split("Question:", 1)[1][:200]
    assert pg.get_by_role("button", name="2. and AMD?").count()
    shot(pg, "51-research-follow-up-thread")

    pg.go_back()  # one press: the run that was open before
    pg.get_by_text("Conversation · 1 earlier question(s)").wait_for(timeout=LONG)
    settle(pg)
    assert _thread(pg) == two

    click(pg, pg.get_by_role("button", name="1. What was NVIDIA's revenue in fiscal 2023?"))
    pg.wait_for_url(f"**thread={one}**", timeout=LONG)
    answer_done(pg)
    assert "Conversation ·" not in body(pg)
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
