"""Question sets: JSONL files of questions with optional reference answers and gold evidence.

One JSON object per line (blank lines and lines starting with ``#`` are skipped)::

    {"id": "revenue", "question": "What was total revenue in fiscal 2024?",
     "ground_truth": "$2,184.6 million, up 43%.",
     "gold": [{"document": "northwind-10k-fy2024.htm", "section": "Item 8",
               "text": "Revenue | $ 2,184.6 | $ 1,527.3"}],
     "tags": ["figure"]}

Analysis questions may give the reference ``verdict`` (a company's name for "which is
higher", the names in order for a ranking, "yes" / "no") and the reference ``figures`` by
subject; ``core.evaluation.analysis_scores`` scores both::

    {"id": "om-compare", "question": "Which had the higher operating margin, A or B?",
     "verdict": "B", "figures": {"A": 31.3, "B": 32.1}, "tags": ["compare"]}

``gold`` items name a ``document`` (a filing's file name or doc id, or a web
snapshot article's file name or URL) and at least one of ``page``, ``section``
or ``text``. Every gold item is a piece of evidence the answer needs; when a fact
appears in several places, give text that occurs in each (e.g. a figure with its
row label). A malformed set raises ``QuestionSetError`` naming every line and
field at fault, e.g. ``line 3: field 'gold[0].page': Input should be a valid integer``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from core.foundation.errors import AppError

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class QuestionSetError(AppError):
    """A question set could not be read; ``problems`` lists each fault with its line."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        shown = "\n".join(f"  {p}" for p in problems[:20])
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{source} is not a valid question set:\n{shown}{more}")


class GoldEvidence(BaseModel):
    """A piece of evidence the answer needs, located in a filing or a web article."""

    model_config = ConfigDict(extra="forbid")

    document: str = Field(min_length=1, description="File name or doc id (or article file/URL).")
    page: int | None = Field(default=None, ge=1, description="1-based page (PDF filings).")
    section: str | None = Field(default=None, description="Section title or Item, e.g. 'Item 1A'.")
    text: str | None = Field(default=None, description="Verbatim evidence text (short).")

    @model_validator(mode="after")
    def _locates_something(self) -> GoldEvidence:
        if self.page is None and not (self.section or "").strip() and not (self.text or "").strip():
            raise ValueError("give at least one of page, section or text")
        return self


class EvalQuestion(BaseModel):
    """One question of a set."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default="", description="Stable id (letters, digits, _ . -); default q<line>.")
    question: str = Field(min_length=1, description="The question as an analyst asks it.")
    ground_truth: str | None = Field(default=None, description="Reference answer, if known.")
    gold: list[GoldEvidence] = Field(default_factory=list, description="Gold evidence items.")
    tags: list[str] = Field(default_factory=list, description="Free labels, e.g. 'figure'.")
    verdict: str | list[str] | None = Field(
        default=None, description="Reference verdict of an analysis question: the company "
        "named (compare, pick), the names in order (rank), 'yes' or 'no'.")
    figures: dict[str, float] = Field(
        default_factory=dict, description="Reference figures by subject (company, measure "
        "or segment), in the unit the question asks ('Adobe': 31.3 for 31.3%).")

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value.strip()

    @field_validator("id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        if value and not _ID.match(value):
            raise ValueError("use 1-64 letters, digits, '_', '.' or '-' (it names result files)")
        return value


class QuestionSet(BaseModel):
    """A loaded set: its name, where it came from, the questions and a content hash."""

    name: str
    source: str = ""
    questions: list[EvalQuestion]
    sha: str = Field(default="", description="sha256 of the questions (first 16 hex digits).")


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _messages(line_no: int, exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors():
        where = _loc(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field (allowed: id, question, ground_truth, gold, tags, verdict, " \
                  "figures; gold items: document, page, section, text)"
        out.append(f"line {line_no}: field '{where}': {msg}" if where
                   else f"line {line_no}: {msg}")
    return out


def parse_question_set(text: str, *, name: str, source: str = "") -> QuestionSet:
    """Parse JSONL ``text``; raises ``QuestionSetError`` listing every faulty line and field."""
    questions: list[EvalQuestion] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {line_no}: not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(data, dict):
            problems.append(f"line {line_no}: expected a JSON object, got {type(data).__name__}")
            continue
        try:
            q = EvalQuestion.model_validate(data)
        except ValidationError as exc:
            problems.extend(_messages(line_no, exc))
            continue
        if not q.id:
            q.id = f"q{line_no}"
        if q.id in seen:
            problems.append(f"line {line_no}: field 'id': {q.id!r} is already used on line "
                            f"{seen[q.id]}")
            continue
        seen[q.id] = line_no
        questions.append(q)
    if not questions and not problems:
        problems.append("line 1: the set holds no question (one JSON object per line)")
    if problems:
        raise QuestionSetError(source or name, problems)
    digest = hashlib.sha256("\n".join(q.model_dump_json() for q in questions).encode())
    return QuestionSet(name=name, source=source, questions=questions, sha=digest.hexdigest()[:16])


def load_question_set(path: str | Path) -> QuestionSet:
    """Read a JSONL question set from ``path`` (see the module docstring)."""
    p = Path(path)
    if not p.is_file():
        raise QuestionSetError(str(p), ["file not found; give the path of a .jsonl question set"])
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise QuestionSetError(str(p), ["the file is not UTF-8 text"]) from None
    return parse_question_set(text, name=p.stem, source=str(p))


def shipped_sets(folder: Path) -> list[Path]:
    """The question sets shipped under ``folder`` (``data/questions``), by name."""
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
