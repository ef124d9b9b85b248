"""Questions that name a metric but do not ask for its reported figure (nothing silently
wrong: a wrong reading becomes a wrong figure leading the answer).

Each check reads the asked sentence (company names, periods and asides blanked, so
offsets hold) and says why no single reported figure answers it, or None:

* a category is asked: "Which segment had the highest revenue?", "For X, which region
  ...", "Who ...", "What kind of debt ..." (the answer is a name, not the total);
* a figure that is not a reported GAAP fact: adjusted, non-GAAP, guidance, forecast,
  expected, outlook, projected, pro forma, constant currency, organic, "excluding the
  impact of ..." (a name the question defines itself, "Define adjusted EBITDA as ...", is
  computable and passes);
* a measure the catalogue does not know: "wages expense as a percent of net sales" names
  only its denominator; "revenue per employee", "inventory days" add a head noun to a
  known metric; the figure is not the known metric's;
* a count of times asked of an amount ("how many times did X sell its inventory"): a
  turnover, not the balance;
* a share of one period inside another ("what percent of FY2023 repurchases occurred in
  Q4"): not the quarter's figure; a span the periods read cannot say (a half year, nine
  months, trailing twelve months, year to date, "three months ended <date>" when no
  quarter was read): not the fiscal year's figure;
* two growths compared ("did expenses rise faster than revenue"): not one figure.
"""

from __future__ import annotations

import re

_CATEGORY_NOUNS = (r"(?:kinds?|types?|sorts?|categor(?:y|ies)|regions?|segments?|geograph\w*|"
                   r"products?|business(?:es)?|divisions?|countr(?:y|ies)|customers?|"
                   r"compan(?:y|ies)|brands?|markets?|sources?|lines?|units?|subsidiar\w+|"
                   r"programs?|components?|items?|events?|factors?)")
_CATEGORY = re.compile(
    rf"^(?:(?:(?!\b(?:what|how|which|who)\b)[^?]){{0,90}}?,\s*)?(?:and\s+)?"
    rf"(?:(?:which|who|whom|whose)\b|what\s+(?:(?!(?:was|were|is|are|did|does|do|has|have|"
    rf"had|the)\b)\w+\s+)?{_CATEGORY_NOUNS}\b)", re.I)
_NOT_REPORTED = re.compile(
    r"(?<![\w-])(?:adjusted|non[\s-]?gaap|guidance|guided|forecast\w*|outlook|expected|"
    r"expects?|projected|projections?|pro[\s-]forma|constant[\s-]currency|organic|"
    r"(?:excluding|exclude[sd]?|ex)\s+(?:the\s+)?(?:impacts?|effects?)\s+of|"
    r"real\s+(?:change|growth))(?![\w-])", re.I)
_SHARE_OF = re.compile(
    r"(?:(?:as\s+an?\s+)?(?:%|\bpercent(?:age)?|\bshare|\bproportion|\bfraction)\s+of|"
    r"\bdivided\s+by|\brelative\s+to)\s+(?:the\s+|its\s+|their\s+)?$", re.I)
# The share word right before the metric (its "of" may be blanked with a period after it:
# "what percentage of [fiscal 2023] revenue").
_SHARE_BEFORE = re.compile(r"(?:%|\bpercent(?:age)?|\bshare|\bproportion|\bportion|\bfraction)"
                           r"(?:\s+of)?"
                           r"\s+(?:the\s+|its\s+|their\s+|total\s+)?$", re.I)
_FRAME = frozenset("""what how which did does do has have is was were in for from by the
    total net our its their please calculate compute determine find according based and
    of a an to at as on with company company's firm firm's much many this that be been
    reported annual quarterly consolidated overall fiscal year latest last most recent
    current""".split())
_HEAD_AFTER = re.compile(r"\s*(?:turnover|turns|per\s+\w+|multiples?|yield|"
                         r"intensity|days|backlog|headcount)\b", re.I)
# A share asked after a single metric whose denominator was not read with it ("X as a
# share of <something unmapped>"): no figure rather than X itself.
_SHARE_AFTER = re.compile(r"\s*(?:[\w-]+\s+){0,2}?(?:(?:as\s+an?\s+)?(?:%|percent(?:age)?|"
                          r"share|proportion|fraction)\s+of|relative\s+to|divided\s+by)\b",
                          re.I)
_TWO_COMPARED = re.compile(r"\b(?:faster|slower|quicker)\s+than\b|\bout(?:pac|grow|grew|perform)"
                           r"\w*", re.I)
_QUARTER_SPAN = re.compile(r"\b(?:three|3)[\s-]+months?\b|\b(?:thirteen|13)[\s-]+weeks?\b",
                           re.I)
