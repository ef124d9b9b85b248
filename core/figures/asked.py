"""What shape of answer a figure question asks for: unit, rounding, aggregate, periods.

Read from the question's words, whatever the metric:

* unit: "in USD millions", "Answer in USD billions", "(in $ thousands)", "in units of
  percents", "(as a %)", "as a percentage";
* rounding: "round to one decimal place", "Round your answer to two decimal places",
  "to the nearest whole number";
* aggregate: "3 year average", "average ... from FY2016 to FY2018", "year-over-year change
  in", "growth", "CAGR"; "how did it change from fiscal 2022" is a comparison (the value
  asked, with the earlier one beside it);
* periods, oldest first: "FY2018", "fiscal 2023", "FY2015 - FY2017" (a range: every year of
  it for an average), "Q2 of FY2024" (-> "FY2024-Q2").
"""

from __future__ import annotations

import re

from core.figures.formula import BinOp, Call, Node, Num, bind
from core.retrieval.scope import Period, question_periods

_NUMBER_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                 "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a": 1, "single": 1}
_SCALE = {"thousand": "USD thousands", "thousands": "USD thousands", "k": "USD thousands",
          "million": "USD millions", "millions": "USD millions", "mn": "USD millions",
          "mm": "USD millions", "m": "USD millions", "billion": "USD billions",
          "billions": "USD billions", "bn": "USD billions", "b": "USD billions"}
_USD_SCALE = re.compile(
    r"\b(?:in|into)\s+(?:units\s+of\s+)?(?:usd|us\s*\$|u\.?s\.?\s*dollars?|\$|dollars?)?\s*"
    r"(thousands?|millions?|billions?|mn|bn|mm)\b(?:\s+of\s+(?:us\s+)?dollars)?"
    r"|(?:usd|us\$|\$)\s*(thousands?|millions?|billions?|mn|bn|mm|m|b|k)\b", re.I)
_PERCENT = re.compile(
    r"\bin\s+(?:units\s+of\s+)?(?:percents?|percentages?|%)|\(\s*(?:as\s+an?\s+)?(?:%|percent"
    r"(?:age)?)\s*\)|\bas\s+an?\s+(?:%|percent(?:age)?)(?!\s*of)|\bin\s+%|\bpercent(?:age)?\s+"
    r"(?:change|growth|increase|decrease)|%\s+(?:change|growth)|\bby\s+what\s+(?:%|percent"
    r"(?:age)?)|\bwhat\s+(?:%|percent(?:age)?)\s+(?:change|growth|increase|decrease|did)\b",
    re.I)
_DECIMALS = re.compile(r"\bround\w*\s+(?:\w+\s+){0,4}?to\s+(?:the\s+)?(\w+)\s+decimals?"
                       r"(?:\s+places?|\s+points?)?", re.I)
_NEAREST = re.compile(r"\bto\s+the\s+nearest\s+(whole\s+number|integer|dollar|tenth|"
                      r"hundredth|thousandth)", re.I)
_CAGR = re.compile(r"\bcagr\b|\bcompound(?:ed)?\s+annual(?:\s+growth)?(?:\s+rate)?", re.I)
_AVERAGE = re.compile(r"\b(?:average|avg|mean)\b", re.I)
_CHANGE = re.compile(r"\b(?:change[sd]?|growth|grow|grew|increase[sd]?|decrease[sd]?|"
                     r"decline[sd]?|rise|rose|fell|fall)\b", re.I)
_RELATIVE_CHANGE = re.compile(r"\b(?:growth|grow|grew|rate)\b|%|\bpercent", re.I)
# Two periods joined after a change verb, the periods themselves blanked out of the
# asked sentence: "grew from [FY2024] to [FY2025]", "fell between [2014] and [2015]".
_BETWEEN = re.compile(r"\b(?:from|between)\s+(?:the\s+)?(?:to|and|through|thru|until|"
                      r"vs\.?|versus|-|\u2013)(?:\s|$|[,.?])", re.I)
