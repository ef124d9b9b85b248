"""The offline planner's choices for one clause: the tool (filing or web search, by cue
words and years later than the corpus's filings) and the section (by a keyword map,
constrained to sections that exist)."""

from __future__ import annotations

import re

from core.agent.deps import CorpusInfo, match_section

_PERIODIC = (r"(?:fiscal|annual|quarter|quarterly|10-?[kq]|filings?|reports?|years?|periods?|"
             r"results|statements?|balance)")
WEB_CUES = re.compile(
    rf"\b(news|recent(?:ly)?(?!\s+{_PERIODIC})|latest(?!\s+{_PERIODIC})|current(?:ly)?(?!\s+(?:"
    rf"{_PERIODIC}|ratio|assets?|liabilit\w*|portion|maturities|debt|tax\w*))|today|this year|"
    r"post-?\s?filing|after the filing|press|announce(?:d|ment|ments)?|headlines?|analysts? "
    r"say|market reaction|web)\b",
    re.IGNORECASE,
)
"""Words asking for post-filing sources; "latest fiscal year", "most recent 10-K", "current
ratio" name a filing's period or a line, not news."""
FILING_CUES = re.compile(r"\b(10-?k|10-?q|filing|annual report|risk factors|md&a|item \d)",
                         re.IGNORECASE)

# keyword -> Item, in priority order (first match wins).
SECTION_MAP: list[tuple[str, str]] = [
    (r"\brisks?\b|threats?|uncertaint", "Item 1A"),
    (r"market risk|interest rate|foreign (currency|exchange)|exchange rate", "Item 7A"),
    (r"cyber", "Item 1C"),
    (r"legal|litigation|lawsuit|proceeding", "Item 3"),
    (r"balance sheet|cash flows? statement|financial statements|total assets|notes to",
     "Item 8"),
    # Figures (revenue, income, expenses...) sit in MD&A tables, the statements (Item 8, or
    # Item 15 in some 10-Ks) and the notes: no section filter for them, only for discussion.
    (r"results of operations|liquidity|outlook|management'?s discussion|md&a|"
     r"drivers? of|why did", "Item 7"),
    (r"controls|internal control", "Item 9A"),
    (r"compensation|executive pay", "Item 11"),
    (r"propert(y|ies)|facilities|headquarters", "Item 2"),
    (r"dividend|repurchase|buyback|stock price", "Item 5"),
    (r"business|products?|strateg|customers?|competit|employees|segments?|markets?", "Item 1"),
]


def choose_tool(clause: str, corpus: CorpusInfo, web_ok: bool) -> tuple[str, str]:
    """``(tool, reason)`` from cue words and years later than the corpus's filings."""
    if not web_ok:
        return "filing_search", "no web search is available"
    cue = WEB_CUES.search(clause)
    if cue:
        return "web_search", f"'{cue.group(0)}' asks for post-filing sources"
    latest = corpus.latest_year()
    years = [int(y) for y in re.findall(r"\b(?:19|20)\d\d\b", clause)]
    later = [y for y in years if latest is not None and y > latest]
    if later and not FILING_CUES.search(clause):
        return "web_search", f"{later[0]} is after the latest filing in the corpus ({latest})"
    if not corpus.documents:
        return "web_search", "the corpus holds no filings"
    return "filing_search", "the filings should state this"


def choose_section(clause: str, titles: list[str]) -> tuple[str | None, str]:
    """The first keyword-mapped Item that exists in ``titles``."""
    for pattern, item in SECTION_MAP:
        if re.search(pattern, clause, re.IGNORECASE):
            title = match_section(item, titles)
            if title:
                return title, f"keyword '{re.search(pattern, clause, re.I).group(0)}' -> {item}"
    return None, "no section keyword matched a section of these filings"
