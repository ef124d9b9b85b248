"""One way to say where a passage is: the page number the filing prints, else the PDF page.

A filing's printed page label ("53", "F-7") and its physical page in the file (54: the
cover counts) differ; a screen saying "page 53" beside an export saying "p. 54" for the
same citation loses the analyst's trust. Every place that names a page (Sources, the peer
table, the Library, the citation panel, the exports) calls ``page_ref``: the printed label
when known ("page 53"), else the physical page said as such ("PDF page 54").
"""

from __future__ import annotations

import re


def label_for(page: int | None, chunk_page: int | None, chunk_label: str | None
              ) -> str | None:
    """The printed label of ``page`` from the label of the chunk's first page: the same page
    takes it; a later page of a numbered run is shifted ("53" on PDF page 54 -> page 55 is
    "54"); otherwise unknown (None)."""
    if page is None or not chunk_label:
        return None
    if chunk_page is None or page == chunk_page:
        return chunk_label
    m = re.fullmatch(r"(?P<pre>[A-Za-z]*-?)(?P<n>\d+)", chunk_label.strip())
    if m is None:
        return None
    shifted = int(m.group("n")) + page - chunk_page
    return f"{m.group('pre')}{shifted}" if shifted > 0 else None


def cited_page(chunk, page: int | None, label: str | None) -> tuple[int | None, str | None]:
    """The page a citation of ``chunk`` names: the one its evidence kept (``page``, a
    figure's row on a later page of the chunk) when the chunk spans it, else the chunk's
    first page; with the printed number of that page."""
    if page is not None and page != chunk.page and page in chunk.pages:
        return page, label or label_for(page, chunk.page, chunk.page_label)
    return chunk.page, chunk.page_label


def page_ref(page: int | None, label: str | None = None, *, short: bool = False) -> str:
    """'page 53' (the printed label), 'PDF page 54' (no label known), '' (no page);
    ``short``: 'p. 53', 'PDF p. 54'."""
    word = "p." if short else "page"
    if label and str(label).strip():
        return f"{word} {str(label).strip()}"
    if page:
        return f"PDF {word} {page}"
    return ""


def span_ref(page: int | None, end: int | None, label: str | None = None, *,
             short: bool = False) -> str:
    """Where a passage spanning pages ``page``..``end`` is: 'pp. 53–54' (printed numbers),
    'PDF pp. 54–55' (none printed), else as ``page_ref`` says its first page. The Library
    names a chunk so: a row cited at page 54 of a chunk from 53 lies inside what it says."""
    if page is None or not end or end <= page:
        return page_ref(page, label, short=short)
    words = "pp." if short else "pages"
    if label and str(label).strip():
        last = label_for(end, page, label)
        return f"{words} {str(label).strip()}\u2013{last}" if last else \
            page_ref(page, label, short=short)
    return f"PDF {words} {page}\u2013{end}"
