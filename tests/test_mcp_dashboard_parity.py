"""The figures a client gets through ``figure`` and ``analyze`` are the ones the dashboard
shows for the same question: every one-figure question of the analyst-10k-dev set (65, on
six real 10-Ks) asked on the Research page's path (``core.app.run_session.start``, the
offline engine, the fast path a simple question takes), then through the MCP server:
``analyze`` on the question, and ``figure`` with the typed call ``read_question`` gives.
Same value, same unit, from the same facts.

The set lives in ../shared (a fresh clone has none): the test is skipped when it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_mcp_kit import hash_corpus, mcp_settings, ok, session

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT.parent / "shared" / "benchmarks" / "analyst-10k-dev"
pytestmark = [pytest.mark.slow,  # six 10-Ks ingested, 109 questions asked both ways
              pytest.mark.skipif(not (DEV / "figure_questions.jsonl").exists(),
                                 reason="../shared/benchmarks/analyst-10k-dev is not here")]


@pytest.fixture(scope="module")
def dev_corpus(tmp_path_factory):
    settings = mcp_settings(tmp_path_factory.mktemp("dev") / "store")
    corpus = hash_corpus(settings)
    for path in sorted((DEV / "filings").glob("*.htm*")):
        corpus.ingest_path(path)
    yield settings, corpus
    corpus.close()


def _dashboard(settings, corpus, questions: list[str]) -> list:
    """Each question's answer as the Research page makes it (its record's figures)."""
    from core.app import run_session
    from core.app.research import ResearchService

    service = ResearchService.from_corpus(settings, corpus)
    out = []
    try:
        for question in questions:
            thread = run_session.start(service, question, always_review=False)
            shown = run_session.open_run(service, settings, thread)
            record = shown.record if shown.phase != "review" else \
                service.resume(thread).run()
            out.append(record)
    finally:
        service.close()
    return out


def _sources(figure: dict) -> list[tuple]:
    """Each input of a client's figure: its value and the fact it was read from."""
    out = []
    for i in figure["inputs"]:
        s = i["source"]
        out.append((i["value"],) if s is None else (
            i["value"], s["doc_id"], s["kind"], s["tag"], s["row"], s["period_end"]))
    return out


def _facts(result) -> list[tuple]:
    """The same of a figure the dashboard shows."""
    out = []
    for i in result.inputs:
        f = i.fact
        out.append((i.value,) if f is None else (
            i.value, f.doc_id, f.source, f.concept, f.row, f.end))
    return out


def test_figure_and_analyze_give_the_figures_the_dashboard_shows(dev_corpus):
    from core.mcp.server import build_server
    from core.mcp.service import McpService

    settings, corpus = dev_corpus
    rows = [json.loads(line) for line in (DEV / "figure_questions.jsonl").read_text(
        "utf-8").splitlines() if line.strip()]
    questions = [r["question"] for r in rows]
    records = _dashboard(settings, corpus, questions)
    server = build_server(McpService(settings, corpus_factory=lambda _s: corpus))

    async def ask_each(client):
        out = []
        for question in questions:
            analyzed = await client.call_tool("analyze", {"question": question})
            reading = ok(await client.call_tool("read_question", {"question": question}))
            typed = reading["call"]
            figure = await client.call_tool(typed["tool"], typed["arguments"]) \
                if typed else None
            out.append((analyzed, typed, figure))
        return out

    compared = 0
    for row, record, (analyzed, typed, figure) in zip(rows, records, session(
            server, ask_each), strict=True):
        shown = record.answer.figures[0] if record.answer and record.answer.figures else None
        assert shown is not None, (row["id"], record.answer and record.answer.text)
        got = ok(analyzed)["results"][0]
        assert got["kind"] == "figure", row["id"]
        mine = got["figures"][0]
        assert (mine["value"], mine["unit"], mine["display"]) == (
            shown.value, shown.unit, shown.display), row["id"]
        assert _sources(mine) == _facts(shown), row["id"]
        assert typed is not None and typed["tool"] == "figure", row["id"]
        one = ok(figure)
        assert one["found"] == shown.ok and _sources(one) == _facts(shown), row["id"]
        assert one["value"] == pytest.approx(shown.value, rel=0.005, abs=0.051), row["id"]
        compared += 1
    assert compared == len(rows) == 65


def test_analyze_gives_the_verdicts_and_peer_tables_the_dashboard_shows(dev_corpus):
    """The analyst questions of the same set (compare, rank, yes/no, two figures, segments,
    shares): ``analyze`` decides as the Research page's answer does, row for row."""
    from core.mcp.server import build_server
    from core.mcp.service import McpService

    settings, corpus = dev_corpus
    rows = [json.loads(line) for line in (DEV / "analyst_questions.jsonl").read_text(
        "utf-8").splitlines() if line.strip()]
    records = _dashboard(settings, corpus, [r["question"] for r in rows])
    server = build_server(McpService(settings, corpus_factory=lambda _s: corpus))

    async def ask_each(client):
        return [await client.call_tool("analyze", {"question": r["question"]}) for r in rows]

    for row, record, result in zip(rows, records, session(server, ask_each), strict=True):
        answer = record.answer
        shown = [(a.spec.kind, a.verdict, [(r.label, r.value, r.display) for r in a.rows])
                 for a in answer.analyses]
        got = ok(result)["results"]
        mine = [(a["kind"], a["verdict"], [(r["label"], r["value"], r["display"])
                                           for r in a["rows"]])
                for a in got if a["kind"] != "figure"]
        if shown:
            assert mine == shown, row["id"]
        else:  # answered by figures alone (a share, a segment's figure)
            assert [(f.value, f.unit) for f in answer.figures][:len(got)] == [
                (a["figures"][0]["value"], a["figures"][0]["unit"]) for a in got], row["id"]
