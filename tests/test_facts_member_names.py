"""Members take the filing's own names, on fictional inline-XBRL 10-Ks built here from slots
(several filers, member names, abbreviations and axes): a member is never named after the
metric its table breaks down ("Revenues"), one member printed under an abbreviation in
another table stays one member (the abbreviation an alias), a country is a region unless
its axis says segment, a segment's EBIT or operating profit is its operating income, and a
member's name finds the company whose filings have it (``companies_of_member``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.figures.segments import companies_of_member, match_member, members
from core.foundation.config import Settings
from core.ingest.facts.countries import country_of, is_country
from core.ingest.facts.members import axis_kind, member_words
from core.ingest.facts.metric import segment_profit
from core.ingest.facts.naming import abbreviates, is_metric_name
from core.ingest.pipeline import prepare
from tests.test_figures_compute import FactStore, fact

GEO = "srt:StatementGeographicalAxis"
SEG = "us-gaap:StatementBusinessSegmentsAxis"
YEARS = (2024, 2023)
M = 1e6


@dataclass
class Row:
    printed: str
    axis: str | None = None
    member: str | None = None
    values: tuple[int, int] = (0, 0)


def _context(cid: str, year: int, dims: list[tuple[str, str]]) -> str:
    members = "".join(f'<xbrldi:explicitMember dimension="{a}">{m}</xbrldi:explicitMember>'
                      for a, m in dims)
    segment = f"<xbrli:segment>{members}</xbrli:segment>" if members else ""
    return (f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.'
            f'sec.gov/CIK">0000000001</xbrli:identifier>{segment}</xbrli:entity><xbrli:period>'
            f"<xbrli:startDate>{year}-01-01</xbrli:startDate><xbrli:endDate>{year}-12-31"
            "</xbrli:endDate></xbrli:period></xbrli:context>")


def ixbrl(company: str, tables: list[tuple[str, str, str | None, list[Row]]]) -> bytes:
    """A 10-K's MD&A with one table per ``(caption, total row, concept, rows)``: each row
    prints two years, tagged with ``concept`` in its member's context when it has one."""
    contexts, seen, body = [], set(), []
    for caption, total, concept, rows in tables:
        trs = ["<tr><td></td><td>Year Ended December 31,</td><td></td></tr>",
               "<tr><td></td>" + "".join(f"<td>{y}</td>" for y in YEARS) + "</tr>"]
        for row in rows:
            cells = []
            for year, value in zip(YEARS, row.values, strict=True):
                if row.member and concept:
                    cid = f"c{year}_{row.member.replace(':', '_').replace('.', '_')}"
                    if cid not in seen:
                        seen.add(cid)
                        contexts.append(_context(cid, year, [(row.axis, row.member)]))
                    value = (f'<ix:nonFraction name="{concept}" contextRef="{cid}" '
                             f'unitRef="usd" decimals="-6" scale="6" '
                             f'format="ixt:num-dot-decimal">{value:,}</ix:nonFraction>')
                else:
                    value = f"{value:,}"
                cells.append(f"<td>$ {value}</td>")
            trs.append(f"<tr><td>{row.printed}</td>{''.join(cells)}</tr>")
        sums = [sum(r.values[k] for r in rows) for k in range(2)]
        trs.append(f"<tr><td>{total}</td>" + "".join(f"<td>$ {s:,}</td>" for s in sums)
                   + "</tr>")
        body.append(f"<p>{caption}</p><p>(in millions)</p><table>{''.join(trs)}</table>")
    header = ('<div style="display:none"><ix:header><ix:resources>' + "".join(contexts)
              + '<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>'
              "</ix:resources></ix:header></div>")
    return ('<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" xmlns:xbrli="http://www.'
            'xbrl.org/2003/instance" xmlns:xbrldi="http://xbrl.org/2006/xbrldi"><body>'
            f"{header}<p>{company}</p><p>ANNUAL REPORT ON FORM 10-K</p><p>For the fiscal year "
            "ended December 31, 2024</p><p>Item 7. Management's Discussion and Analysis</p>"
            + "".join(body) + "</body></html>").encode()


