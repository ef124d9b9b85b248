"""The page number the filing prints on each fact's page, from the chunk the fact was read
from (facts keep the PDF page; their chunks keep the printed label), so a figure's source
says the same page as the citation of its passage (``core.foundation.pages``)."""

from __future__ import annotations

from core.figures.model import FigureInput
from core.foundation.pages import label_for
from core.foundation.types import Fact


def _labelled(fact: Fact | None, pages: dict[str, tuple[int | None, str | None]]
              ) -> Fact | None:
    if fact is None or fact.page_label or not fact.chunk_id or fact.chunk_id not in pages:
        return fact
    first, label = pages[fact.chunk_id]
    found = label_for(fact.page, first, label)
    return fact.model_copy(update={"page_label": found}) if found else fact


def with_page_labels(store, inputs: list[FigureInput]) -> list[FigureInput]:
    """``inputs`` with each fact (used and alternative) carrying its printed page number,
    when ``store`` can read chunks (``get_chunks``) and the filing prints one."""
    get = getattr(store, "get_chunks", None)
    facts = [f for i in inputs for f in (i.fact, *i.alternatives) if f is not None]
    ids = sorted({f.chunk_id for f in facts if f.chunk_id and not f.page_label})
    if get is None or not ids:
        return inputs
    try:
        pages = {c.chunk_id: (c.page, c.page_label) for c in get(ids)}
    except Exception:  # noqa: BLE001 - a fake or closed store: the PDF page is still said
        return inputs
    if not any(label for _, label in pages.values()):
        return inputs
    return [i.model_copy(update={
        "fact": _labelled(i.fact, pages),
        "alternatives": [_labelled(a, pages) for a in i.alternatives]}) for i in inputs]
