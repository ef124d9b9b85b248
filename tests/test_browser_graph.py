"""The Research page's live graph lights the running stage of the running step, in a real
browser (harness: ``tests.browser_kit``).

The picture is the compiled graph's (``get_graph(xray=True)``): a plan step's stages are
drawn inside its box as ``research_step:<stage>``. A web step waits on a slow
Tavily-compatible server on 127.0.0.1, so the run is held inside the step: the node the
latest event names (the step's ``rewrite``, which chose the query before the search) must
be lit inside the step, and the caption must name it.
"""

from __future__ import annotations

import re

from components.graph_view import CURRENT
from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
    LONG,
    SAMPLE,
    answer_done,
    body,
    nav,
    page,
    server,
    settle,
    shot,
    tavily,
    upload_filings,
)

QUESTION = "Find recent news from 2024 about AMD's AI chip strategy."
LIT = """(fill) => Array.from(document.querySelectorAll(
    '[data-testid="stGraphVizChart"] svg g.node')).filter((g) => Array.from(
    g.querySelectorAll('path, polygon, ellipse')).some((s) =>
    (s.getAttribute('fill') || '').toLowerCase() === fill)).map((g) =>
    g.querySelector('title').textContent)"""


def test_a_running_step_lights_its_stage_inside_the_step(page, tavily):  # noqa: F811
    pg = page
    pg.goto(f"{pg.base_url}/library")
    pg.get_by_role("heading", name="Your corpus is empty").wait_for(timeout=LONG)  # cold start
    upload_filings(pg, [SAMPLE])
    pg.get_by_role("button", name="Ingest files").click()
    pg.get_by_text("1 of 1 succeeded").wait_for(timeout=LONG)

    nav(pg, "Settings")
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Provider").click()
    pg.get_by_role("option", name="tavily", exact=True).click()
    pg.get_by_role("button", name="Save settings").click()
    pg.get_by_text("Settings saved to").wait_for()
    held = [tavily.hold(), tavily.hold()]  # the web step waits until the test looked

    nav(pg, "Research")
    pg.get_by_label("Question").fill(QUESTION)
    pg.get_by_text("Always review the plan").click()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    settle(pg)
    pg.get_by_role("button", name="Approve and run").click()
    cancel = pg.get_by_role("button", name="Cancel the run")
    cancel.wait_for()
    pg.wait_for_function(f"({LIT})('{CURRENT}').some((t) => t === 'research_step:rewrite')",
                         timeout=LONG)
    lit = pg.evaluate(f"({LIT})('{CURRENT}')")
    assert lit == ["research_step:rewrite"], lit  # one node lit, inside the step
    caption = re.search(r"Current node: (\S+) \(inside (\S+)\)", body(pg))
    assert caption and caption.groups() == ("rewrite", "research_step"), body(pg)[-1500:]
    assert cancel.is_visible() and len(tavily.search_requests) >= 1  # still searching
    assert pg.get_by_role("button", name="Approve and run").count() == 0  # no greyed plan
    graph = pg.locator('[data-testid="stGraphVizChart"]').first
    graph.scroll_into_view_if_needed()
    shot(pg, "30-graph-running-stage", full=False)

    for gate in held:
        gate.set()
    answer_done(pg)  # the slow search ends; the run finishes with its answer
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