# Slots: (company, line the tables break down, its total row, segments as (QName, printed,
# abbreviation), regions as (QName, printed), a profit concept and its printed line, countries
# a "segment" table prints).
FILERS = [
    ("Acme Widgets Inc.", "Revenues", "Total revenues",
     [("acme:IndustrialSolutionsMember", "Industrial Solutions", "IS"),
      ("acme:ConsumerProductsMember", "Consumer Products", "CP")],
     [("country:US", "United States"), ("acme:EuropeMiddleEastAndAfricaMember", "EMEA"),
      ("srt:AsiaPacificMember", "APAC")],
     ("acme:SegmentEbit", "Segment EBIT"), ["Canada", "Mexico"]),
    ("Zenith Data Corp.", "Net sales", "Total net sales",
     [("zen:CloudPlatformsMember", "Cloud Platforms", "CPL"),
      ("zen:DeviceServicesMember", "Device Services", "DS"),
      ("zen:HealthAnalyticsMember", "Health Analytics", "HA")],
     [("country:DE", "Germany"), ("srt:LatinAmericaMember", "LATAM"),
      ("zen:NorthAmericaMember", "N.A.")],
     ("zen:SegmentOperatingProfitLoss", "Segment operating profit"), ["Japan", "Brazil"]),
    ("Borealis Foods Co.", "Revenue", "Total revenue",
     [("bor:FrozenMealsMember", "Frozen Meals", "FM"),
      ("bor:SnacksAndBeveragesMember", "Snacks & Beverages", "S&B")],
     [("country:GB", "U.K."), ("srt:EuropeMember", "Europe"),
      ("bor:RestOfWorldMember", "Rest of world")],
     ("bor:OperatingResult", "Operating result"), ["United Kingdom", "Ireland"]),
]


def _filing(filer, n: int):
    company, line, total, segments, regions, (profit, printed), countries = filer
    seg_rows = [Row(name, SEG, qname, (600 - 100 * k, 500 - 90 * k))
                for k, (qname, name, _) in enumerate(segments)]
    tables = [
        (f"{line} by geography", total, "us-gaap:Revenues",
         [Row(name, GEO, qname, (400 - 50 * k, 350 - 40 * k))
          for k, (qname, name) in enumerate(regions)]),
        (f"{line} by segment", total, "us-gaap:Revenues", seg_rows),
        (f"{printed} by segment", f"Total {printed.lower()}", profit,
         [Row(name, SEG, qname, (90 - 20 * k, 80 - 15 * k))
          for k, (qname, name, _) in enumerate(segments)]),
        # the MD&A's untagged table prints the segments under their abbreviations
        (f"{line} by reportable segment", total, None,
         [Row(abbr, values=r.values) for (_, _, abbr), r in zip(segments, seg_rows,
                                                               strict=True)]),
        # countries under a "segment" caption, untagged: still regions
        ("Capital expenditures by segment", "Total capital expenditures", None,
         [Row(c, values=(70 + k, 60 + k)) for k, c in enumerate(countries)]),
    ]
    done = prepare(ixbrl(company, tables), f"filer{n}-10k-2024.html", Settings(_env_file=None),
                   company=company, form_type="10-K", period="FY2024")
    meta = done.meta.model_copy(update={"cik": f"000000000{n}"})
    return meta, done.facts


@pytest.fixture(scope="module")
def filings():
    return [(filer, *_filing(filer, n)) for n, filer in enumerate(FILERS, start=1)]


@pytest.fixture(scope="module")
def store(filings):
    return FactStore([f for _, _, facts in filings for f in facts],
                     [meta for _, meta, _ in filings])


@pytest.mark.parametrize("n", range(len(FILERS)))
def test_a_member_is_named_as_printed_never_after_the_metric(filings, n):
    filer, meta, facts = filings[n]
    line, regions, segments = filer[1], filer[4], filer[3]
    names = {m: name for f in facts if f.source == "xbrl" for m, name in
             f.member_names.items()}
    for qname, printed in regions:
        assert names[qname] == printed, (qname, names[qname])
    for qname, printed, _ in segments:
        assert names[qname] == printed
    assert not any(is_metric_name(name) for name in names.values())
    assert line not in names.values()


@pytest.mark.parametrize("n", range(len(FILERS)))
def test_one_segment_under_its_name_and_its_abbreviation(filings, store, n):
    filer, meta, _ = filings[n]
    found = members(store, [meta.doc_id], "revenue", "FY2024", kind="segment")
    names = [m.name for m, _ in found]
    assert names == [printed for _, printed, _ in filer[3]]  # no "IS" beside "Industrial ..."
    for (qname, _, abbr), (member, _) in zip(filer[3], found, strict=True):
        assert member.member == qname and abbr in member.aliases
        assert match_member(f"What was {abbr} revenue?", [member]) == member
    assert [i.value / M for _, i in found] == [600 - 100 * k for k in range(len(filer[3]))]


