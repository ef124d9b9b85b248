"""The nearest catalogue measure for words the catalogue does not name, by the bundled
embedding model (all-MiniLM-L6-v2): cosine of the words against every catalogue name.

Measured on words analysts use (/work notes, issue 36): names the catalogue spells another
way score 0.83-0.99 ("stock based pay" -> stock-based compensation 0.83, "capital spending"
0.99), but so do wrong ones ("selling costs" -> cost of goods sold 0.81, "earnings" ->
operating earnings 0.86 against net earnings 0.82). So a measure is *taken* only at
``TAKE`` (0.90) and ``MARGIN`` (0.05) above the nearest other metric, and said; between
``SUGGEST`` (0.70) and that, the nearest are *named* as not answered, for the analyst to
choose at plan review; below, nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.reading.lexicon import lexicon
from core.reading.model import Match

TAKE = 0.90
MARGIN = 0.05
SUGGEST = 0.70
_CACHE: dict[str, tuple[list[tuple[str, str]], np.ndarray]] = {}


@dataclass(frozen=True)
class Near:
    """A catalogue metric near the words, with its name that was nearest."""

    metric: str
    name: str
    score: float


@lru_cache(maxsize=1)
def _names() -> list[tuple[str, str]]:
    from core.metrics import catalog

    return [(m.key, n) for m in catalog().metrics.values() for n in m.names]


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def nearest(words: str, embedder, k: int = 3) -> list[Near]:
    """The ``k`` nearest catalogue metrics (one entry per metric, best first)."""
    names = _names()
    key = getattr(embedder, "name", type(embedder).__name__)
    if key not in _CACHE:
        _CACHE[key] = (names, _unit(np.asarray(embedder.encode([n for _, n in names]),
                                               dtype=np.float32)))
    names, vectors = _CACHE[key]
    query = _unit(np.asarray(embedder.encode([words]), dtype=np.float32))[0]
    scores = vectors @ query
    out: list[Near] = []
    for i in np.argsort(-scores):
        metric, name = names[int(i)]
        if all(n.metric != metric for n in out):
            out.append(Near(metric, name, float(scores[int(i)])))
        if len(out) == k:
            break
    return out


def taken(near: list[Near]) -> Near | None:
    """The nearest when it is near enough and clearly nearer than the next metric."""
    if not near or near[0].score < TAKE:
        return None
    if len(near) > 1 and near[0].score - near[1].score < MARGIN:
        return None
    return near[0]


_WORD = re.compile(r"[A-Za-z][A-Za-z&'-]*")


_ASKING = frozenset("""much many spend spent spending report reported reports
    amount amounts figure value level levels generate generated its their our this that
    latest fiscal annual quarter year years please tell show give me about""".split())


def measure_words(text: str, common: frozenset[str]) -> str:
    """The words of a short figure question (its companies already taken out) left when
    its common and asking words and periods are taken out ('' when none or too many).

    >>> measure_words("What were  's selling costs in FY2024?", frozenset({"what", "were",
    ...                                                                 "in"}))
    'selling costs'
    """
    words = [w.lower().removesuffix("'s").strip("'") for w in _WORD.findall(text)]
    words = [w for w in words if len(w) > 1 and w not in common and w not in _ASKING
             and not re.fullmatch(r"fy\d*|q[1-4]", w)]
    return " ".join(words) if 1 <= len(words) <= 4 else ""


def nearest_measure(text: str, documents, embedder, matches: list[Match],
                     unread: list[str], nearest_keys: list[str]) -> str | None:
    """A figure question whose measure the catalogue does not name: the text with the
    nearest catalogue name in its place when it is near enough (``core.reading.nearest``),
    said; otherwise the nearest named as not answered. None when nothing is taken."""
    from core.analysis.words import asks_existence
    from core.figures.question import _NOT_FIGURE
    from core.reading.companies import without_companies

    plain = without_companies(text, documents)
    if embedder is None or plain == text or _NOT_FIGURE.search(text) or \
            asks_existence(text) or len(text.split()) > 20:
        return None
    words = measure_words(plain, lexicon().common)
    near = nearest(words, embedder) if words else []
    best = taken(near)
    if best is not None:
        from core.metrics import get_metric

        label = get_metric(best.metric).label
        matches.append(Match(words=words, read_as=label, how=f"the nearest catalogue name, "
                             f"similarity {best.score:.2f}"))
        return re.sub(re.escape(words), label, text, count=1, flags=re.I)
    close = [n for n in near if n.score >= SUGGEST]
    nearest_keys.extend(n.metric for n in close)
    if close:
        from core.metrics import get_metric

        unread.append(f"'{words}' is no measure of the catalogue (nearest: " + ", ".join(
            f"{get_metric(n.metric).label} {n.score:.2f}" for n in close) + "; choose one "
            "at plan review): answered from the filings' text")
    return None
