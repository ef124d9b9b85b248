"""The offline engine's answer: an extractive brief, per part of the question.

No LLM writes it, so it does not argue: for each sub-question it quotes the best
line of EACH source the step kept (up to ``PER_PART`` sources; the distilled
context lists lines best first, so a source's first line is its best), each line
with its ``[n]`` citation. A table row is written as its line item with each
figure followed by its column heading (the period) and the table's caption and
unit, e.g.

    Net income: $457.3 (Fiscal Year Ended December 28, 2024); $181.0 (December 30,
    2023) — Consolidated Statements of Income, in millions [2]

Each part opens with the line that answers it (``answer_first``: the quoted sentence that
shares most of the part's own words, a full sentence before a table row or a heading), the
other sources' lines under it; ``BANNER`` closes the answer and says it is extractive.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.agent.roles.distill import context_lines
from core.agent.roles.sentences import is_table_line, near_duplicate, row_core
from core.agent.state import StepRecord

PER_PART = 4
BANNER = ("Extractive brief (offline engine): for each part of the question, the best line of "
          "each source found, quoted with its citation; no analysis across sources. Configure "
          "an LLM for an analytical synthesis.")


def _figure(cell: str) -> str:
    """``"$ 1,234.5"`` -> ``"$1,234.5"``; ``"( 12 )"`` -> ``"(12)"``."""
    return re.sub(r"([$€£(])\s+", r"\1", re.sub(r"\s+([)%])", r"\1", cell.strip()))


def readable_row(line: str) -> str:
    """A quoted table row (``"Label | v1 | v2 (h1 | h2; caption)"``, see ``TableRow.quote``)
    as ``"Label: v1 (h1); v2 (h2) — caption"``; any other line unchanged."""
    head = row_core(line)
    if not is_table_line(head):
        return line
    extra = line.rstrip().rstrip(".")[len(head):].strip()
    extra = extra[1:-1] if extra.startswith("(") and extra.endswith(")") else extra
    headings, _, caption = extra.partition("; ")
    if headings and " | " not in headings and not re.search(r"\d", headings):
        headings, caption = "", extra  # only a caption
    cells = [c.strip() for c in head.split("|")]
    label, values = cells[0], [_figure(c) for c in cells[1:] if c.strip()]
    cols = [c.strip() for c in headings.split("|") if c.strip()] if headings else []
    if cols and len(cols) == len(values):
        body = "; ".join(f"{v} ({c})" for v, c in zip(values, cols, strict=True))
    else:
        body = "; ".join(values) + (f" ({headings})" if headings else "")
    return f"{label}: {body}" + (f" — {caption}" if caption else "")


def best_per_source(rec: StepRecord, known: Callable[[str], bool]
                    ) -> list[tuple[str, str]]:
    """``(line, evidence id)``: the first (best) context line of each known source, in the
    order the sources first appear, at most ``PER_PART``."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for text, ids in context_lines(rec.context):
        source = next((i for i in ids if known(i)), None)
        if source is None or source in seen:
            continue
        seen.add(source)
        out.append((text, source))
        if len(out) >= PER_PART:
            break
    return out


def is_heading(line: str) -> bool:
    """A heading or a question (``"Results of operations: what drove revenue?"``) says what a
    passage is about, not what it states: quoted only when a source has nothing else."""
    text = line.strip()
    return text.endswith("?") or (len(text.split()) <= 8 and not re.search(r"[.!\d]", text))


def part_lines(rec: StepRecord, n_of: dict[str, int], used: list[str]) -> list[str]:
    """The step's quoted lines, each ``"<line> [n]"``; a line that says (nearly) the same as
    one already in the answer is skipped (its source then gives its next line, if any)."""
    out: list[str] = []
    taken: set[str] = set()
    lines = context_lines(rec.context)
    for _, source in best_per_source(rec, n_of.__contains__):
        own = [text for text, ids in lines if source in ids]
        ranked = [t for t in own if not is_heading(t)] + [t for t in own if is_heading(t)]
        for text in ranked:
            if any(near_duplicate(text, u) for u in used):
                continue
            used.append(text)
            taken.add(source)
            quoted = readable_row(text).rstrip().rstrip(";,").rstrip()  # a list item's ";"
            end = "" if quoted.endswith((".", "!", "?", "”", '"')) else "."
            out.append(f"{quoted}{end} [{n_of[source]}]")
            break
    return out


_GENERIC = frozenset("""company companies business businesses its their it they we our us what
    which who whom how does do did is are was were has have had be been being the a an of in on
    for to and or primary primarily main mainly major key subject any there this that these those
    fiscal year years filing report according based state explain describe""".split())


def answer_first(lines: list[str], question: str, names: str = "") -> list[str]:
    """``lines`` with the one that answers ``question`` first: most of the question's own
    words (company names and question words aside), a sentence before a table row or a
    heading; among equals, the better-ranked (earlier) line."""
    from core.agent.roles.sentences import terms

    asked = terms(question) - terms(" ".join(_GENERIC)) - terms(names)
    if len(lines) < 2 or not asked:
        return lines

    def score(k: int) -> tuple:
        line = re.sub(r"\[\d+\]", "", lines[k])
        plain = not is_table_line(row_core(line)) and not is_heading(line)
        return (len(asked & terms(line)) if plain else -1, plain, -k)

    best = max(range(len(lines)), key=score)
    return [lines[best], *lines[:best], *lines[best + 1:]]
