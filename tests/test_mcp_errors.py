"""Bad input gets a tool error a model can act on, never a traceback and never a guess: an
unknown company with the nearest names loaded, an unknown metric with close catalogue
names, a period not in the corpus with the periods that are, a form, section, document,
chunk or run that is not there with what is; writes refused without ``--allow-writes``; a
crash said in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from core.mcp.names import parse_period, resolve_metric
from core.mcp.server import build_server
from core.mcp.service import McpService
from tests.test_mcp_kit import (
    NVDA,
    call,
    error,
    mcp_settings,
    ok,
    serving,
    session,
    two_filings_store,
)


@pytest.fixture(scope="module")
def two_filings(tmp_path_factory, ingested_store) -> Path:
    return two_filings_store(tmp_path_factory, ingested_store)


@pytest.fixture(scope="module")
def server(two_filings):
    with serving(two_filings) as srv:
        yield srv


@pytest.mark.parametrize(("tool", "args", "said"), [
    ("figure", {"company": "Nvidai", "metric": "revenue"},
     ["No company 'Nvidai' is loaded", "Nearest names loaded: NVIDIA CORP (NVDA; CIK "
      "0001045810)", "Companies loaded: NVIDIA CORP"]),
    ("figure", {"company": "Intel", "metric": "revenue"},
     ["No company 'Intel' is loaded", "ADVANCED MICRO DEVICES, INC. (AMD; CIK 0000002488)"]),
    ("compare", {"companies": ["NVDA", "Qualcomm"], "metric": "revenue"},
     ["No company 'Qualcomm' is loaded"]),
    ("list_filings", {"company": "nvidia corporation inc ltd x"}, ["No company"]),
    ("figure", {"company": "NVDA", "metric": "gross margn"},
     ["No metric 'gross margn' in the catalogue", "Close catalogue names: gross margin "
      "(gross_margin)", "Call metrics"]),
    ("rank", {"metric": "ebitdaa"}, ["No metric 'ebitdaa'", "EBITDA"]),
    ("figure", {"company": "NVDA", "metric": "revenue", "period": "FY2019"},
     ["NVIDIA CORP has no figures for FY2019 in the filings loaded (periods with figures: "
      "FY2020, FY2021, FY2022, FY2023)"]),
    ("verdict", {"company": "AMD", "metric": "revenue", "test": "grew", "period": "FY2030"},
     ["has no figures for FY2030", "FY2023, FY2024, FY2025"]),
    ("figure", {"company": "NVDA", "metric": "revenue", "period": "last year"},
     ["'last year' is not a period: write a fiscal year (FY2024)"]),
    ("search", {"query": "risks", "periods": ["FY2019"]},
     ["No filing of the corpus is for FY2019; periods of the filings loaded: FY2023, FY2025"]),
    ("list_filings", {"company": "AMD", "period": "FY2023"},
     ["No filing of ADVANCED MICRO DEVICES, INC. is for FY2023; periods of the filings "
      "loaded: FY2025"]),
    ("list_filings", {"form": "10-Q"}, ["No 10-Q filing is loaded; forms loaded: 10-K"]),
    ("search", {"query": "risks", "section": "Item 99"}, ["Unknown section(s): 'Item 99'"]),
    ("figure", {"company": "AMD", "metric": "revenue", "segment": "Automotive"},
     ["reports no segment, product line or region 'Automotive'", "Data Center"]),
    ("analyze", {"question": "What are NVIDIA's main competition risks?"},
     ["read as a text question", "Call ask"]),
    ("read_question", {"question": "   "}, ["The question is empty"]),
    ("verdict", {"company": "AMD", "metric": "operating margin", "test": "above"},
     ["needs a threshold"]),
    ("verdict", {"company": "AMD", "metric": "revenue growth", "test": "grew"},
     ["pass 'revenue' itself"]),
    ("compare", {"companies": ["NVDA", "NVIDIA"], "metric": "revenue"},
     ["one company (NVIDIA CORP)"]),
    ("search", {"query": "risks", "k": 0}, ["k"]),
    ("verdict", {"company": "AMD", "metric": "revenue", "test": "bigger"}, ["test"]),
])
def test_bad_input_is_an_error_that_says_what_is_there(server, tool, args, said):
    text = error(call(server, tool, args))
    for words in said:
        assert words in text, text


@pytest.mark.parametrize(("tool", "args"), [
    ("ingest", {"source": "/etc/hosts"}),
    ("fetch", {"tickers": ["NVDA"]}),
    ("delete", {"doc_id": "6f56e2bf21f6c016"}),
])
def test_writes_are_refused_without_allow_writes(server, tool, args):
    text = error(call(server, tool, args))
    assert "read-only" in text and "--allow-writes" in text
    assert len(ok(call(server, "list_filings"))["filings"]) == 2  # nothing changed


@pytest.mark.parametrize(("uri", "said"), [
    ("filings://chunks/nope-00001", "No chunk 'nope-00001' is loaded"),
    ("filings://runs/20990101-000000-deadbeef", "No saved run"),
    ("filings://runs/20990101-000000-deadbeef/markdown", "No saved run"),
])
def test_a_resource_that_is_not_there_says_so(server, two_filings, uri, said):
    async def read(client):
        try:
            await client.read_resource(uri)
        except MCPError as exc:
            return str(exc)
        return "no error"

    text = session(server, read)
    assert said in text and "Traceback" not in text
    assert str(two_filings) not in text  # the server's folders are its own


def test_a_crash_is_one_line_on_the_client_and_a_traceback_only_in_the_log(two_filings,
                                                                           caplog):
    def broken(_settings):
        raise RuntimeError("secret detail /home/analyst/.env")

    srv = build_server(McpService(mcp_settings(two_filings), corpus_factory=broken))
    text = error(call(srv, "search", {"query": "risks"}))
    assert text.endswith("search failed unexpectedly (RuntimeError); the server's log has "
                         "the details. Try again, or with other arguments.")
    assert "secret" not in text
    assert any("secret detail" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    assert ok(call(srv, "figure", {"company": "NVDA", "metric": "revenue"}))["found"]


def test_names_are_read_exactly_or_not_at_all():
    assert [parse_period(p) for p in ("FY2024", "2024", "fy24", "FY 2024", "fiscal 2024",
                                      "FY2024-Q1", "Q1 FY2024", "2024 Q3", None)] == [
        "FY2024", "FY2024", "FY2024", "FY2024", "FY2024", "FY2024-Q1", "FY2024-Q1",
        "FY2024-Q3", None]
    assert [resolve_metric(m).key for m in ("revenue", "Net Sales", "op margin", "capex",
                                             "free cash flow", "FCF", "gross_margin",
                                             "the operating margin")] == [
        "revenue", "revenue", "operating_margin", "capex", "fcf", "fcf", "gross_margin",
        "operating_margin"]
    with pytest.raises(Exception, match="No metric 'annual revenue'"):
        resolve_metric("annual revenue")  # close, but not a name: offered, never taken


def test_a_company_by_ticker_cik_or_name_in_any_case(server):
    for words in ("NVDA", "nvda", "1045810", "CIK 0001045810", "Nvidia", "NVIDIA Corporation"):
        assert ok(call(server, "figure", {"company": words, "metric": "revenue"}))[
            "company"] == NVDA, words