_OVER_PERIOD = re.compile(r"\b(?:year[\s-]+(?:over|on)[\s-]+year|yoy|y/y|sequential(?:ly)?|"
                          r"quarter[\s-]+(?:over|on)[\s-]+quarter|(?:from|versus|vs\.?|"
                          r"compared\s+(?:to|with))\s+(?:the\s+)?(?:prior|previous|preceding|"
                          r"same)\s+(?:fiscal\s+)?(?:year|quarter|period))\b", re.I)
_SECOND_CLAUSE = re.compile(r"(?:[,;]|\band\b|\bor\b)\s*(?:how|what|by\s+how|did|has|was|"
                            r"is|were)\b|\b(?:compared?|versus|vs\.?)\b", re.I)
_OVER_SERIES = re.compile(r"\bover\s+time\b|\bacross\b|\b(?:these|the\s+reported|recent|"
                          r"previous)\s+(?:quarters|periods|years|ones)\b|\btrend", re.I)
_SEQUENTIAL = re.compile(r"\b(?:sequential(?:ly)?|quarter[\s-]+(?:over|on|to)[\s-]+quarter|"
                         r"q/q|qoq|(?:prior|previous|preceding)\s+quarter)\b", re.I)
_YEARS = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)[\s-]+years?\b",
                    re.I)
_RANGE = re.compile(r"(?:from|between)?\s*(?:FY\s*|fiscal\s+(?:year\s+)?)?(\d{4})\s*(?:-|–|to|"
                    r"through|thru|and|until)\s*(?:FY\s*|fiscal\s+(?:year\s+)?)?(\d{4})", re.I)


def unit_asked(question: str) -> str | None:
    """'USD millions', 'USD billions', 'USD thousands', 'percent' or None."""
    m = _USD_SCALE.search(question)
    if m:
        word = (m.group(1) or m.group(2) or "").lower()
        return _SCALE.get(word, _SCALE.get(word.rstrip("s")))
    if _PERCENT.search(question):
        return "percent"
    if re.search(r"\bin\s+days\b", question, re.I):
        return "days"
    return None


def decimals_asked(question: str) -> int | None:
    """Decimal places asked ('round to one decimal place' -> 1), or None."""
    m = _DECIMALS.search(question)
    if m:
        word = m.group(1).lower()
        if word.isdigit():
            return int(word)
        if word in _NUMBER_WORDS:
            return _NUMBER_WORDS[word]
    m = _NEAREST.search(question)
    if m:
        word = m.group(1).lower()
        return {"tenth": 1, "hundredth": 2, "thousandth": 3}.get(word, 0)
    return None


def years_span(question: str) -> int | None:
    """N of "3 year average" / "three-year CAGR", or None."""
    m = _YEARS.search(question)
    if not m:
        return None
    word = m.group(1).lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word)


def aggregate_asked(asked: str, first: int, last: int, percent: bool,
                    amount: bool = True, money_asked: bool = False) -> str:
    """'value', 'average', 'change', 'pct_change', 'cagr' or 'compare' for the asked
    sentence (periods blanked), the metric named at ``asked[first:last]``. A change asked
    in percent is relative for an amount (revenue) and a difference for a ratio or a
    margin (its change in percentage points) unless the words say growth or a percent
    change; a change asked in USD (``money_asked``) is the difference. A change verb after
    the metric is a change between two periods joined by "from ... to" / "between ...
    and" ("How much did revenue grow from FY2024 to FY2025?"), a comparison otherwise
    ("What was revenue in 2023 and how did it change from 2022?")."""
    if _CAGR.search(asked):
        return "cagr"
    before, after = asked[:first], asked[last:]
    if _AVERAGE.search(before):
        return "average"
    change_before = _CHANGE.search(before[-40:]) if before else None
    change_after = re.match(r"\s*(?:\w+\s+)?(?:growth|change|increase|decrease)\b", after,
                            re.I)
    verb_after = _CHANGE.search(after)
    rest = " ".join(after[verb_after.start():].split()) if verb_after else ""
    between = bool(verb_after) and (_BETWEEN.search(rest) or _OVER_PERIOD.search(rest))
    # "How much did inventories rise in 2023?": the metric's own verb; "What was revenue
    # in 2023 and how did it change from 2022?": a second clause, a comparison.
    own_verb = bool(verb_after) and not _SECOND_CLAUSE.search(after[:verb_after.start()]) \
        and not _OVER_SERIES.search(asked)
    if change_before or change_after or between or own_verb:
        words = before[-40:] + " " + (change_after.group(0) if change_after else "")
        # A verb between two periods ("grew from FY2024 to FY2025") asks how much in
        # relative terms unless the question asks dollars.
        relative = _RELATIVE_CHANGE.search(words) is not None or (percent and amount) or \
            (between and amount and not verb_after.group(0).lower().startswith("change"))
        return "pct_change" if relative and not (money_asked and amount) else "change"
    if verb_after or re.search(r"\b(?:compared?|versus|vs\.?)\b", after, re.I):
        # Compared in percent, an amount's comparison is its percent change.
        return "pct_change" if percent and amount and not money_asked else "compare"
    return "value"


