"""Standard 10-K and 10-Q Item titles (Regulation S-K / Form 10-Q), with historical variants.

Each item lists its current title first; older filings used other titles for some numbers
(Item 14 was "Exhibits..." before 2003, Item 4 "Submission of Matters..." before 2010), and
the variant sharing most words with the filing's own heading is chosen.
"""

from __future__ import annotations

import re

TEN_K: dict[str, tuple[str, ...]] = {
    "1": ("Business",),
    "1A": ("Risk Factors",),
    "1B": ("Unresolved Staff Comments",),
    "1C": ("Cybersecurity",),
    "2": ("Properties",),
    "3": ("Legal Proceedings",),
    "4": (
        "Mine Safety Disclosures",
        "Submission of Matters to a Vote of Security Holders",
        "[Reserved]",
    ),
    "5": (
        "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer "
        "Purchases of Equity Securities",
    ),
    "6": ("[Reserved]", "Selected Financial Data"),
    "7": ("Management's Discussion and Analysis of Financial Condition and Results of Operations",),
    "7A": ("Quantitative and Qualitative Disclosures About Market Risk",),
    "8": ("Financial Statements and Supplementary Data",),
    "9": ("Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",),
    "9A": ("Controls and Procedures",),
    "9B": ("Other Information",),
    "9C": ("Disclosure Regarding Foreign Jurisdictions that Prevent Inspections",),
    "10": (
        "Directors, Executive Officers and Corporate Governance",
        "Directors and Executive Officers of the Registrant",
    ),
    "11": ("Executive Compensation",),
    "12": (
        "Security Ownership of Certain Beneficial Owners and Management and Related "
        "Stockholder Matters",
    ),
    "13": (
        "Certain Relationships and Related Transactions, and Director Independence",
        "Certain Relationships and Related Transactions",
    ),
    "14": (
        "Principal Accountant Fees and Services",
        "Exhibits, Financial Statement Schedules and Reports on Form 8-K",
    ),
    "15": (
        "Exhibits and Financial Statement Schedules",
        "Exhibits, Financial Statement Schedules and Reports on Form 8-K",
    ),
    "16": ("Form 10-K Summary",),
}

TEN_Q: dict[tuple[str, str], tuple[str, ...]] = {
    ("I", "1"): ("Financial Statements",),
    ("I", "2"): (
        "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    ),
    ("I", "3"): ("Quantitative and Qualitative Disclosures About Market Risk",),
    ("I", "4"): ("Controls and Procedures",),
    ("II", "1"): ("Legal Proceedings",),
    ("II", "1A"): ("Risk Factors",),
    ("II", "2"): ("Unregistered Sales of Equity Securities and Use of Proceeds",),
    ("II", "3"): ("Defaults Upon Senior Securities",),
    ("II", "4"): (
        "Mine Safety Disclosures",
        "Submission of Matters to a Vote of Security Holders",
        "[Reserved]",
    ),
    ("II", "5"): ("Other Information",),
    ("II", "6"): ("Exhibits",),
}

TEN_K_ORDER: dict[str, int] = {item: i for i, item in enumerate(TEN_K)}
TEN_Q_ORDER: dict[tuple[str, str], int] = {key: i for i, key in enumerate(TEN_Q)}
_WORD = re.compile(r"[a-z]{4,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("’", "'")))


def pick_title(variants: tuple[str, ...], heading: str) -> str:
    """The variant sharing most words with the filing's heading (the first on a tie)."""
    found = _words(heading)
    if not found:
        return variants[0]
    return max(variants, key=lambda v: (len(_words(v) & found), -variants.index(v)))
