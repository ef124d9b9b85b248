"""Where evaluations live: ``settings.data_dir/evals/<id>/``.

    manifest.json                 what ran (EvalManifest)
    questions.jsonl               the question set as it was run
    results/<system>/<qid>.json   one QuestionResult per question and system
    retrieval/<strategy>/<qid>.json  one RetrievalResult per question and strategy
    summary.json                  aggregates (EvalSummary)

Each result file is written atomically as soon as it is computed, so a killed
evaluation resumes where it stopped. Ranked lists are cached across evaluations
under ``evals/_cache/retrieval/<key>.json``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from core.evaluation.results import EvalManifest, EvalSummary, QuestionResult, RetrievalResult
from core.foundation.config import Settings
from core.foundation.errors import AppError

M = TypeVar("M", bound=BaseModel)
_EVAL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
CACHE = "_cache"


def evals_dir(settings: Settings) -> Path:
    return settings.data_dir / "evals"


def new_eval_id(set_name: str) -> str:
    """``<set>-<UTC time>``, e.g. ``sample-20250101-120000``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]", "-", set_name).strip("-.") or "eval"
    return f"{stem[:40]}-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"


def eval_dir(settings: Settings, eval_id: str) -> Path:
    """The folder of evaluation ``eval_id``; raises AppError for an unsafe id."""
    if not _EVAL_ID.match(eval_id or "") or eval_id == CACHE:
        raise AppError(f"Invalid evaluation name {eval_id!r}: use letters, digits, '_', '.' "
                       "or '-' (at most 80).")
    return evals_dir(settings) / eval_id


def strategy_dir(name: str) -> str:
    """A file-safe folder name for a strategy ('hybrid+rerank' -> 'hybrid_rerank')."""
    return name.replace("+", "_")


def write_model(path: Path, model: BaseModel) -> None:
    """Write ``model`` as JSON atomically (temp file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(model.model_dump_json(indent=1), encoding="utf-8")
    tmp.replace(path)


def read_model(path: Path, cls: type[M]) -> M | None:
    """The model saved at ``path``; None when missing or unreadable (e.g. cut by a kill)."""
    try:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError):
        return None


def result_path(folder: Path, system: str, qid: str) -> Path:
    return folder / "results" / system / f"{qid}.json"


def retrieval_path(folder: Path, strategy: str, qid: str) -> Path:
    return folder / "retrieval" / strategy_dir(strategy) / f"{qid}.json"


def load_results(folder: Path) -> list[QuestionResult]:
    """Every saved question result of an evaluation folder."""
    out = []
    for path in sorted((folder / "results").glob("*/*.json")):
        r = read_model(path, QuestionResult)
        if r is not None:
            out.append(r)
    return out


def load_retrieval(folder: Path) -> list[RetrievalResult]:
    """Every saved retrieval result of an evaluation folder."""
    out = []
    for path in sorted((folder / "retrieval").glob("*/*.json")):
        r = read_model(path, RetrievalResult)
        if r is not None:
            out.append(r)
    return out


class SavedEval(BaseModel):
    """An evaluation as saved: manifest, summary and every result."""

    manifest: EvalManifest
    summary: EvalSummary | None = None
    results: list[QuestionResult] = []
    retrieval: list[RetrievalResult] = []


def load_eval(settings: Settings, eval_id: str) -> SavedEval:
    """A saved evaluation; raises AppError when there is none."""
    folder = eval_dir(settings, eval_id)
    manifest = read_model(folder / "manifest.json", EvalManifest)
    if manifest is None:
        raise AppError(f"No saved evaluation {eval_id!r} under {evals_dir(settings)}.")
    ids = question_ids(folder)
    results = [r for r in load_results(folder)
               if r.system in manifest.systems and (ids is None or r.question_id in ids)]
    retrieval = [r for r in load_retrieval(folder)
                 if r.strategy in manifest.strategies and (ids is None or r.question_id in ids)]
    return SavedEval(manifest=manifest, summary=read_model(folder / "summary.json", EvalSummary),
                     results=results, retrieval=retrieval)


def question_ids(folder: Path) -> set[str] | None:
    """Ids of the questions an evaluation ran (None when its copy of the set is missing)."""
    import json

    path = folder / "questions.jsonl"
    if not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    return {json.loads(line).get("id", "") for line in lines if line.strip()}


def list_evals(settings: Settings) -> list[EvalManifest]:
    """Manifests of the saved evaluations, newest first."""
    root = evals_dir(settings)
    if not root.is_dir():
        return []
    out = [m for p in root.glob("*/manifest.json")
           if (m := read_model(p, EvalManifest)) is not None]
    return sorted(out, key=lambda m: (m.created, m.id), reverse=True)
