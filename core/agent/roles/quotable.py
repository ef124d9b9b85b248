"""Whether a quoted line is a whole sentence, and whether two lines say the same.

The offline brief quotes the filings; a quote that starts mid-sentence ("suppliers and
licensors of ..."), stops mid-way ("... framework for the U.S.", "... competition from:"),
points elsewhere ("For additional information, see Item 1A") or repeats another in other
words is not quoted. A list's introduction is quoted with its items, as one sentence.
"""

from __future__ import annotations

import re

from core.agent.roles.sentences import is_table_line, near_duplicate, row_core, strip_bullet
from core.store.tokenize import tokenize

_DANGLING = re.compile(r"(?<![\w-])(?:from|to|of|and|or|the|a|an|by|with|as|such as|including|"
                       r"include|includes|in|for|on|at|than|that|which|are|is|were|was)\W*$",
                       re.IGNORECASE)
_ABBREVIATION = re.compile(r"\b(?:U\.S|U\.K|e\.g|i\.e|vs|approx|Mr|Ms|Dr|No|Nos)\.$",
                           re.IGNORECASE)  # a sentence split after an abbreviation: cut
_POINTER = re.compile(r"^\W*(?:for (?:additional|more|further) (?:information|discussion|"
                      r"details)|(?:see|refer to) (?:item|note|part|the)\b)", re.IGNORECASE)
"""A cross-reference ("For additional information about competition, see Item 1A"): it
says where to read, not what the filing states."""
MIN_QUOTE_WORDS = 3
SAME_QUOTE_JACCARD = 0.6
SAME_QUOTE_CONTAINED = 0.8


MAX_LIST_ITEMS = 8
_ITEM = re.compile(r"^\s*[•*·▪◦\-]\s*")


def with_its_list(intro: str, text: str | None) -> str | None:
    """A list's introduction ("We face competition from:") with its items from ``text`` (the
    chunk it was read from) as one sentence: "We face competition from: general purpose
    search engines; vertical search engines; ... ." None when the items are not all there
    (no item follows, or more than ``MAX_LIST_ITEMS``: the list is not quoted in part)."""
    if not text or not intro.rstrip().rstrip(".").endswith(":"):
        return None
    from core.agent.roles.sentences import sentences

    said = sentences(text)
    head = intro.rstrip().rstrip(".")
    start = next((k for k, x in enumerate(said) if x.rstrip() == head or
                  near_duplicate(x, head)), None)
    if start is None:
        return None
    items: list[str] = []
    for x in said[start + 1:]:
        if not _ITEM.match(x):
            break
        item, *after = re.split(r"[;.]\s+(?=[A-Z])", _ITEM.sub("", x), maxsplit=1)
        items.append(re.sub(r"[;,.]?\s*(?:and|or)?\s*$", "", item).strip())
        if after:  # the last item, run together with the sentence after the list
            break
    if not items or len(items) > MAX_LIST_ITEMS or not all(items):
        return None
    return f"{head} {'; '.join(items)}."


def verbatim(line: str, source: str | None) -> bool:
    """Whether ``line`` is the source's own words (the offline distiller quotes them; an LLM
    distiller's lines are its own), or the source is unknown."""
    if source is None:
        return True
    return " ".join(line.split()).rstrip(".;, ") in " ".join(source.split())


def is_fragment(line: str, source: str | None = None) -> bool:
    """Not a whole sentence, so not quoted: it starts mid-sentence (lower case: a list item
    or a chunk cut at its start), stops mid-way (a dangling "from", a colon introducing a
    list not quoted, unbalanced brackets or quotes; no closing punctuation, where the line is
    ``source``'s own words: an LLM's line of its own need not end with a full stop), or is
    too short to say anything. A table row is whole as it is."""
    text = strip_bullet(line).strip()
    if is_table_line(row_core(text)):
        return False
    if len(text.split()) < MIN_QUOTE_WORDS:
        return True
    opening = text.lstrip("“\"'(‘[ •*·▪◦-")[:1]
    if opening.islower() or _POINTER.match(text) or text.lower().startswith("table of contents"):
        return True
    if text.rstrip().endswith(("…", "...")):
        return True  # shortened by the distiller: cut
    body = text.rstrip().rstrip(".").rstrip()
    if body.endswith((":", ",", "-", "—", "–", "(", "/")) or _DANGLING.search(body) \
            or _ABBREVIATION.search(text.rstrip()):
        return True
    if not text.rstrip("”\"')] ").endswith((".", "!", "?", ";")) and verbatim(text, source):
        return True
    pairs = (("(", ")"), ("[", "]"), ("“", "”"))
    return any(text.count(a) != text.count(b) for a, b in pairs) or text.count('"') % 2 == 1


def same_quote(a: str, b: str) -> bool:
    """Whether two lines say (nearly) the same: ``near_duplicate``, a word-set Jaccard of 0.6,
    or most of the shorter line's words inside the longer (overlapping chunks, a summary
    sentence repeated above its risk factor)."""
    if near_duplicate(a, b):
        return True
    ta, tb = set(tokenize(row_core(a))), set(tokenize(row_core(b)))
    if not ta or not tb:
        return False
    shared = len(ta & tb)
    return (shared / len(ta | tb) >= SAME_QUOTE_JACCARD
            or shared / min(len(ta), len(tb)) >= SAME_QUOTE_CONTAINED)
