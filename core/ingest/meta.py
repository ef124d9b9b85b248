"""Company, form type and period: explicit values, else iXBRL dei facts, else the cover page.

Periods read "FY2023" for annual reports and "2024-Q1" for quarters (fiscal year and
period from dei). From cover text alone a quarter's fiscal number is unknown, so a 10-Q
found that way gets its period-end date ("2023-04-30").
"""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import PurePosixPath

UNKNOWN = "unknown"
COVER_CHARS = 6000
_FORM = re.compile(r"\bform\s+(10-K(?:405|SB)?|10-Q(?:SB)?|20-F|40-F|8-K)(/A)?\b", re.I)
_FY_END = re.compile(
    r"for\s+the\s+(fiscal\s+year|quarterly\s+period|year)\s+ended\s+"
    r"([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})",
    re.I,
)
_REGISTRANT = re.compile(r"\(?\s*exact name of registrant as specified in its charter", re.I)
_DATE_FORMATS = ("%B %d, %Y", "%B %d %Y", "%b %d, %Y", "%b. %d, %Y", "%Y-%m-%d", "%m/%d/%Y")
_SAFE_NAME = re.compile(r"[^\w.\- ()]+")


def parse_date(value: str) -> date | None:
    """Parse "January 29, 2023", "2023-01-29" or "01/29/2023"; None otherwise."""
    value = " ".join(value.replace("Sept.", "Sep.").split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    return None


def form_from(dei: dict[str, str], text: str) -> str | None:
    """Form type from dei:DocumentType, else "FORM 10-K"-like words on the cover."""
    if dei.get("dei:DocumentType"):
        return dei["dei:DocumentType"].upper()
    found = _FORM.search(text[:COVER_CHARS])
    return (found.group(1).upper() + (found.group(2) or "").upper()) if found else None


def period_from(dei: dict[str, str], text: str, form: str | None) -> str | None:
    """ "FY2023" / "2024-Q1" from dei facts, else from "For the fiscal year ended ..."."""
    year = dei.get("dei:DocumentFiscalYearFocus", "").strip()
    focus = dei.get("dei:DocumentFiscalPeriodFocus", "").strip().upper()
    end = parse_date(dei.get("dei:DocumentPeriodEndDate", ""))
    if not year and end:
        year = str(end.year)
    if year and focus in ("Q1", "Q2", "Q3", "Q4"):
        return f"{year}-{focus}"
    if year and (focus == "FY" or "10-K" in (form or "")):
        return f"FY{year}"
    found = _FY_END.search(text[:COVER_CHARS])
    if found:
        ended = parse_date(found.group(2))
        if ended:
            if "quarter" in found.group(1).lower() or "10-Q" in (form or ""):
                return ended.isoformat()
            return f"FY{ended.year}"
    return None


def company_from(dei: dict[str, str], text: str) -> str | None:
    """dei:EntityRegistrantName, else the line above "(Exact name of registrant ...)"."""
    if dei.get("dei:EntityRegistrantName"):
        return dei["dei:EntityRegistrantName"]
    cover = text[:COVER_CHARS]
    found = _REGISTRANT.search(cover)
    if not found:
        return None
    before = [line.strip() for line in cover[: found.start()].splitlines() if line.strip()]
    if not before:
        return None
    name = before[-1].split(" | ")[0].strip()
    if 2 <= len(name) <= 100 and not re.search(r"commission file|^\d", name, re.I):
        return name
    return None


def safe_file_name(name: str) -> str:
    """Basename only (no folders, no traversal), odd characters replaced, 200 chars at most."""
    base = PurePosixPath(name.replace("\\", "/")).name
    base = _SAFE_NAME.sub("_", base).strip(" .")
    return base[:200] or "document"
