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
from dataclasses import dataclass

from core.agent.roles.distill import context_lines
from core.agent.roles.quotable import is_fragment, same_quote, verbatim, with_its_list
from core.agent.roles.sentences import is_table_line, row_core
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


@dataclass
class Quote:
    """One quoted line of a part: its text as shown (a table row made readable, closing
    punctuation added), its source's evidence id and number."""

    text: str
    source: str
    n: int
    table: bool = False
    own_words: bool = True
    """The source's own words (quoted in quotation marks); False: an LLM distiller's line."""

    def cited(self) -> str:
        return f"{self.text} [{self.n}]"


def part_quotes(rec: StepRecord, n_of: dict[str, int], used: list[str],
                text_of: Callable[[str], str | None] | None = None) -> list[Quote]:
    """The step's quotes: per source (``best_per_source``) its best whole sentence or table
    row; fragments and headings are never quoted (a list's introduction is, with its items,
    when ``text_of(evidence id)`` gives the chunk that holds them: ``with_its_list``), and a
    line that says (nearly) what one already in the answer says is skipped (its source then
    gives its next line, if any)."""
    out: list[Quote] = []
    lines = context_lines(rec.context)
    for _, source in best_per_source(rec, n_of.__contains__):
        own = [text for text, ids in lines if source in ids]
        chunk = text_of(source) if text_of is not None else None
        for text in own:
            listed = with_its_list(text, chunk) if is_fragment(text, chunk) else None
            text = listed or text
            mine = listed is not None or verbatim(text, chunk)  # the filing's own words
            heading = is_heading(text) if mine else text.rstrip().endswith("?")
            if heading or is_fragment(text, chunk) or any(same_quote(text, u) for u in used):
                continue  # (a short line of an LLM's own is a fact, not a heading)
            used.append(text)
            table = is_table_line(row_core(text))
            quoted = readable_row(text).rstrip().rstrip(";,").rstrip()  # a list item's ";"
            end = "" if quoted.endswith((".", "!", "?", "”", '"')) else "."
            out.append(Quote(f"{quoted}{end}", source, n_of[source], table, mine))
            break
    return out


def part_lines(rec: StepRecord, n_of: dict[str, int], used: list[str],
               label: Callable[[str], str] | None = None) -> list[str]:
    """``part_quotes`` as lines ``"<line> [n]"``, each introduced by ``label(evidence id)``
    when given (``"NVIDIA: “We expect ...” [3]"``)."""
    return [said(q, label(q.source)) if label else q.cited()
            for q in part_quotes(rec, n_of, used)]


def said(q: Quote, who: str) -> str:
    """A quote with its speaker: ``NVIDIA: “We expect ...” [3]`` (a table row unquoted)."""
    if q.table or not q.own_words:
        return f"{who}: {q.text} [{q.n}]"
    return f"{who}: “{q.text}” [{q.n}]"


_CONNECTIVE = re.compile(r"^\W*(?:accordingly|as a result|however|in addition|additionally|"
                         r"also|therefore|thus|consequently|moreover|furthermore|similarly|"
                         r"for example|for instance|this|these|such)\b", re.IGNORECASE)
"""An opening that leans on the sentence before it: a speaker's opening quote is one that
does not, where the speaker has one."""


def _inline(q: Quote) -> str:
    """A quote inside a sentence: its closing full stop dropped."""
    return q.text[:-1] if q.text.endswith(".") else q.text


def opening(quotes: list[Quote], who: Callable[[str], str],
            most: int = 3) -> tuple[str, list[Quote]]:
    """``(sentence, quotes it used)``: one sentence saying what each speaker's best quote
    says ("NVIDIA says “...” [1]; AMD says “...” [2]."), the speakers in the order their
    best quotes come, at most ``most``; ``quotes`` are ranked best first."""
    firsts: dict[str, Quote] = {}
    for q in sorted(quotes, key=lambda q: bool(_CONNECTIVE.match(q.text))):  # stable
        firsts.setdefault(who(q.source), q)
    order = {who(q.source): k for k, q in reversed(list(enumerate(quotes)))}
    firsts = dict(sorted(firsts.items(), key=lambda kv: order[kv[0]]))
    chosen = list(firsts.items())[:most]
    parts = [f"{name} reports {_inline(q)} [{q.n}]" if q.table
             else f"{name}: {_inline(q)} [{q.n}]" if not q.own_words
             else f"{name} says “{_inline(q)}” [{q.n}]" for name, q in chosen]
    return "; ".join(parts) + ".", [q for _, q in chosen]


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


def rank_quotes(quotes: list[Quote], question: str, names: str = "") -> list[Quote]:
    """``quotes`` with the one that answers ``question`` first (``answer_first``)."""
    if len(quotes) < 2:
        return quotes
    order = answer_first([f"{q.text} [{k}]" for k, q in enumerate(quotes)], question, names)
    return [quotes[int(re.findall(r"\[(\d+)\]", line)[-1])] for line in order]


def more_speakers(rec: StepRecord, quotes: list[Quote], text_of: Callable[[str], str | None],
                  n_of: dict[str, int], who: Callable[[str], str], used: list[str],
                  names: str = "") -> list[Quote]:
    """A quote for each company whose filing the step kept but that ``quotes`` leave silent
    (its distilled lines were all fragments or pointers): the whole sentence of its best
    evidence (``text_of(evidence id)``: a filing chunk's text, None for web results) sharing
    most of the sub-question's own words; none when no sentence shares any."""
    from core.agent.roles.sentences import overlap, query_terms, sentences, terms

    have = {who(q.source) for q in quotes}
    asked = query_terms(rec.sub_question) - terms(" ".join(_GENERIC)) - terms(names)
    out: list[Quote] = []
    for evidence_id in rec.evidence_ids:
        text = text_of(evidence_id) if evidence_id in n_of else None
        if not text or not asked or who(evidence_id) in have:
            continue
        said = [with_its_list(s, text) or s for s in sentences(text)]
        scored = [(overlap(asked, s), -k, s) for k, s in enumerate(said)
                  if not is_table_line(s) and not is_heading(s) and not is_fragment(s, text)
                  and not any(same_quote(s, u) for u in used)]
        best = max(scored, default=None)
        if best is None or best[0] <= 0:
            continue
        used.append(best[2])
        have.add(who(evidence_id))
        quoted = best[2].rstrip().rstrip(";,").rstrip()
        end = "" if quoted.endswith((".", "!", "?", "”", '"')) else "."
        out.append(Quote(f"{quoted}{end}", evidence_id, n_of[evidence_id]))
    return out
