"""Company, CIK, form type, period, ticker and former names of a filing.

Sources, best first: values the user gives, iXBRL dei facts, the EDGAR header of a full
submission file (``COMPANY CONFORMED NAME:``, ``CENTRAL INDEX KEY:`` ...), then the cover
page (``cover``) and the signature block. Periods read "FY2023" for annual reports and
"2024-Q1" for quarters (fiscal year and period from dei). From cover text alone a quarter's
fiscal number is unknown, so a 10-Q found that way gets its period-end date ("2023-04-30").
A fiscal year ending in the first week of January is named for the year before (J&J's fiscal
2022 ended January 1, 2023); one ending later in January or early February follows the year
the filing itself calls it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import PurePosixPath

from core.ingest.cover import (
    COVER_CHARS,
    cover_cik,
    cover_lines,
    former_names,
    normal_cik,
    registrant_name,
    tickers,
)

UNKNOWN = "unknown"
_FORM = re.compile(r"\bform\s+(10-K(?:405|SB)?|10-Q(?:SB)?|20-F|40-F|8-K)(/A)?\b", re.I)
_REPORT_KIND = re.compile(r"\b(annual|quarterly)\s+report\s+pursuant\s+to\s+section", re.I)
_FY_END = re.compile(
    r"for\s+the\s+(fiscal\s+year|quarterly\s+period|quarter|year|period)\s+ended:?\s+"
    r"([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})",
    re.I,
)
_DATE_FORMATS = ("%B %d, %Y", "%B %d %Y", "%b %d, %Y", "%b. %d, %Y", "%Y-%m-%d", "%m/%d/%Y",
                 "%Y%m%d", "%b %d %Y")
_SAFE_NAME = re.compile(r"[^\w.\- ()]+")
_HEADER_FIELD = re.compile(r"^[ \t]*([A-Z][A-Z ]+?):[ \t]*(\S.*?)[ \t]*$", re.M)
FY_TEXT_CHARS = 60_000


def parse_date(value: str) -> date | None:
    """Parse "January 29, 2023", "2023-01-29" or "01/29/2023"; None otherwise."""
    value = " ".join(value.replace("Sept.", "Sep.").split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    return None


def edgar_header(data: bytes) -> dict[str, list[str]]:
    """Fields of an EDGAR submission header (``<SEC-HEADER>`` of a full .txt submission)."""
    head = data[:30_000]
    if b"CONFORMED" not in head and b"<SEC-HEADER>" not in head.upper():
        return {}
    text = head.decode("latin-1")
    end = text.upper().find("</SEC-HEADER>")
    fields: dict[str, list[str]] = {}
    for key, value in _HEADER_FIELD.findall(text[: end if end > 0 else len(text)]):
        fields.setdefault(key.strip(), []).append(value)
    return fields


def fiscal_year(end: date, text: str) -> int:
    """The fiscal year a year ending on ``end`` is named for (see module doc)."""
    if end.month == 1 and end.day <= 7:
        return end.year - 1
    if end.month == 1 or (end.month == 2 and end.day <= 10):
        head = text[:FY_TEXT_CHARS]
        said = {y: len(re.findall(rf"\bfiscal\s+(?:year\s+)?{y}\b", head, re.I))
                for y in (end.year - 1, end.year)}
        if said[end.year - 1] > said[end.year]:
            return end.year - 1
    return end.year


def form_from(dei: dict[str, str], text: str, header: dict | None = None) -> str | None:
    """dei:DocumentType, the EDGAR header, "FORM 10-K" on the cover, or its report kind."""
    if dei.get("dei:DocumentType"):
        return dei["dei:DocumentType"].upper()
    if header and header.get("CONFORMED SUBMISSION TYPE"):
        return header["CONFORMED SUBMISSION TYPE"][0].upper()
    cover = "\n".join(cover_lines(text))
    found = _FORM.search(cover)
    if found:
        return found.group(1).upper() + (found.group(2) or "").upper()
    kind = _REPORT_KIND.search(cover)
    return {"annual": "10-K", "quarterly": "10-Q"}[kind.group(1).lower()] if kind else None


@dataclass
class Period:
    label: str | None = None
    end: date | None = None


def period_from(dei: dict[str, str], text: str, form: str | None,
                header: dict | None = None) -> Period:
    """The period label ("FY2023" / "2024-Q1" / "2023-04-30") and its end date."""
    year = dei.get("dei:DocumentFiscalYearFocus", "").strip()
    focus = dei.get("dei:DocumentFiscalPeriodFocus", "").strip().upper()
    end = parse_date(dei.get("dei:DocumentPeriodEndDate", ""))
    if not end and header and header.get("CONFORMED PERIOD OF REPORT"):
        end = parse_date(header["CONFORMED PERIOD OF REPORT"][0])
    if not year and end and focus:
        year = str(fiscal_year(end, text) if focus == "FY" else end.year)
    if year and focus in ("Q1", "Q2", "Q3", "Q4"):
        return Period(f"{year}-{focus}", end)
    if year and (focus == "FY" or "10-K" in (form or "")):
        return Period(f"FY{year}", end)
    quarterly = "10-Q" in (form or "")
    found = _FY_END.search("\n".join(cover_lines(text)))
    if found:
        cover_end = parse_date(found.group(2))
        quarterly = quarterly or found.group(1).lower() in ("quarterly period", "quarter")
        end = cover_end or end
    if end is None:
        return Period()
    if quarterly:
        return Period(end.isoformat(), end)
    return Period(f"FY{fiscal_year(end, text)}", end)


def company_from(dei: dict[str, str], text: str, header: dict | None = None) -> str | None:
    """dei:EntityRegistrantName, the EDGAR header's name, else the cover (``cover``)."""
    if dei.get("dei:EntityRegistrantName"):
        return dei["dei:EntityRegistrantName"]
    if header and header.get("COMPANY CONFORMED NAME"):
        return header["COMPANY CONFORMED NAME"][0]
    return registrant_name(text)


