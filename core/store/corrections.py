"""Checks for metadata a user corrects by hand (company, form, period, ticker, CIK).

Values are normalised ("10-k" -> "10-K", "fy2023" -> "FY2023", " aapl, msft" -> "AAPL, MSFT")
and refused with a message saying what is expected. The CLI names the form "form"; both
"form" and "form_type" are accepted.
"""

from __future__ import annotations

import re

from core.foundation.errors import StoreError
from core.ingest.cover import normal_cik

EDITABLE = ("company", "form_type", "period", "ticker", "cik")
ALIASES = {"form": "form_type", "tickers": "ticker"}
_FORM = re.compile(r"^[0-9A-Z]{1,5}(?:-[0-9A-Z]{1,5})?(?:/A)?$")  # 10-K, 10-Q/A, 20-F, 10-KSB
_PERIOD = re.compile(r"^(?:FY\d{4}|\d{4}-Q[1-4]|\d{4}-\d{2}-\d{2})$")
_TICKER = re.compile(r"^[A-Z]{1,5}(?:[.-][A-Z]{1,2})?$")
MAX_NAME = 200
MARKUP = "<>[]{}`|\\"
"""Characters of HTML or Markdown a company's name never needs: a name with them would be
drawn as markup (or a link) and could not be matched as the words of a question."""


def _company(value: str) -> str:
    value = " ".join(value.split())
    if not value or len(value) > MAX_NAME or not any(c.isalpha() for c in value):
        raise StoreError(
            f"Company must be a name of 1-{MAX_NAME} characters with letters (got {value!r})."
        )
    marks = [c if c.isprintable() else repr(c)
             for c in sorted({c for c in value if c in MARKUP or not c.isprintable()})]
    if marks:
        raise StoreError(
            f"Company must be plain text, as the filing prints it: remove {' '.join(marks)} "
            f"(got {value!r})."
        )
    return value


def _form(value: str) -> str:
    value = value.strip().upper().removeprefix("FORM ").strip()
    if not _FORM.match(value):
        raise StoreError(
            f"Form must be a filing type such as 10-K, 10-Q or 10-K/A (got {value!r})."
        )
    return value


def _period(value: str) -> str:
    value = value.strip().upper()
    if not _PERIOD.match(value):
        raise StoreError(
            f"Period must read FY2023 (a fiscal year), 2024-Q1 (a quarter) or 2023-04-30 "
            f"(a period-end date) (got {value!r})."
        )
    return value


def _ticker(value: str) -> str:
    symbols = [s.strip().upper() for s in value.replace(";", ",").split(",") if s.strip()]
    bad = [s for s in symbols if not _TICKER.match(s)]
    if bad:
        raise StoreError(f"Ticker must be trading symbols such as AAPL or BRK.A, separated by "
                         f"commas (got {', '.join(bad)!r}).")
    return ", ".join(dict.fromkeys(symbols))


def _cik(value: str) -> str:
    cik = normal_cik(value.strip().upper().removeprefix("CIK").strip())
    if not cik:
        raise StoreError(f"CIK must be the SEC's Central Index Key, up to 10 digits such as "
                         f"1045810 or 0001045810 (got {value!r}).")
    return cik


_CHECKS = {"company": _company, "form_type": _form, "period": _period, "ticker": _ticker,
           "cik": _cik}


def validate(fields: dict[str, str]) -> dict[str, str]:
    """Normalised values for ``fields`` (names as in DocumentMeta, or their aliases)."""
    if not fields:
        raise StoreError(f"Nothing to change: give one of {', '.join(EDITABLE)}.")
    out: dict[str, str] = {}
    for name, value in fields.items():
        key = ALIASES.get(name, name)
        if key not in _CHECKS:
            raise StoreError(f"'{name}' cannot be corrected; choose from {', '.join(EDITABLE)} "
                             "(or 'form').")
        if not isinstance(value, str):
            raise StoreError(f"{key} must be text (got {type(value).__name__}).")
        out[key] = _CHECKS[key](value)
    return out
