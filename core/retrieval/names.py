"""How a document can be named in a question: company names, tickers, initialisms, file names.

Aliases are compared as lower-case letters and digits with spaces removed, so "Best Buy",
"BESTBUY" and "Best-Buy" are one alias, and "Amazon.com" is "amazoncom". Each alias has
a strength that says how it may match a question's words:

* ``name``: a full company name or former name of two words or more, corporate suffixes
  dropped ("JPMorgan Chase & Co." -> "jpmorganchase"): matches any spelling;
* ``word``: a one-word name ("Apple Inc." -> "apple") or the first distinctive word of a
  longer one ("MGM Resorts International" -> "mgm"): matches only a capitalised word,
  since names like "Block" or "Target" are also English words;
* ``file``: the company part of the file name ("JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf" ->
  "johnsonjohnson", "MGMRESORTS_..." -> "mgmresorts"): matches any spelling (a single
  word only when capitalised), and a capitalised word of three letters or more that
  begins it ("MGM", "Ulta");
* ``initials``: "J&J", "JnJ", "JNJ" for "Johnson & Johnson": matches only a word written
  with a capital or "&";
* ``ticker``: the cover's trading symbol: matches only an upper-case word ("MMM").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.ingest.cover import CORPORATE_WORDS as _CORPORATE
from core.ingest.cover import name_words, squash

_NOT_DISTINCTIVE = _CORPORATE | {"com"}
# First words that are too common to name a company on their own.
_GENERIC_FIRST = frozenset("""american general first united national international global new
    best advanced capital public service services international federal royal standard
    southern northern eastern western pacific atlantic central consolidated""".split())
_FORM_WORDS = frozenset("""10k 10q 8k 10ka 10qa 20f 40f k q form annual quarterly report
    earnings release dated pdf htm html txt fy fiscal filing exhibit ex final""".split())
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&.'\u2019\-]*")


@dataclass(frozen=True)
class Alias:
    key: str
    strength: str  # "name" | "word" | "initials" | "ticker"


def file_name_words(file_name: str) -> list[str]:
    """The company part of a file name: letter words before the first year/form token."""
    stem = re.sub(r"\.[A-Za-z0-9]{2,4}$", "", file_name)
    words: list[str] = []
    for tok in re.split(r"[\s_\-.()]+", stem):
        low = tok.lower()
        if not low:
            continue
        if re.search(r"\d", low) or low in _FORM_WORDS:
            if words:
                break
            continue
        words.append(low)
    return words


def aliases_for(company: str, file_name: str = "", ticker: str = "",
                former_names: list[str] | tuple[str, ...] = ()) -> set[Alias]:
    """Every alias of one document (see the module docstring)."""
    out: set[Alias] = set()
    for name in [company, *former_names]:
        if not name or name.lower() == "unknown":
            continue
        words = name_words(name)
        distinctive = [w for w in words if w not in _NOT_DISTINCTIVE]
        if not distinctive:
            continue
        single = len(words) == 1 and words[0].isalpha()
        out.add(Alias("".join(words), "word" if single else "name"))
        if "and" in words[1:-1]:  # "Procter & Gamble": written with "&", squashed without it
            out.add(Alias("".join(w for w in words if w != "and"), "name"))
        first = distinctive[0]
        if len(words) > 1 and len(first) >= 3 and first not in _GENERIC_FIRST:
            out.add(Alias(first, "word"))
        if len(distinctive) >= 2:
            letters = [w[0] for w in distinctive]
            out.add(Alias("".join(letters), "initials"))
            if "and" in words:  # "Johnson & Johnson" -> JnJ, J&J
                out.add(Alias("n".join(letters), "initials"))
    file_words = file_name_words(file_name)
    if file_words and len("".join(file_words)) >= 3:
        out.add(Alias("".join(file_words), "file"))
        if len(file_words) >= 2:
            letters = [w[0] for w in file_words]
            out.add(Alias("".join(letters), "initials"))
            out.add(Alias("n".join(letters), "initials"))
    for symbol in re.split(r"[,;/\s]+", ticker or ""):
        if 1 <= len(symbol) <= 6 and symbol.isalpha():
            out.add(Alias(symbol.lower(), "ticker"))
    return out


def question_spans(question: str, max_words: int = 5) -> list[tuple[str, str, int, int]]:
    """``(squashed n-gram, original text, start, end)`` for n-grams of the question's words."""
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(question)]
    spans = []
    for i in range(len(words)):
        for n in range(1, max_words + 1):
            if i + n > len(words):
                break
            start, end = words[i][1], words[i + n - 1][2]
            raw = re.sub(r"['\u2019]s$", "", question[start:end])
            spans.append((squash(raw), raw, start, end))
    return spans


def allows(strength: str, raw: str) -> bool:
    """Whether a question's words ``raw`` may match an alias of ``strength``."""
    if strength == "name":
        return True
    if strength == "file":
        return not raw.isalpha() or raw[:1].isupper()
    if strength == "ticker":
        return raw.isupper()
    if strength == "initials":
        return "&" in raw or any(ch.isupper() for ch in raw)
    return raw[:1].isupper() or raw[:1].isdigit()