def cik_from(dei: dict[str, str], text: str, header: dict | None = None) -> str:
    """dei:EntityCentralIndexKey, the EDGAR header's first (the filer's) CENTRAL INDEX KEY,
    else a CIK printed on the cover; 10 digits, or "" when none is found."""
    for value in (dei.get("dei:EntityCentralIndexKey", ""),
                  *((header or {}).get("CENTRAL INDEX KEY", [])[:1])):
        found = normal_cik(value)
        if found:
            return found
    return cover_cik(text)


@dataclass
class CoverFacts:
    """Everything read about who filed what, for ``DocumentMeta``."""

    company: str | None = None
    cik: str = ""
    form: str | None = None
    period: str | None = None
    period_end: str = ""
    ticker: str = ""
    former_names: list[str] = field(default_factory=list)


def read_facts(dei: dict[str, str], text: str, header: dict | None = None,
               form: str | None = None) -> CoverFacts:
    """Company, CIK, form, period, period end, ticker(s) and former names of a filing."""
    form = form or form_from(dei, text, header)
    period = period_from(dei, text, form, header)
    symbols = [s.strip() for s in dei.get("dei:TradingSymbol", "").split(",") if s.strip()]
    former = former_names(text) + (header or {}).get("FORMER CONFORMED NAME", [])
    return CoverFacts(
        company=company_from(dei, text, header),
        cik=cik_from(dei, text, header),
        form=form,
        period=period.label,
        period_end=period.end.isoformat() if period.end else "",
        ticker=", ".join(dict.fromkeys(symbols or tickers(text))),
        former_names=list(dict.fromkeys(former)),
    )


def safe_file_name(name: str) -> str:
    """Basename only (no folders, no traversal), odd characters replaced, 200 chars at most."""
    base = PurePosixPath(name.replace("\\", "/")).name
    base = _SAFE_NAME.sub("_", base).strip(" .")
    return base[:200] or "document"


__all__ = ["COVER_CHARS", "UNKNOWN", "CoverFacts", "cik_from", "company_from", "edgar_header",
           "fiscal_year", "form_from", "parse_date", "period_from", "read_facts",
           "safe_file_name"]
