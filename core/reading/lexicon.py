"""The reader's vocabulary, loaded once from ``lexicon.toml`` (see its header).

``Lexicon`` holds compiled forms: measure abbreviations (longest first), rewriting phrases,
direction words and the regular expressions of each kind, and the common words that never
name a company. ``lexicon()`` is the one loaded copy.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PATH = Path(__file__).with_name("lexicon.toml")


@dataclass(frozen=True)
class Lexicon:
    """The vocabulary of ``lexicon.toml``, compiled."""

    measures: tuple[tuple[re.Pattern, str, str], ...]
    """(pattern, words as typed, catalogue name), longest first."""
    phrases: tuple[tuple[re.Pattern, str], ...]
    ascending: tuple[str, ...]
    descending: tuple[str, ...]
    kinds: dict[str, tuple[re.Pattern, ...]]
    common: frozenset[str]

    def asks(self, kind: str, text: str) -> bool:
        """Whether ``text`` has a word of ``kind`` ('difference', 'each_year', ...).

        >>> lexicon().asks("difference", "By how many points did A's margin exceed B's?")
        True
        >>> lexicon().asks("each_year", "Did it rise in each of the last three years?")
        True
        """
        return any(rx.search(text) for rx in self.kinds.get(kind, ()))

    def order(self, text: str) -> str | None:
        """'lower' for words that put the lowest first ("weakest first"), 'higher' for the
        opposite, None when the text says neither (the earliest word wins).

        >>> lexicon().order("Rank them by net margin, weakest first")
        'lower'
        >>> lexicon().order("from highest to lowest")
        'higher'
        >>> lexicon().order("Which had the higher margin?") is None
        True
        """
        low = " ".join(text.lower().split())
        hits = [(m.start(), way) for words, way in ((self.ascending, "lower"),
                                                    (self.descending, "higher"))
                for w in words for m in re.finditer(rf"(?<![\w-]){re.escape(w)}(?![\w-])", low)]
        return min(hits)[1] if hits else None


def _word(words: str) -> re.Pattern:
    return re.compile(rf"(?<![\w&-]){re.escape(words)}(?![\w&-])", re.I)


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The loaded vocabulary (read once per process)."""
    data = tomllib.loads(PATH.read_text(encoding="utf-8"))
    measures = tuple((_word(k), k, v) for k, v in sorted(
        data["measures"].items(), key=lambda kv: -len(kv[0])))
    phrases = tuple((re.compile(k, re.I), v) for k, v in data["phrases"].items())
    kinds = {k: tuple(re.compile(p, re.I) for p in v) for k, v in data["kinds"].items()}
    return Lexicon(measures=measures, phrases=phrases,
                   ascending=tuple(data["directions"]["ascending"]),
                   descending=tuple(data["directions"]["descending"]),
                   kinds=kinds, common=frozenset(data["common"]["words"].split()))
