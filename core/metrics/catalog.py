"""The metric catalogue (``catalog.toml`` beside this module), loaded once.

A ``Metric`` is either looked up (a line printed in a statement: its XBRL concepts and
printed line-item patterns) or derived (a formula over other metrics, in the grammar of
``core.figures.formula``). Three questions are answered here, for ingest and for queries:

* ``metric_for_concept("us-gaap:Revenues")`` -> ``"revenue"``;
* ``metric_for_label("Purchases of property, plant and equipment (PP&E)", "cash_flow")``
  -> ``"capex"`` (the printed line, normalised, against each metric's patterns; a balance
  metric is never read from a flow statement: "Inventories" on the cash-flow statement is
  a change, not the balance);
* ``find_metrics(text)``: the metric names a question uses, longest first.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

CATALOG = Path(__file__).with_name("catalog.toml")

# Parenthesised sign alternatives and footnote marks dropped from printed labels.
_SIGN_ALTERNATIVE = re.compile(
    r"\((?:net )?(?:loss|losses|deficit|benefit|income|gain|gains|expense|expenses|"
    r"used in|used for|used by|provided by|provided|used|decrease|increase|"
    r"benefit\s*\)?\s*\(?expense|[a-z]|\d{1,2}|\*+)\)")
# A note reference printed in the line item: "Long-term debt (Note 7)", "(Notes 1 and 4)".
_NOTE_REF = re.compile(r"\(\s*(?:see\s+)?notes?\s+[0-9a-z]{1,3}(?:\s*(?:,|and|&)\s*[0-9a-z]{1,3})*"
                       r"\s*\)")
_APOSTROPHE = re.compile(r"['\u2019\u2018`]")
_PUNCT = re.compile(r"[^a-z0-9&%]+")
_MOJIBAKE = ("\u00e2\u20ac\u201d", "\u00e2\u20ac\u201c", "\u00e2\u20ac\u2122", "\u00e2")


def normalise_label(label: str) -> str:
    """A printed line item reduced for matching: lower case, "(loss)"-style alternatives
    and footnote marks removed, punctuation and dashes as spaces, spaces collapsed.

    "Property, plant and equipment — net" -> "property plant and equipment net";
    "Net cash provided by (used in) operating activities" ->
    "net cash provided by operating activities".
    """
    text = label.lower()
    for bad in _MOJIBAKE:
        text = text.replace(bad, " ")
    text = _NOTE_REF.sub(" ", text)
    text = _SIGN_ALTERNATIVE.sub(" ", text)
    text = _APOSTROPHE.sub("", text)
    return " ".join(_PUNCT.sub(" ", text).split())


@lru_cache(maxsize=1 << 16)
def _label_forms(label: str) -> tuple[str, ...]:
    """The normalised forms a label is matched in: itself and, for "Balance sheet: Total
    assets" / "Operating expenses: Cost of sales", the line under the heading carried
    into the label. Empty forms are dropped."""
    forms = [normalise_label(label)]
    if ":" in label:
        forms.append(normalise_label(label.rsplit(":", 1)[1]))
    return tuple(f for f in forms if f)


@dataclass(frozen=True)
class Metric:
    """One catalogue entry (see the field notes at the top of ``catalog.toml``)."""

    key: str
    names: tuple[str, ...]
    label: str
    concepts: tuple[str, ...] = ()
    line_items: tuple[str, ...] = ()
    statement: str | None = None
    kind: Literal["flow", "instant"] | None = None
    unit: str = "USD"
    sign: Literal["as_printed", "positive"] = "as_printed"
    formula: str | None = None
    fallback: str | None = None
    decimals: int | None = None

    @property
    def derived(self) -> bool:
        """True for a metric computed by a formula rather than looked up."""
        return self.formula is not None


@dataclass(frozen=True)
class MetricMatch:
    """A metric named in a text: its key, the words used and where."""

    key: str
    name: str
    start: int
    end: int


@dataclass(frozen=True)
class SearchGroup:
    """A retrieval glossary entry: names -> line items and statements to search."""

    metrics: tuple[str, ...]
    names: tuple[str, ...]
    line_items: tuple[str, ...]
    statements: tuple[str, ...]


class Catalog:
    """The loaded catalogue with its indexes (build with ``catalog()``)."""

    def __init__(self, data: dict):
        self.statement_names: dict[str, tuple[str, ...]] = {
            k: tuple(v) for k, v in data.get("statement_names", {}).items()}
        self.metrics: dict[str, Metric] = {}
        for row in data.get("metric", []):
            names = tuple(row["names"])
            metric = Metric(
                key=row["key"], names=names, label=row.get("label", names[0]),
                concepts=tuple(row.get("concepts", [])),
                line_items=tuple(row.get("line_items", [])),
                statement=row.get("statement"), kind=row.get("kind"),
                unit=row.get("unit", "USD"), sign=row.get("sign", "as_printed"),
                formula=row.get("formula"), fallback=row.get("fallback"),
                decimals=row.get("decimals"))
            if metric.key in self.metrics:
                raise ValueError(f"catalog.toml: metric {metric.key!r} is defined twice")
            self.metrics[metric.key] = metric
        self.search_groups = [
            SearchGroup(tuple(g.get("metrics", [])), tuple(g["names"]),
                        tuple(g.get("line_items", [])), tuple(g.get("statements", [])))
            for g in data.get("search", [])]
        self._patterns = {m.key: [re.compile(p) for p in m.line_items]
                          for m in self.metrics.values()}
        # Anchored patterns only: the first alternative matching at the start is then the
        # first pattern matching at all (unanchored ones are tried one by one).
        self._joined = {k: re.compile("|".join(f"(?P<r{i}>{rx.pattern})"
                                               for i, rx in enumerate(v)))
                        for k, v in self._patterns.items()
                        if v and all(rx.pattern.startswith("^") for rx in v)}
        self._for_label = lru_cache(maxsize=1 << 16)(self._metrics_for_label)
        self._allowed_keys = lru_cache(maxsize=256)(self._allowed_metrics)
        self._concepts: dict[str, list[tuple[str, int]]] = {}
        for m in self.metrics.values():
            for rank, concept in enumerate(m.concepts):
                self._concepts.setdefault(concept.lower(), []).append((m.key, rank))
        self._names = sorted(((_name_key(n), m.key) for m in self.metrics.values()
                              for n in m.names), key=lambda x: -len(x[0]))
        self._name_rx = [(re.compile(rf"(?<![a-z0-9&]){_name_rx(n)}(?![a-z0-9&])"), n, k)
                         for n, k in self._names]

    def get(self, key: str) -> Metric | None:
        return self.metrics.get(key)

    # --- concepts and labels -------------------------------------------------------
    def concept_rank(self, key: str, concept: str | None) -> int | None:
        """Priority (0 best) of ``concept`` among metric ``key``'s concepts, or None."""
        if not concept:
            return None
        for k, rank in self._concepts.get(concept.lower(), []):
            if k == key:
                return rank
        return None

    def label_rank(self, key: str, label: str, statement: str | None = None,
                   unit: str | None = None) -> int | None:
        """Priority (0 best) of the first line-item pattern of ``key`` matching ``label``,
        or None (no match, or the statement or unit cannot carry this metric)."""
        metric = self.metrics.get(key)
        if metric is None or not allowed(metric, statement, unit):
            return None
        return self._rank(key, _label_forms(label))

    def _rank(self, key: str, forms: tuple[str, ...]) -> int | None:
        """The first of ``key``'s patterns matching one of ``forms``: one search per form
        over the patterns joined as alternatives (tried in order, so the first one that
        matches is the best ranked; each pattern is anchored, ``^...``, so a search is a
        match at the start), then that form's matching pattern by name."""
        joined = self._joined.get(key)
        if joined is None:
            return next((rank for rank, rx in enumerate(self._patterns[key])
                         if any(rx.search(form) for form in forms)), None)
        best = None
        for form in forms:
            m = joined.search(form)
            if m:
                rank = int(next(n for n, v in m.groupdict().items()
                                if n.startswith("r") and v is not None)[1:])
                best = rank if best is None else min(best, rank)
        return best

    def metrics_for_concept(self, concept: str | None) -> list[str]:
        return [k for k, _ in self._concepts.get((concept or "").lower(), [])]

    def metrics_for_label(self, label: str, statement: str | None = None,
                          unit: str | None = None) -> list[str]:
        """Every looked-up metric whose patterns match ``label``, best match first."""
        return list(self._for_label(label, statement, unit))

    def _metrics_for_label(self, label: str, statement: str | None,
                           unit: str | None) -> tuple[str, ...]:
        # The label is normalised once for every metric (ingest calls this for every
        # fact; results are cached per label, statement and unit in ``_for_label``).
        forms = _label_forms(label)
        found = [(rank, i, key) for i, key in self._allowed_keys(statement, unit)
                 if (rank := self._rank(key, forms)) is not None]
        return tuple(key for _, _, key in sorted(found))

    def _allowed_metrics(self, statement: str | None,
                         unit: str | None) -> tuple[tuple[int, str], ...]:
        """``(catalogue order, key)`` of the metrics a line of ``statement`` in ``unit``
        may report (cached in ``_allowed_keys``)."""
        return tuple((i, key) for i, (key, metric) in enumerate(self.metrics.items())
                     if allowed(metric, statement, unit))

    # --- names in text -------------------------------------------------------------
    def find_metrics(self, text: str) -> list[MetricMatch]:
        """Metric names in ``text``, longest first where they overlap, in text order."""
        low = _name_key(text)
        taken: list[MetricMatch] = []
        for rx, name, key in self._name_rx:
            for m in rx.finditer(low):
                if any(t.start < m.end() and m.start() < t.end for t in taken):
                    continue
                taken.append(MetricMatch(key, name, m.start(), m.end()))
        return sorted(taken, key=lambda t: t.start)


