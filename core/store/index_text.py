"""What is indexed for a chunk: its filing's context with its own words.

A chunk's text is the filing's words and stays what users see and cite. What the
embedder and the keyword index read is that text under a header naming where it sits:
the company, form and period of its filing, its section, the financial statement it
belongs to and the table caption/column headings ingest kept in ``Chunk.context``. So
the third piece of a cash-flow statement, which holds only rows of figures, is still
found as "3M COMPANY 10-K FY2018 / Item 8 / Consolidated statement of cash flows", and a
pooled search over many companies can tell their filings apart.

Financial statements are found by their printed titles: a line that is only a statement
title ("Condensed Consolidated Statements of Cash Flows", "(Unaudited)" or "(continued)"
allowed after it; a table-of-contents line ending in a page number is not one). The chunk
holding the title and the table pieces that follow it on the same or the next page are
tagged with that statement, up to the next title or the end of the statement: pieces on
the title's page, and on the next page only a piece that opens with a table row.
"""

from __future__ import annotations

import re

from core.foundation.types import Chunk, DocumentMeta

STATEMENTS: dict[str, str] = {
    "income": "Income statement (statement of operations)",
    "comprehensive_income": "Statement of comprehensive income",
    "balance": "Balance sheet (statement of financial position)",
    "cash_flow": "Statement of cash flows",
    "equity": "Statement of shareholders' equity",
}
_PREFIX = r"^(?:(?:[\w.,&'\u2019-]+\s+){1,6}and\s+subsidiaries\s*[-:\u2013\u2014]?\s*)?" \
          r"(?:(?:condensed|consolidated|combined|interim|unaudited|selected|supplemental)\s+)*"
_KINDS = [
    ("comprehensive_income", r"statements?\s+of\s+comprehensive\s+(?:income|loss|earnings)"
                             r"(?:\s*\(loss\))?"),
    ("cash_flow", r"statements?\s+of\s+cash\s+flows?"),
    ("balance", r"balance\s+sheets?|statements?\s+of\s+financial\s+(?:position|condition)"),
    ("equity", r"statements?\s+of\s+(?:changes\s+in\s+)?(?:stockholders|shareholders|owners)?"
               r"['\u2019]?\s*equity(?:\s*\(deficit\))?"),
    ("income", r"statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings|"
               r"(?:income|earnings)\s+and\s+comprehensive\s+(?:income|earnings)|"
               r"operations\s+and\s+comprehensive\s+(?:income|loss))(?:\s*\(loss\))?"),
]
_TAIL = r"(?:\s*\((?:unaudited|continued|in\s+[^)]*)\))*\s*$"
_TITLES = [(kind, re.compile(f"{_PREFIX}(?:{rx}){_TAIL}", re.I)) for kind, rx in _KINDS]
_STATEMENT_END = re.compile(r"accompanying notes|notes to (?:the )?(?:condensed )?"
                            r"consolidated financial statements are an integral", re.I)
MAX_TITLE_CHARS = 140


def statement_title(line: str) -> str | None:
    """The statement kind when ``line`` is a statement's printed title, else None."""
    line = line.strip().strip("|").strip()
    if not line[:1].isupper() or len(line) > MAX_TITLE_CHARS or "|" in line:
        return None
    for kind, rx in _TITLES:
        if rx.match(line):
            return kind
    return None


def _last_title(text: str) -> str | None:
    found = None
    for line in text.splitlines():
        kind = statement_title(line)
        if kind:
            found = kind
    return found


def _continues(chunk: Chunk, last_page: int | None) -> bool:
    """Whether an untitled chunk carries on the statement of the chunk before it: a table
    piece on the same page, or on the next page when it opens with a table row."""
    if chunk.kind != "table":
        return False
    if last_page is None or chunk.page is None or chunk.page == last_page:
        return True
    first = chunk.text.lstrip().split("\n", 1)[0]
    return chunk.page == last_page + 1 and "|" in first


def tag_statements(chunks: list[Chunk]) -> list[str | None]:
    """The statement each chunk belongs to (None for the rest), in document order."""
    tags: list[str | None] = []
    current: str | None = None
    last_page: int | None = None
    for chunk in chunks:
        own = _last_title(chunk.text)
        if own:
            current = own
        elif current is not None and not _continues(chunk, last_page):
            current = None
        tags.append(current)
        if current is not None:
            last_page = chunk.page_end or chunk.page
            tail = chunk.text[-300:]
            if _STATEMENT_END.search(tail) and not _last_title(tail):
                current = None
        else:
            last_page = None
    return tags


def header(chunk: Chunk, doc: DocumentMeta | None, *, local: bool = True) -> str:
    """The context line indexed above a chunk's text (``local=False``: without the chunk's
    own caption, column headings or sub-heading)."""
    parts: list[str] = []
    if doc is not None:
        who = " ".join(v for v in (doc.company, doc.form_type, doc.period)
                       if v and v != "unknown")
        if who:
            parts.append(who)
    if chunk.section and chunk.section != "Document":
        parts.append(chunk.section)
    if chunk.statement:
        parts.append(STATEMENTS.get(chunk.statement, chunk.statement))
    if local and chunk.context:
        parts.append(" ".join(chunk.context.split()))
    return " / ".join(parts)


def index_text(chunk: Chunk, doc: DocumentMeta | None) -> str:
    """What the keyword index reads for ``chunk`` (and the embedder, by default)."""
    return vector_text(chunk, doc, "full")


def vector_text(chunk: Chunk, doc: DocumentMeta | None, mode: str = "full") -> str:
    """What the embedder reads for ``chunk``: ``full`` the whole context header,
    ``filing`` only its filing/section/statement part, ``none`` the chunk's text alone."""
    if mode == "none":
        return chunk.text
    head = header(chunk, doc, local=mode == "full")
    return f"{head}\n{chunk.text}" if head else chunk.text
