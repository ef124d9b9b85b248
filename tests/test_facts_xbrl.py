"""XBRL facts of a real iXBRL 10-K (NVIDIA fiscal 2023, as filed on EDGAR; re-saved with
lower-cased tag and attribute names) checked against the filing's own tags, read here
directly with lxml: concept, context period, unit, scale and sign."""

from __future__ import annotations

import gzip
from datetime import date
from pathlib import Path

import pytest
from lxml import html as lxml_html

from core.foundation.config import Settings
from core.ingest.pipeline import prepare

FIXTURE = Path(__file__).parent / "fixtures" / "figures" / "nvda-10k-fy2023.html.gz"
SAMPLE = ("us-gaap:Revenues", "us-gaap:NetIncomeLoss", "us-gaap:InterestExpense",
          "nvda:PurchasesOfPropertyAndEquipmentAndIntangibleAssets", "us-gaap:Assets",
          "us-gaap:EarningsPerShareDiluted", "us-gaap:IncomeTaxExpenseBenefit",
          "us-gaap:StockholdersEquity", "us-gaap:ResearchAndDevelopmentExpense")


@pytest.fixture(scope="module")
def data() -> bytes:
    return gzip.decompress(FIXTURE.read_bytes())


@pytest.fixture(scope="module")
def prepared(data):
    return prepare(data, "nvda-10k-fy2023.html", Settings(_env_file=None))


def _tags(data: bytes) -> list[dict]:
    """Entity-total ix:nonfraction facts of the sample concepts, read with lxml."""
    root = lxml_html.document_fromstring(data.decode("windows-1252"))
    periods: dict[str, tuple[str | None, str]] = {}
    dimensional: set[str] = set()
    for ctx in root.iter("xbrli:context"):
        cid = ctx.get("id")
        if ctx.find(".//xbrldi:explicitmember") is not None:
            dimensional.add(cid)
        start, end, instant = (ctx.findtext(f".//xbrli:{n}") for n in
                               ("startdate", "enddate", "instant"))
        periods[cid] = (start, end) if end else (None, instant)
    units = {u.get("id"): u for u in root.iter("xbrli:unit")}
    out = []
    for el in root.iter("ix:nonfraction"):
        name, cid = el.get("name"), el.get("contextref")
        if name not in SAMPLE or cid in dimensional:
            continue
        text = el.text_content().strip()
        number = 0.0 if text in ("-", "—") else float(text.replace(",", ""))
        value = number * 10 ** int(el.get("scale") or 0) * (-1 if el.get("sign") == "-" else 1)
        unit = units[el.get("unitref")]
        divides = unit.find(".//xbrli:divide") is not None
        out.append({"concept": name, "start": periods[cid][0], "end": periods[cid][1],
                    "value": value, "per_share": divides})
    return out


def test_sampled_xbrl_facts_match_the_filings_own_tags(prepared, data):
    facts = {(f.concept, f.start, f.end): f for f in prepared.facts
             if f.source == "xbrl" and not f.dims}
    tags = _tags(data)
    assert len({t["concept"] for t in tags}) == len(SAMPLE)
    for t in tags:
        fact = facts[(t["concept"], t["start"], t["end"])]
        assert fact.value == pytest.approx(t["value"]), t
        assert fact.unit == ("USD/share" if t["per_share"] else "USD"), t
        assert fact.period_type == ("duration" if t["start"] else "instant")


def test_periods_sit_in_nvidias_january_fiscal_years(prepared):
    by = {(f.concept, f.end): f for f in prepared.facts if f.source == "xbrl" and not f.dims}
    fy23 = by[("us-gaap:Revenues", "2023-01-29")]
    assert (fy23.value, fy23.fiscal_year, fy23.fiscal_period, fy23.months) == \
        (26_974_000_000.0, 2023, "FY", 12)
    assert fy23.start == "2022-01-31" and fy23.scale == 6 and fy23.decimals == -6
    fy21 = by[("us-gaap:Revenues", "2021-01-31")]  # a 53-week year ending a day later
    assert (fy21.fiscal_year, fy21.fiscal_period) == (2021, "FY")
    assert by[("us-gaap:Assets", "2022-01-30")].fiscal_year == 2022
    assert by[("us-gaap:Assets", "2022-01-30")].period_type == "instant"
    assert by[("us-gaap:InterestExpense", "2023-01-29")].value == 262_000_000.0  # no sign


def test_xbrl_facts_link_to_the_statement_rows_they_are_printed_in(prepared):
    chunks = {c.chunk_id: c for c in prepared.chunks}
    text = prepared.parsed.text
    revenue = next(f for f in prepared.facts if f.source == "xbrl" and not f.dims
                   and f.concept == "us-gaap:Revenues" and f.fiscal_year == 2023)
    assert revenue.chunk_id is not None and revenue.page
    chunk = chunks[revenue.chunk_id]
    assert revenue.row.startswith("Revenue | $26,974 | $26,914 | $16,675")
    assert revenue.row in text[chunk.start:chunk.end]
    assert "CONSOLIDATED STATEMENTS OF INCOME" in text[max(0, chunk.start - 400):chunk.end]
    assert revenue.statement == "income" and revenue.label == "Revenue"
    table = next(f for f in prepared.facts if f.source == "table" and f.row == revenue.row
                 and f.fiscal_year == 2023)
    assert table.concept == "us-gaap:Revenues" and table.value == revenue.value
    interest = next(f for f in prepared.facts if f.source == "table" and f.statement == "income"
                    and f.label == "Interest expense" and f.fiscal_year == 2023)
    assert interest.value == -262_000_000.0 and interest.concept == "us-gaap:InterestExpense"


def test_dimensional_and_hidden_facts_are_kept_apart(prepared):
    xbrl = [f for f in prepared.facts if f.source == "xbrl"]
    segment = [f for f in xbrl if f.concept == "us-gaap:Revenues" and f.fiscal_year == 2023
               and "nvda:DataCenterMember" in f.dims]
    assert segment and segment[0].value == 15_005_000_000.0
    hidden = [f for f in xbrl if f.concept == "dei:EntityPublicFloat"]
    assert hidden and hidden[0].chunk_id is None and hidden[0].end == date(2022, 7, 29).isoformat()
    assert len(xbrl) > 1000


def test_fact_ids_are_stable_and_numbered_in_order(prepared, data):
    again = prepare(data, "nvda-10k-fy2023.html", Settings(_env_file=None))
    assert [f.model_dump() for f in again.facts] == [f.model_dump() for f in prepared.facts]
    doc_id = prepared.meta.doc_id
    assert [f.fact_id for f in prepared.facts] == \
        [f"{doc_id}-f{n:05d}" for n in range(len(prepared.facts))]
    assert "facts" in prepared.timings and prepared.warnings == []
