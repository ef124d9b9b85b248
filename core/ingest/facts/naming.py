"""Which printed words may name a member: abbreviations of a member's name ("APAC" is "Asia
Pacific", "EMEA" "Europe, Middle East & Africa", "U.S." "United States", "C&N" "Compute &
Networking") and the names of metrics, which never name a member ("Revenues", "Total
revenues", "Operating income": the line a table breaks down, not the part it breaks it
into).

An abbreviation is one printed token (letters, dots, '&') of two to six letters, two of them
capitals, spelling the start of every word of a name of two words or more, in order
("APAC": *A*sia *Pac*ific; "LATAM": *Lat*in *Am*erica); "and", "of", "the" may be skipped.
"""

from __future__ import annotations

import re
from functools import lru_cache

_ABBREVIATION = re.compile(r"(?:[A-Za-z]\.){2,}|(?<![\w&.])[A-Za-z]+(?:&[A-Za-z]+)*(?![\w&])")
_WORD = re.compile(r"[A-Za-z0-9]+")
_OPTIONAL = frozenset({"and", "of", "the"})


def _letters(abbr: str) -> str | None:
    """The letters of a printed abbreviation, lower case, or None when it is none."""
    text = abbr.strip()
    if not text or " " in text:
        return None
    letters = re.sub(r"[^A-Za-z]", "", text)
    if not 2 <= len(letters) <= 6 or sum(c.isupper() for c in letters) < 2:
        return None
    if not re.fullmatch(r"(?:[A-Za-z]\.?)+|[A-Za-z]+(?:&[A-Za-z]+)*", text):
        return None
    return letters.lower()


@lru_cache(maxsize=20_000)
def abbreviates(abbr: str, name: str) -> bool:
    """Whether ``abbr`` as printed abbreviates the name ``name`` (module docstring)."""
    letters = _letters(abbr)
    words = [w.lower() for w in _WORD.findall(name.replace("&", " and "))]
    needed = [w for w in words if w not in _OPTIONAL]
    if letters is None or len(needed) < 2 or letters == "".join(needed):
        return False

    def spell(i: int, k: int) -> bool:  # letters[i:] from words[k:]
        if i == len(letters):
            return all(w in _OPTIONAL for w in words[k:])
        if k == len(words):
            return False
        word = words[k]
        if word in _OPTIONAL and spell(i, k + 1):
            return True
        n = 1
        while n <= len(word) and i + n <= len(letters) and letters[i:i + n] == word[:n]:
            if spell(i + n, k + 1):
                return True
            n += 1
        return False

    return spell(0, 0)


def find_abbreviation(name: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` prints an abbreviation of ``name``, or None."""
    for m in _ABBREVIATION.finditer(text):
        if abbreviates(m.group(0), name):
            return m.start(), m.end()
    return None


def same_name(a: str, b: str) -> bool:
    """Whether one of two printed names abbreviates the other ("APAC" ~ "Asia Pacific")."""
    return abbreviates(a, b) or abbreviates(b, a)


@lru_cache(maxsize=20_000)
def is_metric_name(text: str) -> bool:
    """Whether ``text`` is a metric's line item ("Revenues", "Total net sales",
    "Operating income"): the line broken down, never a member's name."""
    from core.metrics import metric_for_label

    text = " ".join(text.split())
    return bool(text) and metric_for_label(text) is not None


@lru_cache(maxsize=20_000)
def names_metric(text: str) -> bool:
    """Whether ``text`` is or holds a metric's line item ("Net sales – in the U.S.",
    "Other net sales", "Property and equipment, net"): a row label that names the line,
    whatever member its row is of."""
    if is_metric_name(text):
        return True
    words = re.findall(r"[\w&'-]+", text)
    return any(is_metric_name(" ".join(words[a:b])) for a in range(len(words))
               for b in range(a + 1, min(a + 4, len(words)) + 1))
