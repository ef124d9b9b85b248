"""Tokenisation for the keyword (BM25) index and for queries.

Both sides go through the same function, so a question like "What was AMD's net
revenue in 2015?" meets a table cell like "Net revenue ... $ 3,991" on the
tokens ``net``, ``revenue``, ``2015`` and ``3991``:

* lower-case; every run of punctuation splits (``"10-K"`` -> ``10``, ``k``); words that
  mix letters and digits stay whole (``"3M"`` -> ``3m``, ``"5G"`` -> ``5g``), and one that
  holds a year also gives the year (``"FY2022"`` -> ``fy2022``, ``2022``);
* numbers are normalised: thousands separators, currency signs and accounting
  parentheses go (``"$1,577"`` -> ``1577``, ``"(1,234)"`` -> ``1234``), decimals
  stay (``"3.5%"`` -> ``3.5``);
* possessives fold (``"amd's"`` -> ``amd``); a light plural folding (Harman's
  "S" stemmer, 1991: ``risks``->``risk``) is available with ``stem=True`` but off
  by default: on real filings it did not help (data/bench/RESULTS.md);
* English stopwords and question boilerplate ("what", "describe", "according",
  "the company", "filing", "answer in USD millions", "round to two decimal places", ...)
  are dropped, since every filing matches them.
"""

from __future__ import annotations

import re
from functools import lru_cache

TOKENIZER_VERSION = "2"

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_TOKEN = re.compile(r"[a-z]+\d[a-z\d]*|\d+[a-z][a-z\d]*|\d+(?:\.\d+)?|[a-z]+")
_YEAR_IN = re.compile(r"(?:19|20)\d\d")
_APOS = re.compile(r"['\u2019]s\b")

ENGLISH_STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each few for from further had hadn has hasn have haven having he her here
    hers herself him himself his how i if in into is isn it its itself just let ll me more most
    mustn my myself no nor not now of off on once only or other ought our ours ourselves out over
    own re same shan she should shouldn so some such than that the their theirs them themselves
    then there these they this those through to too under until up ve very was wasn we were weren
    what when where which while who whom why will with won would wouldn you your yours yourself
    yourselves s t d m o y
    """.split()
)

# Words that occur in analysts' questions but carry no evidence: every filing
# "reports", "describes" and "discusses" things, and is "the company's".
QUESTION_STOPWORDS = frozenset(
    """
    according describe described describes description detail details discuss discussed
    discusses explain explained explains identify list mention mentioned mentions please
    provide say says said state stated states tell show shows give summarize summarise
    filing filings filed report reported reports document documents disclose disclosed
    discloses company company's companies firm per regarding based key main
    answer answers question questions response respond relying rely details shown assume
    analyst analysts calculate calculated calculation using use primarily provided
    information round rounded decimal places units unit usd millions billions thousands
    approximately approximate reasonable approximation need needs
    """.split()
)

STOPWORDS = ENGLISH_STOPWORDS | QUESTION_STOPWORDS


@lru_cache(maxsize=65536)
def fold_plural(word: str) -> str:
    """Harman's S-stemmer plus ``-sses/-xes/-ches`` (``losses``->``loss``); ``basis`` kept."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss", "is")):
        return word[:-1]
    return word


def normalise_numbers(text: str) -> str:
    """Drop thousands separators so "26,974" and "26974" are one token."""
    return _THOUSANDS.sub("", text)


def tokenize(text: str, *, stem: bool = False, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Split ``text`` into normalised index/query tokens (see the module docstring)."""
    text = _APOS.sub("", normalise_numbers(text.lower()))
    out: list[str] = []
    for tok in _TOKEN.findall(text):
        if tok in stopwords:
            continue
        if tok[0].isalpha() and tok.isalpha():
            if len(tok) < 2:
                continue
            if stem:
                tok = fold_plural(tok)
                if tok in stopwords:
                    continue
        out.append(tok)
        if not tok.isalpha() and not tok.replace(".", "").isdigit():
            out.extend(_YEAR_IN.findall(tok))
    return out