@pytest.mark.parametrize("n", range(len(FILERS)))
def test_a_segment_profit_measure_is_its_operating_income(filings, store, n):
    filer, meta, _ = filings[n]
    found = members(store, [meta.doc_id], "operating_income", "FY2024", kind="segment")
    assert [(m.name, i.value / M) for m, i in found] == \
        [(printed, 90 - 20 * k) for k, (_, printed, _) in enumerate(filer[3])]
    assert all(i.fact.source == "xbrl" for _, i in found)


@pytest.mark.parametrize("n", range(len(FILERS)))
def test_a_country_is_a_region_unless_its_axis_says_segment(filings, store, n):
    filer, meta, facts = filings[n]
    countries = filer[6]
    segments = {m.name for m, _ in members(store, [meta.doc_id], "revenue", "FY2024",
                                           kind="segment")}
    assert not segments & set(countries)
    printed = {f.dims.split("=")[1]: f.dims.split("=")[0] for f in facts
               if f.source == "table" and f.dims and f.dims.split("=")[1] in countries}
    assert printed == dict.fromkeys(countries, "geography")
    regions = [m.name for m, _ in members(store, [meta.doc_id], "revenue", "FY2024",
                                          kind="geography")]
    assert regions == [name for _, name in filer[4]]


def test_a_country_tagged_on_the_segment_axis_is_a_segment():
    facts = prepare(ixbrl("Vega Retail Inc.", [
        ("Revenue by segment", "Total revenue", "us-gaap:Revenues",
         [Row("United States", SEG, "vega:UnitedStatesSegmentMember", (700, 650)),
          Row("International", SEG, "vega:InternationalSegmentMember", (300, 280))]),
        ("Revenue by geography", "Total revenue", "us-gaap:Revenues",
         [Row("United States", GEO, "country:US", (700, 650)),
          Row("China", GEO, "country:CN", (300, 280))])]),
        "vega-10k-2024.html", Settings(_env_file=None), company="Vega Retail Inc.",
        form_type="10-K", period="FY2024").facts
    store = FactStore(facts)
    segments = members(store, None, "revenue", "FY2024", kind="segment")
    assert sorted((m.name, m.member, i.value / M) for m, i in segments) == \
        [("International", "vega:InternationalSegmentMember", 300),
         ("United States", "vega:UnitedStatesSegmentMember", 700)]
    regions = members(store, None, "revenue", "FY2024", kind="geography")
    assert ("China", "country:CN", 300) in [(m.name, m.member, i.value / M)
                                           for m, i in regions]
    assert match_member("China", [m for m, _ in segments], kind="segment") is None


def test_a_member_name_finds_its_company(store, filings):
    one = companies_of_member(store, "What was Health Analytics operating income in FY2024?")
    assert [(o.company, o.name, o.kind) for o in one] == \
        [("Zenith Data Corp.", "Health Analytics", "segment")]
    assert one[0].doc_ids == [filings[1][1].doc_id]
    assert [o.company for o in companies_of_member(store, "frozen meals")] == \
        ["Borealis Foods Co."]
    assert [o.name for o in companies_of_member(store, "S&B revenue")] == \
        ["Snacks & Beverages"]  # its abbreviation
    assert [o.company for o in companies_of_member(store, "Asia Pacific")] == \
        ["Acme Widgets Inc."]  # printed "APAC", known by its QName's words too
    assert companies_of_member(store, "Quantum Computing") == []
    assert companies_of_member(store, "Germany", kind="segment") == []
    assert [o.kind for o in companies_of_member(store, "Germany")] == ["geography"]


def test_a_name_several_companies_have_returns_each_once():
    facts, docs = [], []
    for n, (company, prefix) in enumerate((("Orion Chips Corp.", "ori"),
                                           ("Pulsar Semis Inc.", "pul"))):
        done = prepare(ixbrl(company, [("Revenue by segment", "Total revenue",
                                        "us-gaap:Revenues",
                                        [Row("Data Center", SEG, f"{prefix}:DataCenterMember",
                                             (900 - n, 800)),
                                         Row("Gaming", SEG, f"{prefix}:GamingMember",
                                             (100, 90 + n))])]),
                       f"chip{n}.html", Settings(_env_file=None), company=company,
                       form_type="10-K", period="FY2024")
        facts += done.facts
        docs.append(done.meta.model_copy(update={"cik": f"00000001{n}"}))
    owners = companies_of_member(FactStore(facts, docs), "data center revenue")
    assert sorted((o.company, o.name) for o in owners) == \
        [("Orion Chips Corp.", "Data Center"), ("Pulsar Semis Inc.", "Data Center")]
    segments = members(FactStore(facts, docs), None, "revenue", "FY2024", kind="segment")
    assert len(segments) == 4  # one per company, never merged across companies


