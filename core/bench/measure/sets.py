"""Benchmark question sets, read from where they live (never copied into the project).

Three layouts are recognised by what a folder or file holds:

* **FinanceBench** (a folder with ``questions.jsonl`` and ``pdfs/``): one JSON object a
  line with ``id, doc, question, evidence[*].page_index`` (0-based physical page of
  ``pdfs/<doc>.pdf``). Gold: those pages.
* **Docugami KG-RAG** (a folder with ``qna_data.csv`` and ``pdfs/``): ``Question``,
  ``Source Docs`` (a glob such as ``*AAPL*``), ``Question Type``, ``Source Chunk Type``,
  ``Answer``. No page gold: the answer's figures and sentences are the facts a retrieved
  chunk must contain (see ``core.bench.measure.judge``).
* **Project JSONL** (a ``.jsonl`` file and ``--filings DIR``): ``id, question, file,
  pages`` (1-based physical) and ``evidence`` snippets.
"""

from __future__ import annotations

import csv
import fnmatch
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.store.tokenize import tokenize


@dataclass
class BenchQuestion:
    """One question with its gold: pages per file, evidence snippets, or answer facts."""

    id: str
    question: str
    files: list[str]
    pages: dict[str, list[int]] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)
    sentences: list[list[str]] = field(default_factory=list)
    kind: str = ""

    @property
    def gold(self) -> str:
        """'pages', 'evidence' or 'facts': what a hit is judged on."""
        if self.pages:
            return "pages"
        return "evidence" if self.evidence else "facts"


@dataclass
class BenchSet:
    """A question set and the folder holding its files."""

    name: str
    questions: list[BenchQuestion]
    files_dir: Path
    skipped: int = 0

    @property
    def files(self) -> list[str]:
        """Every file any question needs, in first-use order."""
        return list(dict.fromkeys(f for q in self.questions for f in q.files))


def load_set(path: str | Path, filings: str | Path | None = None) -> BenchSet:
    """The benchmark at ``path`` (a FinanceBench or Docugami folder, or a project JSONL)."""
    p = Path(path)
    if p.is_dir() and (p / "questions.jsonl").is_file():
        return load_financebench(p)
    if p.is_dir() and (p / "qna_data.csv").is_file():
        return load_docugami(p)
    if p.is_file() and p.suffix == ".jsonl":
        if filings is None:
            raise ValueError(f"{p} needs --filings DIR: the folder holding its files")
        return load_project_jsonl(p, Path(filings))
    raise ValueError(
        f"{p} is not a benchmark: expected a folder with questions.jsonl or qna_data.csv "
        "(and pdfs/), or a .jsonl question file"
    )


def load_financebench(folder: Path) -> BenchSet:
    questions = []
    for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        name = f"{row['doc']}.pdf"
        pages = sorted({int(e["page_index"]) + 1 for e in row.get("evidence") or []})
        questions.append(BenchQuestion(
            id=row["id"], question=row["question"], files=[name], pages={name: pages},
            kind=row.get("question_type", ""),
        ))
    return BenchSet(folder.name, questions, folder / "pdfs")


_SOURCE = re.compile(r"\(?\bSOURCE(?:\(S\)|S)?\s*:[^)\n]*\)?", re.I)
_MONTHS = frozenset("""january february march april may june july august september october
    november december""".split())
_NUMBER = re.compile(r"(?<![\w.])\$?\(?(\d[\d,]*(?:\.\d+)?)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
MIN_SENTENCE_TERMS = 6


def answer_figures(answer: str) -> list[str]:
    """Distinctive numbers of an answer as digit strings ("$82,959 million" -> "82959").

    Years, and numbers with fewer than three significant digits or of the form d00
    ("100", "2,000"), are left out: they occur everywhere in a filing.
    """
    out: list[str] = []
    for raw in _NUMBER.findall(_SOURCE.sub("", answer)):
        digits = raw.replace(",", "").replace(".", "").lstrip("0")
        whole = raw.replace(",", "").split(".")[0]
        if len(digits) < 3 or re.fullmatch(r"(19|20)\d\d", whole):
            continue
        if re.fullmatch(r"\d0+", digits):
            continue
        out.append(digits)
    return list(dict.fromkeys(out))


def answer_sentences(answer: str, question: str) -> list[list[str]]:
    """The answer's sentences as content words, minus the question's own words, numbers
    (judged as figures) and month names (dates are on every page)."""
    asked = set(tokenize(question))
    out = []
    for sentence in _SENTENCE.split(_SOURCE.sub("", answer)):
        terms = [t for t in dict.fromkeys(tokenize(sentence))
                 if t not in asked and t[0].isalpha() and t not in _MONTHS]
        if len(terms) >= MIN_SENTENCE_TERMS:
            out.append(terms)
    return out


def load_docugami(folder: Path) -> BenchSet:
    pdfs = sorted(p.name for p in (folder / "pdfs").glob("*.pdf"))
    questions = []
    with (folder / "qna_data.csv").open(encoding="utf-8-sig", newline="") as fh:
        for i, row in enumerate(csv.DictReader(fh), start=1):
            pattern = row["Source Docs"].strip()
            files = [n for n in pdfs if fnmatch.fnmatch(n, pattern)]
            if not files:
                raise ValueError(f"qna_data.csv row {i}: no PDF matches {pattern!r}")
            answer, question = row["Answer"], row["Question"].strip()
            questions.append(BenchQuestion(
                id=f"docugami-{i:03d}", question=question, files=files,
                figures=(figures := answer_figures(answer)),
                sentences=[] if figures else answer_sentences(answer, question),
                kind=f"{row['Question Type'].strip()} / {row['Source Chunk Type'].strip()}",
            ))
    judged = [q for q in questions if q.figures or q.sentences]
    return BenchSet(folder.name, judged, folder / "pdfs", skipped=len(questions) - len(judged))


def load_project_jsonl(path: Path, filings: Path) -> BenchSet:
    questions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        name = row["file"]
        questions.append(BenchQuestion(
            id=row["id"], question=row["question"], files=[name],
            pages={name: list(row.get("pages") or [])} if row.get("pages") else {},
            evidence=list(row.get("evidence") or []), kind=row.get("topic", ""),
        ))
    return BenchSet(path.stem, questions, filings)
