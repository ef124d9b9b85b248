"""Layout text of PDF pages from pypdfium2's words, in the shape of pypdf's layout mode.

pypdf's layout mode is pure Python (0.1-0.5 s a page on 10-Ks); PDFium (C++) gives the same
page's characters with their boxes in a few milliseconds. ``page_texts`` rebuilds the text
``pdf_layout`` expects from them: a line per baseline, top to bottom; on a line, runs of words
(PDFium's own word spaces) placed at their x position on a fixed-width grid whose cell is
the page's average character width (as pypdf's layout mode does), so table columns stay
apart by runs of spaces and prose lines keep their width and indentation. Only the first
and last character of each word are asked for their box (the bottleneck is the calls into
PDFium, not the arithmetic). A "$" is joined to the figure after it ("$11,947", as printed),
and a superscript note marker ("(a)") stays on its line.
"""

from __future__ import annotations

import ctypes
import logging
import re

log = logging.getLogger(__name__)
_WORD = re.compile(r"\S+")
WORD_GAP = 0.5  # a gap wider than this share of the font size ends a run (a column apart)
SAME_LINE = 0.3  # words whose baselines differ by less than this share of their height: a run
SCALE_WEIGHT = 1.25  # pypdf's fixed_char_width(scale_weight=1.25)
Word = tuple[str, float, float, float, float]  # text, left, right, baseline, height


def _words(textpage) -> list[Word]:
    import pypdfium2.raw as pdfium_c

    n = pdfium_c.FPDFText_CountChars(textpage)
    if n <= 0:
        return []
    buf = (ctypes.c_ushort * (n + 1))()
    got = pdfium_c.FPDFText_GetText(textpage, 0, n, buf)
    text = bytes(buf)[: max(0, got - 1) * 2].decode("utf-16-le", errors="replace")
    if len(text) != n:  # a character outside the BMP takes two indexes: keep them aligned
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i)) for i in range(n))
    text = text.replace("\ufffe", "-")  # PDFium's mark for a hyphen that breaks a word
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    x, y = ctypes.c_double(), ctypes.c_double()
    box, origin = pdfium_c.FPDFText_GetCharBox, pdfium_c.FPDFText_GetCharOrigin
    size, loose = pdfium_c.FPDFText_GetFontSize, pdfium_c.FPDFText_GetLooseCharBox
    rect = pdfium_c.FS_RECTF()
    words: list[Word] = []
    for m in _WORD.finditer(text):
        first, last = m.start(), m.end() - 1
        box(textpage, first, left, right, bottom, top)
        loose(textpage, first, rect)
        x0 = left.value
        height = _height(size(textpage, first), rect.top - rect.bottom, top.value - bottom.value)
        origin(textpage, first, x, y)
        if last != first:
            box(textpage, last, left, right, bottom, top)
        words.append((m.group(), x0, right.value, y.value, height))
    return words


def _same_line(base_a: float, size_a: float, base_b: float, size_b: float) -> bool:
    """Whether two runs share a line: their glyph boxes (a fifth of the font size below the
    baseline, four fifths above) overlap by half the smaller size or more. A superscript sits
    inside its line's box; a 21-point name 10 points above a 12-point line is a line of its
    own (the larger size alone would have let the two merge)."""
    low = max(base_a - 0.2 * size_a, base_b - 0.2 * size_b)
    high = min(base_a + 0.8 * size_a, base_b + 0.8 * size_b)
    return high - low >= 0.5 * min(size_a, size_b)


def _height(font_size: float, line_box: float, glyph_box: float) -> float:
    """A word's height for line grouping: its font size, unless the size PDFium reports is
    the nominal one of a scaled text matrix (a 448-point font drawn at 10 points: Pfizer's,
    Nike's, Amazon's 10-K PDFs), which would put a whole page on one line; then the height of
    the font's line box (ascent to descent at the drawn size)."""
    if font_size > 0 and (line_box <= 0 or 0.5 * line_box <= font_size <= 2 * line_box):
        return max(1.0, font_size)
    return max(1.0, line_box if line_box > 0 else glyph_box)


def layout(words: list[Word]) -> str:
    """The page's text as pypdf's layout mode would print it (see the module docstring)."""
    if not words:
        return ""
    glyphs = sum(len(w[0]) for w in words)
    cw = sum(max(0.0, w[2] - w[1]) for w in words) / max(1, glyphs) or 5.0
    runs: list[list] = []  # [baseline, left, right, text, height]
    cur: list | None = None
    for text, x0, x1, base, height in words:
        if (cur is not None and abs(base - cur[0]) <= SAME_LINE * max(cur[4], height)
                and -cw <= x0 - cur[2] <= WORD_GAP * max(cur[4], height)):
            cur[3] += ("" if cur[3] == "$" or cur[3].endswith(" $") else " ") + text
            cur[2] = max(cur[2], x1)
            continue
        cur = [base, x0, x1, text, height]
        runs.append(cur)
    # the grid's cell as pypdf's layout mode sets it: the runs' mean character width (spaces
    # included) over SCALE_WEIGHT, so a column gap prints as a run of spaces
    chars = sum(len(r[3]) for r in runs)
    cw = (sum(max(0.0, r[2] - r[1]) for r in runs) / max(1, chars) or cw) / SCALE_WEIGHT
    margin = min(r[1] for r in runs)
    runs.sort(key=lambda r: (-r[0], r[1]))
    lines: list[list] = []  # [baseline, height, runs]
    for run in runs:
        if lines and _same_line(lines[-1][0], lines[-1][1], run[0], run[4]):
            lines[-1][2].append(run)
        else:
            lines.append([run[0], run[4], [run]])
    out = []
    for _, _, line_runs in lines:
        line, last = "", ""
        for run in sorted(line_runs, key=lambda r: r[1]):
            spaces = int((run[1] - margin) // cw) - len(line)
            if last == "$" and line.endswith("$"):  # the sign moves to its figure, which
                line = line[:-1] + " " * max(0, spaces) + "$"  # keeps its right edge
                line += run[3]
            else:
                line += " " * (max(1, spaces) if line else max(0, spaces)) + run[3]
            last = run[3]
        out.append(line.rstrip())
    return "\n".join(out)


def page_texts(data: bytes, start: int, stop: int) -> list[str | None]:
    """Layout text of pages ``start``..``stop - 1`` (0-based); None for a page PDFium could
    not read (the caller reads it with pypdf). Raises whatever PDFium raises on a document
    it cannot open."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        out: list[str | None] = []
        for i in range(start, min(stop, len(pdf))):
            try:
                page = pdf[i]
                try:
                    textpage = page.get_textpage()
                    try:
                        out.append(layout(_words(textpage.raw)))
                    finally:
                        textpage.close()
                finally:
                    page.close()
            except pdfium.PdfiumError as exc:
                log.info("PDF page %d: PDFium could not read it (%s)", i + 1, exc)
                out.append(None)
        return out
    finally:
        pdf.close()
