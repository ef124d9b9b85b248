"""The measures an analysis question names, read from its words.

``measures`` finds the catalogue's (and the question's own defined) measures in the text,
each named once as the catalogue names it ("operating margins" -> "operating margin");
``ratios`` joins two of them into one ("R&D as a share of revenue", "the ratio of R&D to
revenue"); ``span`` is the two periods a change is read between ("from 2017 to 2019", or the
year before for a margin, which moves in points); ``growth_words`` reads a test of change as
the measure's growth.
"""

from __future__ import annotations

import re

from core.analysis.model import AnalysisSpec
from core.analysis.subjects import Subject

GROWTH = re.compile(r"\b(?:growth|change|increase|decrease|cagr)\b", re.I)


def measures(text: str, names) -> list[tuple[str, str, int, int]]:
    """``(metric key, words, start, end)`` of the measures named in ``text``."""
    return [(key, _singular(key, " ".join(text[a:b].split())), a, b)
            for key, a, b in names.find(text)]


_RATIO_GAP = re.compile(r"^\s*(?P<share>(?:as\s+an?\s+|in\s+)?"
                        r"(?:%|percent(?:age)?|share|proportion|fraction)\s+of)?"
                        r"(?P<to>to|over|divided\s+by|relative\s+to)?\s*"
                        r"(?:(?:its|their|the|total)\s+)?$", re.I)
_RATIO_OF = re.compile(r"\b(?:ratio|proportion)\s+of\s+(?:(?:its|their|the)\s+)?$", re.I)


def ratios(plain: str, found: list, asks_yes_no: bool = False) -> list:
    """Two measures joined as one ("R&D as a share of revenue", "the ratio of R&D to
    revenue"): one measure, as the figure question reads it; in a yes / no question "X over
    its Y" compares the two ("Was its net margin over its operating margin?")."""
    out: list = []
    k = 0
    while k < len(found):
        a = found[k]
        b = found[k + 1] if k + 1 < len(found) else None
        m = _RATIO_GAP.match(plain[a[3]:b[2]]) if b else None
        over = m is not None and m.group("to") and m.group("to").lower() == "over"
        if b and m and (m.group("share") or m.group("to")) and not (over and asks_yes_no):
            share = m.group("share") or not _RATIO_OF.search(plain[max(0, a[2] - 30):a[2]])
            words = f"{a[1]} as a % of {b[1]}" if share else f"ratio of {a[1]} to {b[1]}"
            out.append((f"{a[0]}/{b[0]}", words, a[2], b[3]))
            k += 2
            continue
        out.append(a)
        k += 1
    return out


def names_measure(text: str) -> bool:
    """Whether ``text`` names a measure of the catalogue ("revenue grew faster": revenue)."""
    from core.metrics import find_metrics

    return bool(find_metrics(text))


def _singular(key: str, words: str) -> str:
    """A measure named in the plural ("operating margins") as the catalogue names it once."""
    from core.metrics import catalog

    metric = catalog().get(key)
    known = {n.lower() for n in metric.names} if metric else set()
    low = words.lower()
    if low not in known and low.endswith("s") and low[:-1] in known:
        return words[:-1]
    return words


def unique(found: list) -> list:
    """Measures named once each (the first mention), in order."""
    seen: set[str] = set()
    return [f for f in found if not (f[0] in seen or seen.add(f[0]))]


def span(spec: AnalysisSpec, several: bool, periods: list[str], subject: Subject,
          key: str) -> list[str]:
    """The two periods a change is read between, oldest first: the first and last named
    ("from 2017 to 2019"), or the year before and the year asked for a percentage (a margin
    grows in points, not by its own growth rate); [] when the change is one growth figure."""
    from core.metrics import catalog

    if spec.kind != "verdict" or spec.test not in ("grew", "declined") or several:
        return []
    years = sorted(p for p in periods if _FY_LABEL.fullmatch(p))
    if len(years) >= 2 and years[0] != years[-1]:
        return [years[0], years[-1]]
    metric = catalog().get(key)
    end = years[-1] if years else subject.period
    if metric is None or metric.unit != "percent" or not _FY_LABEL.fullmatch(end or ""):
        return []
    return [f"FY{int(end[2:]) - 1}", end]


_FY_LABEL = re.compile(r"FY\d{4}")


def with_growth(words: str) -> str:
    """The measure's growth ("revenue" -> "revenue growth"; a change stays as named)."""
    return words if GROWTH.search(words) else f"{words} growth"


def growth_words(words: str, spec: AnalysisSpec) -> str:
    """A test of change, or a comparison of growth, reads the measure's growth."""
    if spec.test in ("grew", "declined") or spec.name.endswith(" growth"):
        return with_growth(words)
    return words
