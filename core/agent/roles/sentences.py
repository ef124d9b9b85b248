"""Small text helpers the offline rules share: sentences, content words, overlap."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.store.tokenize import STOPWORDS, fold_plural, tokenize

STEM = 6
HEAD_WORDS = 8
DUPLICATE_JACCARD = 0.85
TABLE_SEP = " | "
# A term that occurs only after one of these prefixes ("anti-competition", "non-compete") is not
# what the sentence is about: it counts for little when scoring sentences.
_PREFIXED = re.compile(r"\b(?:anti|non|counter|pseudo|quasi|un|mis)-[A-Za-z]+",
                       re.IGNORECASE)
_BULLET = re.compile(r"^[\s\-•*·▪◦]+")
_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&.\-']*[A-Za-z0-9]|[A-Za-z0-9]")
_EXTRA_STOP = frozenset(
    """
    find recent news explain how
    post filing post-filing then also this that these those its their his her our latest
    information about year years related relating regarding concerning into onto upon within
    whether any ways way much many
    """.split()
)


def _paragraphs(text: str) -> list[str]:
    """Raw paragraphs of ``text`` (blank-line separated; bullet and "|" lines start one)."""
    return [p for p in re.split(r"\n\s*\n|\n(?=[-•*|])", text) if p.strip()]


def is_table_line(line: str) -> bool:
    """True for a table row as the parsers write it: cells joined by " | "."""
    return TABLE_SEP in line


def blocks(text: str) -> list[list[str]]:
    """Paragraphs (and bullet or table lines) of ``text``, each as its list of sentences.

    A paragraph with table lines is split into its lines, so every table row is a block
    of its own instead of the whole table reading as one sentence."""
    out: list[list[str]] = []
    for para in _paragraphs(text):
        lines = para.split("\n")
        parts = lines if any(is_table_line(ln) for ln in lines) else [para]
        for part in parts:
            part = " ".join(part.split())
            if part:
                out.append(_join_abbreviations([s.strip() for s in _SENT_END.split(part)
                                                if s.strip()]))
    return [b for b in out if b]


_ABBREVIATED = re.compile(r"(?:^|\s|\()(?:U\.S|U\.K|e\.g|i\.e|vs|No|Nos|Mr|Ms|Dr|approx)\.$",
                          re.IGNORECASE)


def _join_abbreviations(pieces: list[str]) -> list[str]:
    """Pieces split after an abbreviation ("... approach to AI regulation in the U.S." +
    "Congress ...") joined back: an abbreviation's full stop ends no sentence."""
    out: list[str] = []
    for piece in pieces:
        if out and _ABBREVIATED.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def sentences(text: str) -> list[str]:
    """Split prose into sentences (each table row whole); drops empty pieces."""
    return [s for block in blocks(text) for s in block]


def summary_sentences(text: str) -> set[str]:
    """Sentences that stand alone as a paragraph or bullet, 6-40 words, ending with a full
    stop: the heading-like summaries 10-Ks put above each risk factor ("Competition in our
    markets could cause us to lose market share and revenue.") and in risk summaries."""
    paragraphs = blocks(text)
    if len(paragraphs) < 2:
        return set()
    return {b[0] for b in paragraphs if len(b) == 1 and b[0].rstrip().endswith(".")
            and 6 <= len(b[0].split()) <= 40 and not is_table_line(b[0])}


def content_words(text: str, limit: int = 8) -> list[str]:
    """Distinct meaningful words of ``text`` in order, surface form kept (``"AMD's"`` -> AMD)."""
    seen: set[str] = set()
    out: list[str] = []
    for raw in _WORD.findall(text):
        word = re.sub(r"['\u2019]s$", "", raw).strip(".-'")
        low = word.lower()
        if not word or low in STOPWORDS or low in _EXTRA_STOP or low in seen:
            continue
        if len(word) < 2 and not word.isdigit():
            continue
        seen.add(low)
        out.append(word)
        if len(out) >= limit:
            break
    return out


def fold(token: str) -> str:
    """One token's term: plural folded, then cut to 6 letters (``risks`` -> ``risk``;
    competition / competitors / compete -> ``compet``)."""
    return fold_plural(token)[:STEM] if token.isalpha() else token


def terms(text: str) -> set[str]:
    """Normalised terms of ``text``: the keyword index's tokens folded by ``fold``."""
    return {fold(t) for t in tokenize(text)}


def main_terms(text: str) -> set[str]:
    """Terms of ``text`` outside prefixed compounds ("anti-competition" adds nothing)."""
    return terms(_PREFIXED.sub(" ", text))


def head_terms(sentence: str, words: int = HEAD_WORDS) -> set[str]:
    """Main terms of the sentence's first ``words`` words: what the sentence is about."""
    head = " ".join(_BULLET.sub("", sentence).split()[:words])
    return main_terms(head)


def strip_bullet(sentence: str) -> str:
    """``sentence`` without a leading bullet glyph ("• Competition ..." -> "Competition ...")."""
    return re.sub(r"^[•*·▪◦\-]\s+", "", sentence.strip())


def near_duplicate(a: str, b: str) -> bool:
    """True when two sentences say the same (token-set Jaccard >= 0.85), e.g. the same
    risk heading in the summary list and above its section, or in two overlapping chunks.
    Quoted table rows compare without their appended column header (``row_core``)."""
    a, b = row_core(a), row_core(b)
    ta, tb = set(tokenize(a)), set(tokenize(b))
    if not ta or not tb:
        return _BULLET.sub("", a).strip().lower() == _BULLET.sub("", b).strip().lower()
    return len(ta & tb) / len(ta | tb) >= DUPLICATE_JACCARD