def allowed(metric: Metric, statement: str | None, unit: str | None) -> bool:
    """Whether a line of ``statement`` in ``unit`` can be this metric: a balance (instant)
    metric comes from the balance sheet (or a note), a flow never from the balance sheet;
    amounts in a currency, per-share figures per share, share counts in shares."""
    if statement and metric.kind == "instant" and statement != "balance":
        return False
    if statement == "balance" and metric.kind == "flow":
        return False
    if unit:
        return unit_kind(unit) == unit_kind(metric.unit)
    return True


@lru_cache(maxsize=1024)
def unit_kind(unit: str) -> str:
    """'money', 'per_share', 'shares', 'percent' or 'pure' for a fact or metric unit."""
    u = unit.strip()
    low = u.lower()
    if "/share" in low or "per share" in low or low in {"usd/shares", "eps"}:
        return "per_share"
    if low in {"shares", "share"}:
        return "shares"
    if low in {"percent", "%"}:
        return "percent"
    if low in {"pure", "ratio", "times", "days"}:
        return "pure"
    if re.fullmatch(r"[A-Za-z]{3}", u):
        return "money"
    return "other"


def _name_key(text: str) -> str:
    """Text as names are matched: lower case, curly apostrophes straight, hyphens as
    spaces (same length, so offsets hold)."""
    return text.lower().replace("\u2019", "'").replace("-", " ")


def _name_rx(name: str) -> str:
    """A name as a pattern: any run of spaces between its words, and its plural ("operating
    margins", "free cash flows") for a name ending in a letter other than s or y."""
    plural = "s?" if name[-1:].isalpha() and name[-1] not in "sy" else ""
    return re.escape(name).replace(r"\ ", r"\s+") + plural


@lru_cache(maxsize=4)
def catalog(path: Path = CATALOG) -> Catalog:
    """The catalogue read from ``path`` (cached)."""
    return Catalog(tomllib.loads(path.read_text(encoding="utf-8")))