class CountingStore(FactStore):
    """A store that says how many facts each filing has (the cache's key) and counts reads."""

    reads = 0

    def facts(self, *args, **kwargs):
        self.reads += 1
        return super().facts(*args, **kwargs)

    def facts_status(self):
        out: dict[str, int] = {}
        for f in self._facts:
            out[f.doc_id] = out.get(f.doc_id, 0) + 1
        return out


def test_the_owners_are_read_once_per_state_of_the_facts(filings):
    facts = [f for _, _, fs in filings for f in fs]
    store = CountingStore(facts[:-1], [meta for _, meta, _ in filings])
    companies_of_member(store, "Cloud Platforms")
    reads = store.reads
    companies_of_member(store, "Device Services")
    assert store.reads == reads  # remembered
    store._facts = facts  # a filing read again: its count moved
    companies_of_member(store, "Device Services")
    assert store.reads > reads


@pytest.mark.parametrize("abbreviation, name", [
    ("APAC", "Asia Pacific"), ("EMEA", "Europe, Middle East & Africa"), ("U.S.", "United States"),
    ("LATAM", "Latin America"), ("C&N", "Compute & Networking"), ("UK", "United Kingdom"),
    ("S&B", "Snacks & Beverages"), ("CPL", "Cloud Platforms"), ("N.A.", "North America"),
])
def test_abbreviations(abbreviation, name):
    assert abbreviates(abbreviation, name)


@pytest.mark.parametrize("text, name", [
    ("APAC", "Asia-Pacific, Africa"),  # every word must be spelled
    ("Net", "Net sales"), ("us", "United States"),  # no capitals: a word
    ("IS", "Industrial"),  # one word is no abbreviation's name
    ("GAAP", "Google Cloud"), ("Total", "Total revenue"),
])
def test_not_abbreviations(text, name):
    assert not abbreviates(text, name)


def test_countries_and_profit_lines():
    assert country_of("country:TW") == "Taiwan" and member_words("country:DE") == "Germany"
    assert country_of("stpr:CA") is None and member_words("srt:AsiaPacificMember") == \
        "Asia Pacific"
    assert all(is_country(n) for n in ("United States", "U.S.", "China (including Hong Kong)",
                                       "South Korea", "UK"))
    assert not any(is_country(n) for n in ("North America", "EMEA", "International",
                                           "Industrial Solutions", "Other countries"))
    for line in ("Segment EBIT", "EBIT", "Segment operating profit", "Operating profit (loss)",
                 "Segment income", "Operating results", "Segment profit",
                 "Earnings before interest and taxes"):
        assert segment_profit(line), line
    for line in ("Segment EBITDA", "Segment income before income taxes", "Net income",
                 "Other operating income", "Operating expenses", "EBIT margin",
                 "Operating lease income", "Segment operating profit as a % of sales"):
        assert not segment_profit(line), line


@pytest.mark.parametrize("axis, kind", [
    (SEG, "segment"), ("acme:OperatingSegmentsAxis", "segment"),
    ("us-gaap:SubsegmentsAxis", "product"),  # a franchise within a segment
    (GEO, "geography"), ("acme:GeographicSegmentsAxis", "geography"),
    ("us-gaap:GeographicDistributionAxis", "geography"), ("srt:ProductOrServiceAxis", "product"),
    ("us-gaap:StatementEquityComponentsAxis", "other"), ("segment", "segment"),
    ("geography", "geography"), ("column", "other"),
])
def test_a_members_kind_is_its_axis(axis, kind):
    assert axis_kind(axis) == kind


def test_a_sub_segment_is_no_segment_of_a_ranking():
    parent = f"{SEG}=acme:HealthMember"
    facts = [fact("sub", "Revenues", 900, 2024, None, source="xbrl", concept="us-gaap:Revenues",
                  dims=parent, metric="revenue"),
             fact("sub", "Revenues", 300, 2024, None, source="xbrl", concept="us-gaap:Revenues",
                  dims=f"{parent}; us-gaap:SubsegmentsAxis=acme:OncologyMember",
                  metric="revenue"),
             fact("sub", "Revenues", 100, 2024, None, source="xbrl", concept="us-gaap:Revenues",
                  dims=f"{SEG}=acme:ToolsMember", metric="revenue")]
    store = FactStore(facts)
    assert [m.name for m, _ in members(store, None, "revenue", "FY2024", kind="segment")] == \
        ["Health", "Tools"]
    assert [m.name for m, _ in members(store, None, "revenue", "FY2024", kind="product")] == \
        ["Oncology"]