def query_terms(text: str) -> set[str]:
    """Terms of a question that evidence should contain (instruction words removed)."""
    return terms(text) - terms(" ".join(_EXTRA_STOP))


def is_heading(sentence: str) -> bool:
    """A title-like line: no closing punctuation and mostly capitalised words, or a TOC row."""
    words = re.findall(r"[A-Za-z][A-Za-z'’\-]*", sentence)
    if sentence.count("|") >= 3 and re.search(r"\bpage\b", sentence, re.IGNORECASE):
        return True
    if not words or sentence.rstrip().endswith((".", "!", "?", ":", ";")):
        return False
    minor = {"and", "or", "of", "the", "to", "in", "for", "on", "our", "a", "an", "with", "by"}
    caps = [w for w in words if w.lower() not in minor]
    return bool(caps) and sum(w[0].isupper() for w in caps) / len(caps) >= 0.8


def overlap(query_terms: set[str], text: str) -> float:
    """Share of ``query_terms`` found in ``text`` (0..1)."""
    if not query_terms:
        return 0.0
    return len(query_terms & terms(text)) / len(query_terms)


def shorten(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"


# --- table rows -------------------------------------------------------------------------

_FIGURE = re.compile(r"^\(?[-−–]?\s*[$€£]?\s*\(?[-−–]?\d[\d,]*(?:\.\d+)?\)?\s*%?\)?$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
CAPTION_LINES = 2
CAPTION_WORDS = 12


@dataclass
class TableRow:
    """One data row of a table in a chunk, with what makes it readable on its own."""

    text: str  # the row as written in the chunk ("Net income | $ 457.3 | $ 181.0")
    label: str  # its first cell ("Net income")
    header: str = ""  # the column headings ("Fiscal Year Ended December 28, 2024 | ...")
    caption: str = ""  # the title above the table ("CONSOLIDATED STATEMENTS OF INCOME, ...")

    def quote(self) -> str:
        """The row followed by its column headings and caption in parentheses."""
        extra = "; ".join(p for p in (self.header, self.caption) if p)
        return f"{self.text} ({extra})" if extra else self.text


def _cells(line: str) -> list[str]:
    return [" ".join(c.split()) for c in line.split("|")]


def _is_figure(cell: str) -> bool:
    return bool(_FIGURE.match(cell)) and not _YEAR.match(cell.strip("() "))


def _caption(para: str) -> tuple[str, str]:
    """``(caption, raw caption paragraph)`` from the short title lines above a table."""
    lines = [" ".join(ln.split()) for ln in para.split("\n") if ln.strip()]
    kept: list[str] = []
    for line in reversed(lines):
        if len(kept) >= CAPTION_LINES or len(line.split()) > CAPTION_WORDS \
                or line.endswith((".", "!", "?")) or is_table_line(line):
            break
        kept.insert(0, line.rstrip(":"))
    if not kept:
        return "", ""
    parts = [p[1:-1] if p.startswith("(") and p.endswith(")") else p for p in kept]
    return ", ".join(parts), " ".join(kept)


def _header(first: list[str], width: int) -> tuple[str, str]:
    """``(column headings, unit)`` from a header row: its first cell heads the label column
    ("(in millions)") when it has as many cells as the data rows."""
    if len(first) >= width and first[0]:
        unit = first[0][1:-1] if first[0].startswith("(") and first[0].endswith(")") else ""
        return " | ".join(c for c in first[1:] if c), unit
    return " | ".join(c for c in first if c), ""


def table_rows(text: str) -> list[TableRow]:
    """The data rows (a label plus at least one figure) of every table in ``text``, each
    with its table's column headings (a first row without figures) and caption (up to two
    short title lines right above the table). Tables of contents (a "Page" column) are
    skipped."""
    out: list[TableRow] = []
    previous = ""
    for para in _paragraphs(text):
        lines = [ln for ln in para.split("\n") if ln.strip()]
        table = [_cells(ln) for ln in lines if is_table_line(ln)]
        if not table:
            previous = para
            continue
        caption = _caption(previous)[0]
        previous = ""
        header, unit = "", ""
        if not any(_is_figure(c) for c in table[0]):
            width = max((len(r) for r in table[1:]), default=len(table[0]))
            header, unit = _header(table[0], width)
            table = table[1:]
        if re.search(r"\bpage\b", header, re.IGNORECASE):
            continue
        caption = ", ".join(p for p in (caption, unit) if p)
        for cells in table:
            if cells[0] and re.search(r"[A-Za-z]", cells[0]) and any(map(_is_figure, cells[1:])):
                out.append(TableRow(" | ".join(cells), cells[0], header, caption))
    return out


def caption_sentences(text: str) -> set[str]:
    """Sentences of the title lines above tables (they travel with the rows instead)."""
    out: set[str] = set()
    previous = ""
    for para in _paragraphs(text):
        if any(is_table_line(ln) for ln in para.split("\n")):
            out.update(sentences(_caption(previous)[1]))
        previous = para
    return out


def row_core(sentence: str) -> str:
    """A quoted table row without its appended parenthesis of column headings (``quote``);
    any other sentence unchanged."""
    s = sentence.rstrip().rstrip(".")
    if not is_table_line(s) or not s.endswith(")"):
        return sentence
    depth = 0
    for k in range(len(s) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(s[k], 0)
        if depth == 0:
            inner, head = s[k + 1:-1], s[:k].rstrip()
            if re.search(r"[A-Za-z]", inner) and is_table_line(head):
                return head
            return sentence
    return sentence
