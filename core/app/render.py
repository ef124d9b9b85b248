"""A PDF page rendered as an image, with a cited passage marked on it (pypdfium2 + Pillow).

``render_page(path, page, passage=..., sentence=...)`` draws the physical page
``page`` (1-based, ``Chunk.page``) and marks where the passage's text lies on it:
the chunk lightly, the cited sentence strongly. Text is matched on letters and
digits only (case, spacing, hyphenation and ligature differences between our
extraction and PDFium's are ignored), so a passage that spans a page break is
marked on each page where part of it is.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from core.app.cited import squeeze
from core.foundation.errors import AppError

MIN_BLOCK = 24  # letters/digits in a row that count as "this passage is here"
PASSAGE_FILL = (255, 214, 10, 60)
SENTENCE_FILL = (255, 150, 0, 80)
SENTENCE_LINE = (200, 80, 0, 255)


@dataclass
class RenderedPage:
    """A rendered page as PNG bytes, and what could be marked on it."""

    png: bytes
    page: int
    n_pages: int
    width: int
    height: int
    passage_marked: bool = False
    sentence_marked: bool = False
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)


def find_spans(needle: str, haystack: str, *, min_block: int = MIN_BLOCK) -> list[tuple[int, int]]:
    """Character spans of ``haystack`` that hold ``needle``'s text (letters/digits compared).

    An exact match gives one span; otherwise every block of at least ``min_block``
    matching letters/digits (for a passage cut by a page break or extracted a bit
    differently)."""
    n, _ = squeeze(needle)
    h, h_index = squeeze(haystack)
    if not n or not h:
        return []
    at = h.find(n)
    if at >= 0:
        return [(h_index[at], h_index[at + len(n) - 1] + 1)]
    matcher = SequenceMatcher(None, h, n, autojunk=False)
    spans = []
    for block in matcher.get_matching_blocks():
        if block.size >= min(min_block, len(n)):
            spans.append((h_index[block.a], h_index[block.a + block.size - 1] + 1))
    return spans


def _boxes(textpage, spans: list[tuple[int, int]]) -> list[tuple[float, float, float, float]]:
    """PDF-space rectangles (left, bottom, right, top) of the spans, one per text line."""
    rects = []
    for start, end in spans:
        for k in range(textpage.count_rects(start, end - start)):
            rects.append(textpage.get_rect(k))
    return merge_lines(rects)


def merge_lines(rects: list[tuple[float, float, float, float]]
                ) -> list[tuple[float, float, float, float]]:
    """Rectangles on the same text line (vertical overlap over half their height) united."""
    lines: list[list[float]] = []
    for left, bottom, right, top in sorted(rects, key=lambda r: (-r[3], r[0])):
        for line in lines:
            overlap = min(top, line[3]) - max(bottom, line[1])
            if overlap > 0.5 * min(top - bottom, line[3] - line[1]):
                line[:] = [min(left, line[0]), min(bottom, line[1]), max(right, line[2]),
                           max(top, line[3])]
                break
        else:
            lines.append([left, bottom, right, top])
    return [tuple(line) for line in lines]


def render_page(path: Path, page: int, *, passage: str = "", sentence: str = "",
                scale: float = 1.6) -> RenderedPage:
    """Render physical page ``page`` (1-based) of the PDF at ``path`` with the marks drawn.

    Raises ``AppError`` when the file cannot be opened or has no such page."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    try:
        pdf = pdfium.PdfDocument(str(path), password="")
    except Exception as exc:  # noqa: BLE001 - pdfium raises its own error family
        raise AppError(f"The filing's PDF could not be opened to show the page ({exc}).") from exc
    try:
        n_pages = len(pdf)
        if not 1 <= page <= n_pages:
            raise AppError(f"The filing has {n_pages} pages; page {page} does not exist.")
        pg = pdf[page - 1]
        width_pt, height_pt = pg.get_size()
        textpage = pg.get_textpage()
        text = textpage.get_text_range()
        if len(text) != textpage.count_chars():  # characters outside the BMP: no marks
            passage_spans, sentence_spans = [], []
        else:
            passage_spans = find_spans(passage, text) if passage else []
            sentence_spans = find_spans(sentence, text) if sentence else []
        passage_boxes = _boxes(textpage, passage_spans)
        sentence_boxes = _boxes(textpage, sentence_spans)
        image = pg.render(scale=scale).to_pil().convert("RGBA")
    finally:
        pdf.close()

    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)

    def px(box):
        left, bottom, right, top = box
        return (left * scale - 2, (height_pt - top) * scale - 2,
                right * scale + 2, (height_pt - bottom) * scale + 2)

    for box in passage_boxes:
        draw.rectangle(px(box), fill=PASSAGE_FILL)
    for box in sentence_boxes:
        x0, y0, x1, y1 = px(box)
        draw.rectangle((x0, y0, x1, y1), fill=SENTENCE_FILL)
        draw.line((x0, y1, x1, y1), fill=SENTENCE_LINE, width=2)
    if passage_boxes or sentence_boxes:  # a bar in the margin leads the eye to the passage
        tops = [px(b)[1] for b in passage_boxes + sentence_boxes]
        bottoms = [px(b)[3] for b in passage_boxes + sentence_boxes]
        draw.rectangle((4, min(tops), 10, max(bottoms)), fill=SENTENCE_LINE)
    out = Image.alpha_composite(image, overlay).convert("RGB")
    buf = io.BytesIO()
    out.save(buf, format="PNG", optimize=True)
    return RenderedPage(png=buf.getvalue(), page=page, n_pages=n_pages, width=out.width,
                        height=out.height, passage_marked=bool(passage_boxes),
                        sentence_marked=bool(sentence_boxes),
                        boxes=[px(b) for b in sentence_boxes or passage_boxes])