def period_label(p: Period) -> str:
    return f"FY{p.year}-Q{p.quarter}" if p.quarter else f"FY{p.year}"


def periods_asked(text: str) -> list[str]:
    """The periods ``text`` names, oldest first ('FY2018', 'FY2024-Q2')."""
    found, _ = question_periods(text)
    labels = {period_label(p) for p in found}
    return sorted(labels, key=lambda s: (int(s[2:6]), s))


def expand_range(text: str, periods: list[str], aggregate: str, years: int | None
                 ) -> list[str]:
    """Every fiscal year of a range for an average ("FY2015 - FY2017" -> 2015, 2016,
    2017); a single year with "3 year average" reaches back; others keep their ends."""
    annual = [p for p in periods if "-" not in p]
    if aggregate == "average" and annual:
        lo, hi = int(annual[0][2:6]), int(annual[-1][2:6])
        if len(annual) == 1 and years:
            lo = hi - years + 1
        if _RANGE.search(text) or years or len(annual) >= 2:
            return [f"FY{y}" for y in range(lo, hi + 1)]
    if aggregate in {"change", "pct_change", "cagr", "compare"} and len(periods) >= 2:
        return [periods[0], periods[-1]]
    quarters = [p for p in periods if "-Q" in p]
    if aggregate in {"change", "pct_change"} and len(periods) == 1 and quarters:
        # A quarter's change: year over year (the same quarter a year before) unless the
        # words say sequential.
        y, q = int(quarters[0][2:6]), int(quarters[0][-1])
        if _SEQUENTIAL.search(text):
            y, q = (y - 1, 4) if q == 1 else (y, q - 1)
        else:
            y -= 1
        return [f"FY{y}-Q{q}", quarters[0]]
    if aggregate in {"change", "pct_change", "compare"} and len(annual) == 1:
        y = int(annual[0][2:6])
        return [f"FY{y - 1}", f"FY{y}"]
    if aggregate == "cagr" and len(annual) == 1 and years:
        y = int(annual[0][2:6])
        return [f"FY{y - years}", f"FY{y}"]
    return periods


def assemble(node: Node, aggregate: str, periods: list[str]) -> Node:
    """The asked formula over the periods: one value, an average, a change, a CAGR."""
    if aggregate == "average" and len(periods) >= 2:
        return Call("avg", tuple(bind(node, p) for p in periods))
    if aggregate in {"change", "pct_change", "cagr"} and len(periods) >= 2:
        a, b = bind(node, periods[0]), bind(node, periods[-1])
        if aggregate == "change":
            return BinOp("-", b, a)
        if aggregate == "pct_change":
            return BinOp("/", BinOp("-", b, a), a)
        years = int(periods[-1][2:6]) - int(periods[0][2:6])
        return BinOp("-", BinOp("^", BinOp("/", b, a), BinOp("/", Num(1), Num(years))),
                     Num(1))
    return bind(node, periods[-1])
