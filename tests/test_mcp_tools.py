"""Every tool and resource of the MCP server, driven by the SDK's own client in process, on
the real NVIDIA (FY2023) and AMD (FY2025) 10-Ks: filings listed, passages searched and
cited, figures with their work and sources, readings, analyses and their typed forms, the
catalogue, chunks and runs as resources, and a deep run made through ``ask`` that
``python -m core runs`` lists."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.app.filing_figures import figures_of
from tests.test_mcp_kit import (
    AMD,
    DASHBOARD,
    NVDA,
    call,
    ok,
    read,
    serving,
    session,
    two_filings_store,
)

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {"list_filings", "search", "metrics", "figure", "read_question", "analyze", "compare",
         "rank", "verdict", "ask", "ingest", "fetch", "delete"}
WRITES = {"ingest", "fetch", "delete"}


@pytest.fixture(scope="module")
def two_filings(tmp_path_factory, ingested_store) -> Path:
    return two_filings_store(tmp_path_factory, ingested_store)


@pytest.fixture(scope="module")
def server(two_filings):
    with serving(two_filings) as srv:
        yield srv


def _cited(result: dict, n: int) -> dict:
    found = result["citations"][n - 1]
    assert found["n"] == n
    return found


def _markers(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"\[(\d+)\]", text)]


def test_every_tool_is_listed_typed_described_and_annotated(server):
    tools = {t.name: t for t in session(server, lambda c: c.list_tools()).tools}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert len(tool.description) > 60, name
        assert tool.output_schema and tool.output_schema.get("properties"), name
        for arg, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{name}({arg}) has no description"
        read_only = tool.annotations.read_only_hint
        assert read_only is (name not in WRITES | {"ask"}), name
    assert tools["delete"].annotations.destructive_hint is True
    assert tools["search"].input_schema["properties"]["strategy"]["enum"] == [
        "hybrid", "vector", "keyword"]
    templates = session(server, lambda c: c.list_resource_templates()).resource_templates
    assert {t.uri_template for t in templates} == {
        "filings://chunks/{chunk_id}", "filings://runs/{run_id}",
        "filings://runs/{run_id}/markdown"}


def test_list_filings_names_each_filer_its_filings_forms_and_periods(server):
    listed = ok(call(server, "list_filings"))
    nvda = next(c for c in listed["companies"] if c["name"] == NVDA)
    assert nvda["cik"] == "0001045810" and nvda["tickers"] == ["NVDA"]
    assert listed["forms"] == ["10-K"] and listed["periods"] == ["FY2023", "FY2025"]
    assert all(f["facts"] > 1000 and f["chunks"] > 100 for f in listed["filings"])
    only = ok(call(server, "list_filings", {"company": "nvda", "form": "10k"}))
    assert [f["company"] for f in only["filings"]] == [NVDA]
    assert only["filters"] == [f"company: {NVDA}", "form: 10-K"]
    assert [f["company"] for f in ok(call(server, "list_filings", {"period": "FY2025"}))[
        "filings"]] == [AMD]


def test_search_gives_each_passage_where_it_sits_its_scores_and_a_library_link(server):
    found = ok(call(server, "search", {"query": "export controls on data center products",
                                       "companies": ["NVIDIA"], "k": 3}))
    assert found["filters"] == [f"company: {NVDA}"] and len(found["hits"]) == 3
    for hit in found["hits"]:
        assert hit["company"] == NVDA and hit["form"] == "10-K" and hit["period"] == "FY2023"
        assert hit["section"] and hit["page"].startswith(("p. ", "PDF p. "))
        assert {"keyword", "vector", "fused"} <= set(hit["scores"]) and hit["text"]
        cite = _cited(found, hit["citation"])
        assert cite["chunk_id"] == hit["chunk_id"]
        assert cite["library_url"] == f"{DASHBOARD}/library?chunk={hit['chunk_id']}"
        assert cite["resource"] == f"filings://chunks/{hit['chunk_id']}"
    scoped = ok(call(server, "search", {"query": "AMD competition risks", "k": 3}))
    assert "ADVANCED MICRO DEVICES" in scoped["scope"]  # the filings the query names
    risks = ok(call(server, "search", {"query": "competition", "section": "Item 1A",
                                       "strategy": "keyword", "periods": ["FY2025"]}))
    assert risks["strategy"] == "keyword"
    assert all(h["section"].startswith("Item 1A") and h["company"] == AMD
               for h in risks["hits"])


def test_figure_states_the_value_its_period_end_and_every_inputs_source(server):
    revenue = ok(call(server, "figure", {"company": "NVDA", "metric": "revenue",
                                         "period": "FY2023"}))
    assert (revenue["value"], revenue["unit"], revenue["display"]) == (
        26974.0, "USD millions", "$26,974 million")
    assert revenue["period"] == "FY2023" and revenue["period_end"] == "2023-01-29"
    assert revenue["sentence"] == "Nvidia's FY2023 revenue was $26,974 million [1]."
    source = revenue["inputs"][0]["source"]
    assert (source["kind"], source["tag"], source["filing"]) == (
        "xbrl", "us-gaap:Revenues", "NVIDIA CORP 10-K FY2023")
    assert source["row"].startswith("Revenue") and source["page"] == "p. 54"
    cite = _cited(revenue, source["citation"])  # the chunk holding the row (from p. 53)
    assert cite["library_url"] == source["library_url"]  # cited at the row's page, as its
    assert "Item 8" in cite["label"] and cite["page"] == "p. 54"  # source says (was p. 53)
    assert cite["label"].endswith(", p. 54")

    margin = ok(call(server, "figure", {"company": "AMD", "metric": "gross margin"}))
    assert margin["period"] == "FY2025" and margin["found"]  # its latest fiscal year
    assert margin["formula"] == "gross_profit[FY2025] / revenue[FY2025]"
    assert "/" in margin["work"] and len(margin["inputs"]) == 2
    assert [i["source"]["citation"] for i in margin["inputs"]] == [1, 1]  # one statement
    assert _markers(margin["sentence"]) == [1]


def test_figure_is_the_figure_the_librarys_panel_shows_for_every_metric_and_period(
        server, two_filings):
    """The dashboard's Library draws a filing's figures with ``figures_of``: the same
    look-up; the client gets the same facts and the same value for every cell."""
    from core.foundation.config import Settings
    from core.store.storage import storage_for

    registry = storage_for(Settings(data_dir=two_filings, _env_file=None)).registry()
    try:
        cells = [(doc, line.key, period, cell) for doc in registry.documents()
                 for line in figures_of(registry, [doc.doc_id]).lines
                 for period, cell in line.cells.items()]
    finally:
        registry.close()
    assert len(cells) > 100

    async def ask_each(client):
        return [await client.call_tool("figure", {"company": doc.cik, "metric": key,
                                                  "period": period})
                for doc, key, period, _ in cells]

    for (_doc, key, period, cell), result in zip(cells, session(server, ask_each),
                                                strict=True):
        got = ok(result)
        assert got["found"] == (cell.value is not None), (key, period)
        assert [i["source"] and i["source"]["doc_id"] for i in got["inputs"]] == [
            i.fact and i.fact.doc_id for i in cell.inputs], (key, period)
        assert [i["value"] for i in got["inputs"]] == [i.value for i in cell.inputs]
        if cell.value is not None:  # the same figure; the Library rounds ratios to 0.01
            assert got["value"] == pytest.approx(cell.value, rel=0.005, abs=0.051), (
                key, period)


def test_a_segment_figure_reads_the_member_the_filing_reports(server):
    centre = ok(call(server, "figure", {"company": "AMD", "metric": "revenue",
                                        "segment": "data center"}))
    assert centre["found"] and centre["segment"] == "Data Center"
    assert centre["value"] < ok(call(server, "figure", {"company": "AMD",
                                                        "metric": "revenue"}))["value"]


def test_read_question_gives_the_reading_and_the_typed_call_that_asks_the_same(server):
    question = "Which had the higher gross margin, nvda or AMD?"
    reading = ok(call(server, "read_question", {"question": question}))
    assert reading["kind"] == "compare" and reading["answered_by"] == "figures"
    assert [c["name"] for c in reading["companies"]] == [NVDA, AMD]
    assert [c["period"] for c in reading["companies"]] == ["FY2023", "FY2025"]
    assert reading["companies"][0]["cik"] == "0001045810"  # named by its ticker
    assert all(re.fullmatch(r"\d{10}", c["cik"]) for c in reading["companies"])
    assert reading["measures"][0]["metric"] == "gross_margin"
    assert any(m["words"] == "nvda" and m["read_as"] == NVDA for m in reading["matches"])
    assert reading["read_as"].startswith("Read as: which is higher · gross margin")
    typed = reading["call"]
    assert typed["tool"] == "compare"
    answered = ok(call(server, "analyze", {"question": question}))["results"][0]
    again = ok(call(server, typed["tool"], typed["arguments"]))["results"][0]
    assert again["rows"][0]["company"] == answered["rows"][0]["company"] == NVDA
    assert [r["value"] for r in again["rows"]] == [r["value"] for r in answered["rows"]]
    segment = ok(call(server, "read_question", {
        "question": "What was AMD's Data Center revenue in fiscal 2025?"}))["call"]
    assert segment == {"tool": "figure", "arguments": {
        "company": AMD, "metric": "revenue", "period": "FY2025", "segment": "Data Center"}}
    gap = ok(call(server, "read_question", {  # a change in dollars: no typed call asks it
        "question": "How much did AMD's Data Center revenue grow in fiscal 2025?"}))
    assert gap["answered_by"] == "figures" and gap["call"] is None
    text = ok(call(server, "read_question", {"question": "What are NVIDIA's main "
                                                         "competition risks?"}))
    assert text["answered_by"] == "text" and text["call"] is None
    assert [c["name"] for c in text["companies"]] == [NVDA]


def test_analyze_leads_with_the_verdict_then_the_table_each_figure_cited(server):
    out = ok(call(server, "analyze", {"question": "Which had the higher gross margin, "
                                                  "NVIDIA or AMD?"}))
    result = out["results"][0]
    assert result["kind"] == "compare" and result["verdict"] == "NVIDIA"
    assert result["lead"] == ("NVIDIA had the higher gross margin: 56.9% in fiscal 2023 [1] "
                              "against AMD's 49.5% in fiscal 2025 [2].")
    assert [r["display"] for r in result["rows"]] == ["56.9%", "49.5%"]
    assert [r["rank"] for r in result["rows"]] == [1, 2]
    assert any("different months" in n for n in result["notes"])
    for n in _markers(result["lead"]):
        assert _cited(out, n)["library_url"].startswith(f"{DASHBOARD}/library?chunk=")
    assert result["figures"][0]["inputs"][0]["source"]["tag"] == "us-gaap:GrossProfit"
    judged = ok(call(server, "analyze", {"question": "Is AMD capital-intensive?"}))
    criterion = judged["results"][0]
    assert criterion["kind"] == "criterion" and criterion["verdict"] in ("Yes", "No")
    assert "above 10.0%" in criterion["basis"] and "above 40.0%" in criterion["basis"]
    one = ok(call(server, "analyze", {"question": "What was NVIDIA's net income in fiscal "
                                                  "2023?"}))["results"][0]
    assert (one["kind"], one["verdict"]) == ("figure", "$4,368 million")


def test_compare_rank_and_verdict_decide_from_the_figures_and_say_it_first(server):
    compared = ok(call(server, "compare", {"companies": ["AMD", "NVIDIA"],
                                           "metric": "operating margin"}))
    assert compared["results"][0]["verdict"] == "Nvidia"  # the registry's name, short
    assert compared["reading"]["question"] == ("Which had the higher operating margin, "
                                               "Advanced Micro Devices or Nvidia?")
    lower = ok(call(server, "compare", {"companies": ["AMD", "NVIDIA"], "metric": "capex",
                                        "direction": "lower"}))["results"][0]
    assert lower["verdict"] == "Advanced Micro Devices"  # $974 million against $1,833 million
    ranked = ok(call(server, "rank", {"metric": "revenue"}))["results"][0]
    assert ranked["kind"] == "rank"
    assert [r["company"] for r in ranked["rows"]] == [AMD, NVDA]  # every company loaded
    grew = ok(call(server, "verdict", {"company": "NVDA", "metric": "revenue",
                                       "test": "grew", "period": "FY2023"}))["results"][0]
    assert grew["verdict"] == "Yes" and grew["lead"].startswith("Yes.")
    above = ok(call(server, "verdict", {"company": "AMD", "metric": "operating margin",
                                        "test": "above", "threshold": 15}))["results"][0]
    assert above["verdict"] == "No" and "15" in above["basis"]


def test_metrics_lists_the_catalogue_its_synonyms_and_the_criteria(server):
    catalogue = ok(call(server, "metrics"))
    metrics = {m["key"]: m for m in catalogue["metrics"]}
    assert metrics["gross_margin"]["derived"] and metrics["gross_margin"]["formula"]
    assert "net sales" in metrics["revenue"]["names"]
    assert "op margin" in metrics["operating_margin"]["also"]
    criteria = {c["key"]: c for c in catalogue["criteria"]}
    assert criteria["capital_intensive"]["rule"] == "any"
    assert any("10" in t for t in criteria["capital_intensive"]["tests"])
    assert catalogue["kinds"]["compare"] == "which is higher"


def test_a_cited_chunk_is_a_resource_with_its_text_and_library_link(server):
    revenue = ok(call(server, "figure", {"company": "NVDA", "metric": "revenue"}))
    cite = revenue["citations"][0]
    chunk = json.loads(read(server, cite["resource"]))
    assert chunk["chunk_id"] == cite["chunk_id"] and "26,974" in chunk["text"]
    assert chunk["library_url"] == cite["library_url"] and chunk["company"] == NVDA
    assert "never instructions" in chunk["note"]


def test_ask_runs_the_deep_agent_and_python_m_core_runs_lists_the_run(server, two_filings):
    done = ok(call(server, "ask", {"question": "What was NVIDIA's revenue in fiscal 2023?"}))
    assert done["status"] == "done" and done["backend"] == "offline engine"
    assert done["answer"].startswith("NVIDIA's FY2023 revenue was $26,974 million [1]")
    assert done["figures"][0]["value"] == 26974.0
    assert _cited(done, 1)["library_url"].startswith(f"{DASHBOARD}/library?chunk=")
    assert done["run_url"] == f"{DASHBOARD}/runs?run={done['run_id']}"
    record = json.loads(read(server, done["record"]))
    assert record["id"] == done["run_id"] and record["status"] == "done"
    assert "NVIDIA's revenue in fiscal 2023" in read(server, done["markdown"])

    paused = ok(call(server, "ask", {"question": "What are NVIDIA's main competition risks "
                                                 "and how does AMD describe its own?",
                                     "approve_plan": False}))
    assert paused["status"] == "paused" and paused["plan"] and not paused["answer"]
    assert f"--resume {paused['run_id']}" in paused["next"]
    assert paused["run_url"] == f"{DASHBOARD}/?thread={paused['run_id']}"

    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    listed = subprocess.run([sys.executable, "-m", "core", "runs"], cwd=ROOT, text=True,
                            capture_output=True, timeout=600,
                            env={**env, "DTR_DATA_DIR": str(two_filings)})
    assert listed.returncode == 0, listed.stderr[-2000:]
    lines = {line.split()[0]: line for line in listed.stdout.splitlines() if line.strip()}
    assert " done " in lines[done["run_id"]] and " paused " in lines[paused["run_id"]]
