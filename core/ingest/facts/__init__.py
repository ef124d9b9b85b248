"""Financial facts of a filing, extracted at ingest (``extract_facts``).

Two sources: the statement, MD&A, segment and note tables of the parsed text
(``table_facts``: line item, column period, caption scale, parentheses negative), and for
an inline-XBRL filing its tagged numeric facts (``xbrl``: concept, context period, unit,
scale, sign, decimals, dimensions). Each table fact is linked to the chunk holding its row
and its page; each XBRL fact to the table fact it is printed as (``link``), else kept with
``chunk_id=None`` (hidden in ``ix:header`` or printed in prose). Fact ids number the facts
in extraction order (table facts in reading order, then XBRL facts in document order), so
re-extracting the same file gives the same ids.
"""

from __future__ import annotations

import hashlib
import importlib
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

from core.foundation.types import Chunk, DocumentMeta, Fact, ParsedDocument
from core.ingest.facts.calendar import FiscalCalendar
from core.ingest.facts.link import chunk_finder, link_xbrl, page_finder
from core.ingest.facts.members import finish_names, printed_names
from core.ingest.facts.metric import metric_of
from core.ingest.facts.table_facts import read_tables
from core.ingest.facts.xbrl import is_inline_xbrl, read_xbrl

__all__ = ["calendar_from_quarter", "calendar_from_years", "extract_facts", "fiscal_calendar",
           "primary_statements", "reader_version"]

_YTD = ((3, re.compile(r"\bnine\s+months\s+ended\b|\bthirty[-\s]nine\s+weeks\b", re.I)),
        (2, re.compile(r"\bsix\s+months\s+ended\b|\btwenty[-\s]six\s+weeks\b", re.I)))


@lru_cache(maxsize=1)
def reader_version() -> str:
    """Which facts reader this is: a digest of this package's code and the metric
    catalogue (``core/metrics/catalog.toml`` and its loader), kept with each filing's facts
    so that ``doctor`` can name the filings a different reader read (their facts miss or
    mis-state what this one reads until they are read again). Parser changes are not in it:
    they change the chunks too, which only a new ingest gives."""
    loader = importlib.import_module("core.metrics.catalog")  # the package's name is a function
    digest = hashlib.sha256()
    for path in [*sorted(Path(__file__).parent.glob("*.py")), Path(loader.__file__),
                 loader.CATALOG]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n"))
    return digest.hexdigest()[:12]


def fiscal_calendar(meta: DocumentMeta, text: str = "") -> FiscalCalendar | None:
    """The filing's fiscal calendar from its own period and period end; a 10-Q whose
    quarter is not known from its period is placed by the year-to-date columns it prints."""
    hint = None
    if (meta.form_type or "").upper().startswith("10-Q"):
        hint = next((q for q, rx in _YTD if rx.search(text[:400_000])), 1)
    return FiscalCalendar.for_filing(meta.period, meta.period_end, meta.form_type, hint)


def calendar_from_years(facts: list[Fact], text: str = "") -> FiscalCalendar | None:
    """The calendar a filing's own tables imply when its metadata gives none (an earnings
    release): its fiscal year ends on the latest end date of its twelve-month columns, named
    by the year it ends, unless it ends early in a year and the text names "fiscal <the year
    before>" more often than "fiscal <its end year>" (a retailer's fiscal 2022 ending January
    28, 2023, with an outlook for fiscal 2023). None without a twelve-month column."""
    ends = sorted({f.end for f in facts if f.months == 12 and f.end and not f.dims})
    if not ends:
        return None
    cal = FiscalCalendar.for_filing("", ends[-1])
    if cal is None or cal.year_end.month > 2:
        return cal
    named = Counter(int(y) for y in _FISCAL_YEAR.findall(text[:400_000]))
    year = cal.year_end.year
    if named[year - 1] > named[year]:
        return FiscalCalendar(cal.year_end, year - 1, cal.quarterly)
    return cal


