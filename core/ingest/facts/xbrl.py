"""Tagged facts of an inline-XBRL filing, read with ``ixbrlparse``.

``ixbrlparse`` parses with BeautifulSoup's case-sensitive "xml" builder, so a filing
re-saved by an HTML serialiser (lower-cased ``ix:nonfraction``, ``contextref``) yields no
fact; names are restored to their iXBRL spelling first. It also walks the whole document
(~3.5-4 s for a 10-K here), so it is handed only what it reads: the ``ix:resources``
block (contexts, units) and every top-level ``ix:nonFraction`` element, cut from the text
with their nesting respected (~0.3 s). Its value handling (``format``, ``scale``, ``sign``)
is used as is; units that divide (USD per share) it reports as their numerator only, so
units are read from the resources here.
"""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass

from core.foundation.types import Fact
from core.ingest.facts.calendar import FiscalCalendar, months_between
from core.ingest.text import declared_charset, decode_bytes

_CASE = ("nonFraction", "nonNumeric", "contextRef", "unitRef", "startDate", "endDate",
         "continuedAt", "explicitMember", "typedMember", "unitNumerator", "unitDenominator",
         "schemaRef")
_CASE_RX = re.compile("|".join(n.lower() for n in _CASE), re.I)
_CASE_MAP = {n.lower(): n for n in _CASE}
_NONFRACTION = re.compile(r"<(/?)ix:nonfraction\b[^>]*?(/?)>", re.I)
_RESOURCES = re.compile(r"<ix:resources\b.*?</ix:resources>", re.I | re.S)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_UNITS = {"iso4217:usd": "USD", "xbrli:shares": "shares", "xbrli:pure": "pure"}


@dataclass
class TaggedFact:
    """A numeric iXBRL fact before it is linked to the table it is printed in."""

    fact: Fact
    order: int


def is_inline_xbrl(data: bytes | None) -> bool:
    return bool(data) and re.search(rb"<ix:nonfraction\b", data[:20_000_000], re.I) is not None


def slice_ixbrl(text: str) -> str:
    """A small XML document holding the resources and the top-level ``nonFraction`` elements
    of ``text``, names spelled as iXBRL spells them."""
    parts: list[str] = []
    depth, start = 0, 0
    for m in _NONFRACTION.finditer(text):
        closing, empty = m.group(1), m.group(2)
        if closing:
            depth -= 1
            if depth == 0:
                parts.append(text[start:m.end()])
            depth = max(depth, 0)
        elif empty:
            if depth == 0:
                parts.append(m.group(0))
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    resources = _RESOURCES.search(text)
    body = (resources.group(0) if resources else "") + "".join(parts)
    body = _CASE_RX.sub(lambda m: _CASE_MAP[m.group(0).lower()], body)
    return ('<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" '
            'xmlns:xbrli="http://www.xbrl.org/2003/instance"><body>' + body + "</body></html>")


def _unit_names(soup) -> dict[str, str]:
    """unit id -> 'USD', 'shares', 'USD/share', 'pure', or the measure as written."""
    out: dict[str, str] = {}
    for unit in soup.find_all(["xbrli:unit", "unit"]):
        uid = unit.get("id")
        if not uid:
            continue
        measures = [m.text.strip() for m in unit.find_all(["xbrli:measure", "measure"])]
        names = [_UNITS.get(m.lower(), m.split(":")[-1]) for m in measures]
        if unit.find(["xbrli:divide", "divide"]) is not None and len(names) == 2:
            out[uid] = f"{names[0]}/{'share' if names[1] == 'shares' else names[1]}"
        elif names:
            out[uid] = names[0]
    return out


def concept_words(concept: str) -> str:
    """'us-gaap:PropertyPlantAndEquipmentNet' -> 'Property plant and equipment net'."""
    words = _CAMEL.sub(" ", concept.split(":")[-1]).split()
    text = " ".join(w if w.isupper() else w.lower() for w in words)
    return text[:1].upper() + text[1:]


def _dims(segments) -> str:
    parts = []
    for seg in segments or []:
        axis = seg.get("dimension") or seg.get("tag", "")
        parts.append(f"{axis}={seg.get('value', '')}")
    return "; ".join(sorted(parts))


def read_xbrl(data: bytes, doc_id: str, calendar: FiscalCalendar | None) -> list[TaggedFact]:
    """Numeric facts of an iXBRL filing, one per concept, period, dimensions and unit, in
    document order. A fact printed more than once (a table's "4,372" and the text's "$4.37
    billion") keeps its most precise occurrence (largest ``decimals``; the first of equals)."""
    from ixbrlparse import IXBRL

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = slice_ixbrl(decode_bytes(data, declared_charset(data)))
        doc = IXBRL(io.StringIO(text), raise_on_error=False)
    units = _unit_names(doc.soup)
    best: dict[tuple, TaggedFact] = {}
    for order, num in enumerate(doc.numeric):
        fact = _fact(num, units, doc_id, calendar)
        if fact is None:
            continue
        key = (fact.concept, fact.start, fact.end, fact.dims, fact.unit)
        held = best.get(key)
        if held is None:
            best[key] = TaggedFact(fact, order)
        elif _precision(fact) > _precision(held.fact):
            best[key] = TaggedFact(fact, held.order)
    return sorted(best.values(), key=lambda t: t.order)


def _precision(fact: Fact) -> float:
    return float("inf") if fact.decimals is None else fact.decimals


def _fact(num, units: dict[str, str], doc_id: str, calendar: FiscalCalendar | None):
    from ixbrlparse.components.formats import ixtNumWordsEn

    ctx = num.context
    if num.value is None or isinstance(num.value, bool) or not hasattr(ctx, "segments"):
        return None
    tag = num.soup_tag
    if str(tag.get("xsi:nil", tag.get("nil", ""))).strip().lower() in ("true", "1"):
        return None  # nil: no value reported (ixbrlparse reads its empty text as 0)
    unit = units.get(tag.get("unitRef", ""), str(num.unit or ""))
    concept = f"{num.schema}:{num.name}"
    fmt = num.format
    value = float(num.value)
    if isinstance(fmt, ixtNumWordsEn):  # ixbrlparse applies neither sign nor scale to words
        value *= (-1 if fmt.sign == "-" else 1) * 10 ** fmt.scale
    start, end = ctx.startdate, ctx.enddate or ctx.instant
    if end is None:
        return None
    instant = ctx.instant is not None and ctx.startdate is None
    months = None if instant else months_between(start, end)
    fiscal_year, fiscal_period = end.year, "" if instant else ""
    if calendar is not None:
        resolved = calendar.resolve(end, months, instant)
        fiscal_year, fiscal_period = resolved.fiscal_year, resolved.fiscal_period
    return Fact(
        fact_id="", doc_id=doc_id, source="xbrl", label=concept_words(concept),
        concept=concept, period_type="instant" if instant else "duration",
        fiscal_year=fiscal_year, fiscal_period=fiscal_period, months=months,
        start=start.isoformat() if start and not instant else None, end=end.isoformat(),
        value=value, unit=unit, scale=int(getattr(fmt, "scale", 0) or 0),
        decimals=getattr(fmt, "decimals", None), dims=_dims(ctx.segments),
        printed=(tag.text or "").strip(),
    )
