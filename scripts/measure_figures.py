"""Figure questions answered from a corpus's facts, offline, no LLM: the share right.

    PYTHONPATH=. .venv/bin/python scripts/measure_figures.py \\
        ../shared/benchmarks/financebench-10k-dev --data-dir /work/tmp/fb10k [--limit N] [-v]
    ... --non-metric   # what is read from the questions that ask for no figure

Questions: FinanceBench ``questions.jsonl`` rows of question_type "metrics-generated";
Docugami ``qna_data.csv`` rows of Source Chunk Type "Table". Each is read with
``core.figures.question.parse_figure_question`` against the corpus's documents and answered
with ``core.figures.compute.answer_figure`` from its facts; the first sentence is
``core.figures.statement.figure_sentence``.

Right (FinanceBench): the figure stated, in the unit asked (no rescaling: "in USD billions"
must be stated in billions) and with its sign, is within 1% of the reference or within
the reference's rounding (half a unit of its last decimal). Docugami references are prose:
right when one of the reference's figures matches the stated one that way (amounts compared
in millions and billions).

The corpus is only read: the SQLite registry is copied (SQLite backup from a read-only
connection) to a temporary folder before it is opened.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path

_NUMBER = re.compile(r"(?<![A-Za-z0-9.])[-\u2212(]?\$?\s?(\d[\d,]*(?:\.\d+)?|\.\d+)\)?"
                     r"(?![A-Za-z\d])")


def load_questions(folder: Path, non_metric: bool = False) -> list[dict]:
    """The figure questions of a benchmark folder; ``non_metric``: FinanceBench's other
    questions instead (those that ask for no single reported figure)."""
    jsonl = folder / "questions.jsonl"
    if jsonl.exists():
        rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        return [{"id": r["id"].replace("financebench_id_", "fb"), "question": r["question"],
                 "answer": r["answer"], "doc": r.get("doc", ""), "kind": "financebench"}
                for r in rows if (r.get("question_type") == "metrics-generated") != non_metric]
    table = folder / "qna_data.csv"
    with table.open(encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    return [{"id": f"dg{i:03d}", "question": r["Question"], "answer": r["Answer"],
             "doc": r["Source Docs"], "kind": "docugami"}
            for i, r in enumerate(rows) if r["Source Chunk Type"].strip().lower() == "table"]


def numbers(text: str) -> list[tuple[float, int]]:
    """``[(value, decimals)]`` of the figures in ``text`` (signs kept; '3M', 'FY2018',
    'Q3' are words, not figures)."""
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group(1).replace(",", "")
        whole = m.group(0)
        negative = whole.startswith(("-", "\u2212", "(")) and not whole.startswith("$")
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        value = float(raw)
        out.append((-value if negative else value, decimals))
    return out


def close(ours: float, ref: float, ref_decimals: int) -> bool:
    return abs(ours - ref) <= max(abs(ref) * 0.01, 0.5 * 10 ** -ref_decimals + 1e-9)


def right_financebench(value: float | None, reference: str) -> bool:
    refs = numbers(reference)
    if value is None or not refs:
        return False
    ref, decimals = refs[0]
    return close(value, ref, decimals)


def right_docugami(value: float | None, unit: str, reference: str) -> bool:
    if value is None:
        return False
    candidates = [value]
    if unit.startswith("USD"):
        base = value * {"USD": 1, "USD thousands": 1e3, "USD millions": 1e6,
                        "USD billions": 1e9}.get(unit, 1)
        candidates = [base / 1e6, base / 1e9, base / 1e3]
    return any(close(c, ref, d) for c in candidates for ref, d in numbers(reference)
               if ref not in (2022.0, 2023.0, 2024.0))


def open_registry(data_dir: Path):
    """A read-only view of the corpus: the SQLite registry backed up to a temp folder."""
    source = data_dir / "registry.sqlite"
    if not source.exists():
        from core.foundation.config import Settings
        from core.store.storage import storage_for

        return storage_for(Settings(data_dir=data_dir)).registry()
    from core.store.documents import SqliteRegistry

    copy = Path(tempfile.mkdtemp(prefix="measure-figures-")) / "registry.sqlite"
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(str(copy))
    src.backup(dst)
    src.close()
    dst.close()
    return SqliteRegistry(copy)


def measure(questions: list[dict], store, documents, verbose: bool = False) -> list[dict]:
    from core.figures.compute import answer_figure
    from core.figures.question import parse_figure_question
    from core.figures.statement import figure_sentence

    rows = []
    for q in questions:
        request = parse_figure_question(q["question"], documents, store)
        row = {"id": q["id"], "doc": q["doc"], "reference": q["answer"], "request": None,
               "stated": "", "value": None, "right": False, "sentence": ""}
        if request is not None:
            result = answer_figure(request, store)
            company = request.companies[0] if request.companies else ""
            sentence = figure_sentence(result, company, lambda _c: "[n]")
            row.update(request=request.formula, unit=request.unit, value=result.value,
                       stated=result.display or ("missing: " + "; ".join(result.missing)),
                       sentence=sentence)
            row["right"] = (right_financebench(result.value, q["answer"])
                            if q["kind"] == "financebench" else
                            right_docugami(result.value, request.unit or "", q["answer"]))
            if verbose:
                row["work"] = result.work
                row["notes"] = result.notes
        rows.append(row)
    return rows


def print_table(rows: list[dict], verbose: bool) -> None:
    print("| id | filing | formula asked | stated | reference | right |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        ref = " ".join(r["reference"].split())
        ref = ref if len(ref) <= 40 else ref[:37] + "..."
        formula = r["request"] or "(no figure read)"
        formula = formula if len(formula) <= 90 else formula[:87] + "..."
        print(f"| {r['id']} | {r['doc']} | `{formula}` | {r['stated']} | {ref} | "
              f"{'yes' if r['right'] else 'no'} |")
        if verbose and r.get("work"):
            print(f"|  |  | {r['work']} | {r['sentence']} |  |  |")
    n = len(rows)
    right = sum(r["right"] for r in rows)
    read = sum(r["request"] is not None for r in rows)
    stated = sum(r["value"] is not None for r in rows)
    print(f"\nfigure read {read}/{n}; a figure stated {stated}/{n}; "
          f"right {right}/{n} = {right / n:.0%}" if n else "no questions")


def print_parsed(questions: list[dict], documents) -> None:
    """What ``parse_figure_question`` reads from each question (precision check on the
    questions that ask for no figure: each line that parses would lead an answer)."""
    from core.figures.question import parse_figure_question

    print("| id | question | request |")
    print("| --- | --- | --- |")
    read = 0
    for q in questions:
        request = parse_figure_question(q["question"], documents)
        text = " ".join(q["question"].split())
        text = text if len(text) <= 110 else text[:107] + "..."
        if request is None:
            shown = "(none)"
        else:
            read += 1
            shown = f"`{request.formula}`" + (f" ({request.unit})" if request.unit else "")
        print(f"| {q['id']} | {text} | {shown} |")
    print(f"\na request read for {read}/{len(questions)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--non-metric", action="store_true",
                        help="FinanceBench: list what is read from the questions that are "
                        "not metric questions (no answering)")
    args = parser.parse_args(argv)
    questions = load_questions(args.folder, args.non_metric)[: args.limit or None]
    registry = open_registry(args.data_dir)
    if args.non_metric:
        print_parsed(questions, registry.documents())
        return 0
    if not hasattr(registry, "facts"):
        print("This corpus's registry has no facts (ingested before issue 18): run "
              "`python -m core facts --rebuild` on it first.", file=sys.stderr)
        return 2
    rows = measure(questions, registry, registry.documents(), args.verbose)
    print_table(rows, args.verbose)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