_QUARTER_NAMED = re.compile(r"\b(first|second|third|fourth)\s+quarter\s+(?:of\s+)?(?:fiscal\s+)?"
                            r"(?:year\s+)?((?:19|20)\d\d)\b|\bQ([1-4])\s*(?:FY\s*)?((?:19|20)\d\d)\b",
                            re.I)
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}


def calendar_from_quarter(facts: list[Fact], text: str) -> FiscalCalendar | None:
    """The calendar of a release that prints quarters only: its latest quarter column is
    the quarter its opening text names most ("First Quarter 2023 Results", "Q1 2023"). None
    when no quarter column or no named quarter."""
    ends = sorted({f.end for f in facts if f.months == 3 and f.end and not f.dims})
    named = Counter()
    for m in _QUARTER_NAMED.finditer(text[:20_000]):
        q = _ORDINAL[m.group(1).lower()] if m.group(1) else int(m.group(3))
        named[(int(m.group(2) or m.group(4)), q)] += 1
    if not ends or not named:
        return None
    (year, quarter), _ = named.most_common(1)[0]
    return FiscalCalendar.for_filing(f"{year}-Q{quarter}", ends[-1], "10-Q")


_FISCAL_YEAR = re.compile(r"\bfiscal\s+(?:year\s+)?((?:19|20)\d\d)\b", re.I)


_QUARTERLY_STATEMENTS = re.compile(r"Part I\W+Item 1\.|Item 1\.\s+Financial Statements", re.I)


def primary_statements(facts: list[Fact], chunks: list[Chunk]) -> list[Fact]:
    """``facts`` with statement tags kept for the filer's own statements only: when Item 8
    (a 10-Q's Part I, Item 1) holds statements, a statement-shaped table elsewhere (a
    summary in MD&A, an obligor group's statement, a schedule in Item 15, an investee's
    statements filed as an exhibit) is no statement of the filing."""
    sections = {c.chunk_id: c.section for c in chunks}

    def in_item8(fact: Fact) -> bool:
        section = sections.get(fact.chunk_id or "", "")
        return section.startswith("Item 8") or bool(_QUARTERLY_STATEMENTS.match(section))

    if not any(f.statement and in_item8(f) for f in facts):
        return facts
    for fact in facts:
        if fact.statement and fact.chunk_id in sections and not in_item8(fact):
            fact.statement = None
            fact.metric = metric_of(fact)
    return facts


def extract_facts(meta: DocumentMeta, parsed: ParsedDocument, chunks: list[Chunk],
                  data: bytes | None = None) -> list[Fact]:
    """Every fact of one filing: see the module docstring."""
    calendar = fiscal_calendar(meta, parsed.text)
    find_chunk, find_page = chunk_finder(chunks), page_finder(parsed.pages)
    statements = {c.chunk_id: c.statement for c in chunks if c.statement}

    def statement_at(offset: int) -> str | None:
        chunk = find_chunk(offset)
        return statements.get(chunk.chunk_id) if chunk else None

    found = read_tables(parsed, calendar, meta.doc_id, statement_at)
    if calendar is None:  # a filing that says neither its period nor its end (a release)
        facts_read = [tf.fact for tf in found]
        calendar = calendar_from_years(facts_read, parsed.text) or \
            calendar_from_quarter(facts_read, parsed.text)
        if calendar is not None:
            found = read_tables(parsed, calendar, meta.doc_id, statement_at)
    table: list[Fact] = []
    for tf in found:
        fact = tf.fact
        chunk = find_chunk(tf.offset, len(fact.row))
        fact.chunk_id = chunk.chunk_id if chunk else None
        fact.page = find_page(tf.offset)
        table.append(fact)
    tagged = [t.fact for t in read_xbrl(data, meta.doc_id, calendar)] \
        if is_inline_xbrl(data) else []
    names = printed_names(tagged, table, parsed.text)
    finish_names(tagged, names, link_xbrl(tagged, table, names))
    facts = primary_statements(table + tagged, chunks)
    for n, fact in enumerate(facts):
        fact.fact_id = f"{meta.doc_id}-f{n:05d}"
        fact.metric = metric_of(fact)
    return facts