# Spans the periods read may hold ("FY2024-H1", "FY2024-9M", from core.figures.dated),
# and those they never do.
_HALF = re.compile(r"\b(?:first|1st)\s+half\b|\bH1\b|\b(?:six|6)[\s-]+months?\b|"
                   r"\b(?:twenty[\s-]six|26)[\s-]+weeks?\b", re.I)
_NINE = re.compile(r"\b(?:nine|9)[\s-]+months?\b|\b(?:thirty[\s-]nine|39)[\s-]+weeks?\b", re.I)
_TO_DATE = re.compile(r"\byear[\s-]+to[\s-]+date\b|\bYTD\b", re.I)
_NEVER_READ = re.compile(r"\b(?:second|2nd)\s+half\b|\bH2\b|\bhalf[\s-]+year|\btrailing\b|"
                         r"\bTTM\b|\bLTM\b", re.I)
_TIMES = re.compile(r"\bhow\s+many\s+times\b", re.I)
_PART_OF_YEAR = re.compile(r"\b(?:Q[1-4]|H[12]|(?:first|second|third|fourth|final|last)\s+"
                           r"(?:fiscal\s+)?(?:quarter|half)|month\s+of)\b", re.I)
_PERIOD_SHARE = re.compile(r"(?:%|\bpercent(?:age)?|\bshare|\bportion|\bproportion|"
                           r"\bfraction|\bhow\s+much)\s+of\b", re.I)


def asks_category(asked: str) -> bool:
    """Whether the asked sentence asks which one (a name, a category), not a figure."""
    return _CATEGORY.match(asked.strip()) is not None


def not_reported(stripped: str) -> str | None:
    """The word saying the figure asked is not a reported GAAP fact ('adjusted',
    'guidance', ...), or None. ``stripped``: the asked sentence with names the question
    defines itself blanked."""
    m = _NOT_REPORTED.search(stripped)
    return " ".join(m.group(0).split()).lower() if m else None


def unmapped_measure(stripped: str, start: int, end: int, joined: bool) -> str | None:
    """Words of the figure phrase the catalogue cannot map, or None: the numerator of
    "X as a percent of <metric>" when X is no metric, or a head noun after a single
    metric ("<metric> per employee", "<metric> turnover")."""
    before = stripped[:start]
    m = _SHARE_OF.search(before)
    if m:
        left = re.sub(r"[^\w&'\s-]", " ", before[:m.start()]).split()[-4:]
        content = [w for w in left if w.lower() not in _FRAME and
                   not re.search(r"\d", w) and not re.fullmatch(r"[QH][1-4]", w, re.I)]
        if content:
            return " ".join(content)
    if not joined:
        after = _HEAD_AFTER.match(stripped[end:]) or _SHARE_AFTER.match(stripped[end:])
        if after:
            return " ".join(f"{stripped[start:end]} {after.group(0)}".split())
    return None


def share_numerator(stripped: str, start: int, end: int, find) -> str | None:
    """For "what percentage of <metric> was spent on <metric2>": the numerator's key
    (metric2); '' when the share of the metric names no numerator the catalogue knows
    (no figure: never the metric itself); None when the metric is not asked as a whole
    whose share is wanted. ``find``: ``Names.find``."""
    if not _SHARE_BEFORE.search(stripped[:start]) or \
            unmapped_measure(stripped, start, end, True):
        return None
    whole = [hit for hit in find(stripped[start:end])]
    after = [hit for hit in find(stripped[end:])
             if not whole or hit[0] != whole[0][0]]  # never the metric's share of itself
    return after[0][0] if after else ""


def times_of_an_amount(asked: str, natural: str) -> bool:
    """'How many times ...' asked of an amount: a turnover, never the amount itself."""
    return _TIMES.search(asked) is not None and natural.startswith("USD")


def two_compared(asked: str) -> bool:
    """Two metrics' changes compared ("rise faster than revenue", "outpaced sales")."""
    return _TWO_COMPARED.search(asked) is not None


def span_not_read(asked: str, periods: list[str]) -> bool:
    """A span other than a fiscal year or a quarter, which the periods read miss."""
    if periods and _QUARTER_SPAN.search(asked) and not any("-Q" in p for p in periods):
        return True
    if _NEVER_READ.search(asked):
        return True
    for rx, part in ((_HALF, "-H1"), (_NINE, "-9M")):
        if rx.search(asked) and not any(p.endswith(part) for p in periods):
            return True
    return _TO_DATE.search(asked) is not None and \
        not any(p.endswith(("-H1", "-9M")) for p in periods)


def share_of_period(asked: str, periods: list[str]) -> bool:
    """A share of a part of a year inside the year ("what percent of FY2023 repurchases
    occurred in Q4"): two nested periods and share-of words."""
    if not _PERIOD_SHARE.search(asked):
        return False
    years = {p[:6] for p in periods if "-" not in p}
    parts = {p[:6] for p in periods if "-" in p}
    return bool(years & parts) or (bool(years) and _PART_OF_YEAR.search(asked) is not None)
