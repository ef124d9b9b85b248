"""The Markdown report of a run: what was asked, the plan (and how the analyst changed it),
the research, the answer and its sources.

Evidence is untrusted: its text can carry images, HTML and links that a Markdown viewer
would load or make clickable. ``inert`` strips that active content (images become their
alt text, HTML tags are dropped, links keep their words and lose their targets, bare
addresses are shown as inert code), and every text that came from evidence or a model
goes through it. Source addresses are listed as code, demo articles labelled as such.
"""

from __future__ import annotations

import re
from typing import Any

from core.agent.state import Evidence, PlanStep
from core.app.table_grid import table_grid

_TARGET = r"\((?:[^()]|\([^()]*\))*\)"  # (url), one level of nested brackets allowed
_IMAGE = re.compile(r"!\[([^\]]*)\]\s*(" + _TARGET + r"|\[[^\]]*\])")
_BLOCK = re.compile(r"<(script|style|iframe|object|embed|svg|noscript)\b.*?(</\1\s*>|\Z)",
                    re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"</?[A-Za-z!?][^<>]*>|<!--.*?-->", re.DOTALL)
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto|javascript|data):[^<>\s]*)>", re.IGNORECASE)
_LINK = re.compile(r"\[([^\]]*)\]\s*" + _TARGET)
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE)
_REF_LINK = re.compile(r"\[(?!\d+\]\[\d+\])([^\]]+)\]\[[^\]]*\]")  # never citations: [2][3]
_BARE = re.compile(r"\b(?:(?:https?|ftp|javascript|data|file):|www\.)[^\s<>()\[\]`]+",
                   re.IGNORECASE)


def _host(url: str) -> str:
    """The host, without 'www.' (which GitHub's Markdown would turn back into a link)."""
    m = re.match(r"(?:[a-z]+:/*)?(?:www\.)?([^/\s?#]+)", url, re.IGNORECASE)
    return m.group(1) if m else "link"


def inert(text: str | None) -> str:
    """``text`` with no active Markdown/HTML content left (see the module docstring)."""
    if not text:
        return ""
    out = _BLOCK.sub("", text)
    out = _AUTOLINK.sub(lambda m: f"(link to {_host(m.group(1))} removed)", out)
    out = _IMAGE.sub(lambda m: f"(image{': ' + m.group(1).strip() if m.group(1).strip() else ''}"
                     " removed)", out)
    out = _TAG.sub("", out)
    out = _LINK.sub(lambda m: m.group(1), out)
    out = _REF_DEF.sub("", out)
    out = _REF_LINK.sub(lambda m: m.group(1), out)
    out = _BARE.sub(lambda m: f"(link to {_host(m.group(0))} removed)", out)
    return out.replace("<", "&lt;").replace(">", "&gt;")


def _code(text: str) -> str:
    """Inline code that no backtick in ``text`` can close early."""
    text = " ".join(str(text).split()).replace("`", "'")
    return f"`{text}`"


def _scope(step: PlanStep, names: dict[str, str]) -> str:
    return ", ".join(names.get(d, d) for d in step.doc_ids) or "every filing"


_FIELDS = (("metric", "measure"), ("member", "segment"), ("formula", "formula"),
           ("unit", "unit"), ("decimals", "decimals"))
_ANALYSIS = (("kind", "analysis"), ("name", "measure compared"), ("direction", "direction"),
             ("test", "test"), ("threshold", "threshold"), ("criterion", "criterion"))


def _value(v: Any) -> str:
    if v is None or v == "" or v == []:
        return "none"
    return ", ".join(map(str, v)) if isinstance(v, list | tuple) else str(v)


def _field_changes(before: PlanStep, after: PlanStep) -> list[str]:
    """Look-up, compute and analyze settings the analyst changed: 'measure revenue →
    net_income', 'periods FY2022, FY2023 → FY2023, FY2024'."""
    out = []
    for name, words in _FIELDS:
        old, new = getattr(before, name, None), getattr(after, name, None)
        if (old or None) != (new or None):
            out.append(f"{words} {_value(old)} → {_value(new)}")
    if list(getattr(before, "periods", []) or []) != list(getattr(after, "periods", []) or []):
        out.append(f"periods {_value(before.periods)} → {_value(after.periods)}")
    a, b = getattr(before, "analysis", None), getattr(after, "analysis", None)
    if a != b:
        if a is None or b is None:
            out.append(f"analysis {a.kind if a else 'none'} → {b.kind if b else 'none'}")
        else:
            out += [f"{words} {_value(getattr(a, n, None))} → {_value(getattr(b, n, None))}"
                    for n, words in _ANALYSIS if getattr(a, n, None) != getattr(b, n, None)]
            if a.absent != b.absent:
                out.append(f"companies not loaded {_value(a.absent)} → {_value(b.absent)}")
    return out


def _changes(before: PlanStep, after: PlanStep, names: dict[str, str]) -> list[str]:
    out = []
    if before.sub_question.strip() != after.sub_question.strip():
        out.append(f"sub-question was “{inert(before.sub_question)}”")
    if before.tool != after.tool:
        out.append(f"tool {tool_words(before.tool)} → {tool_words(after.tool)}")
    if sorted(before.doc_ids) != sorted(after.doc_ids):
        what = "companies" if after.is_figure or before.is_figure else "filings"
        out.append(f"{what} {_scope(before, names)} → {_scope(after, names)}")
    if (before.section or None) != (after.section or None):
        out.append(f"section {before.section or 'any'} → {after.section or 'any'}")
    if [k.strip() for k in before.keywords] != [k.strip() for k in after.keywords]:
        out.append(f"keywords {', '.join(before.keywords) or 'none'} → "
                   f"{', '.join(after.keywords) or 'none'}")
    out += _field_changes(before, after)
    deps = [sorted(getattr(s, "depends_on", None) or []) for s in (before, after)]
    if deps[0] != deps[1]:  # plan steps carry depends_on on the agent branch
        out.append("depends on " + " → ".join(
            ", ".join(f"step {d + 1}" for d in ds) or "no step" for ds in deps))
    if not out and before.justification.strip() != after.justification.strip():
        out.append("reason changed")
    return [inert(c) for c in out]


TOOL_WORDS = {"filing_search": "filing search", "web_search": "web search",
              "figure_lookup": "figure look-up", "compute": "computation",
              "analyze": "analysis"}


def tool_words(tool: str) -> str:
    """A plan step's tool in words: 'filing search', 'figure look-up', 'analysis'."""
    return TOOL_WORDS.get(tool, tool.replace("_", " "))


def step_method(record: Any) -> str:
    """How a researched step (a ``StepRecord``) was answered: 'filing search, hybrid',
    'web search', 'figure look-up', 'computation', 'analysis' (never 'web' for a step that
    searched nothing)."""
    tool = getattr(record, "tool", "") or ""
    strategy = getattr(record, "strategy", None)
    if tool == "filing_search" or (not tool and strategy):
        return f"filing search, {strategy}" if strategy else "filing search"
    return tool_words(tool) if tool else "step"


def plan_edits(events: list[Any], names: dict[str, str] | None = None) -> list[str]:
    """What the analyst changed between the proposed and the approved plan, one line per
    step (empty when the plan was approved as proposed or never reviewed)."""
    names = names or {}
    proposed = approved = None
    for e in events:
        kind = getattr(e, "type", None)
        if kind == "plan_proposed" and approved is None:
            proposed = e.plan
        elif kind == "plan_approved" and approved is None:
            approved = e
    if proposed is None or approved is None or not approved.edited:
        return []
    used: set[int] = set()
    lines = []
    for i, step in enumerate(approved.plan):
        same = next((j for j, p in enumerate(proposed) if j not in used and p == step), None)
        if same is not None:
            used.add(same)
            if same != i:
                lines.append(f"step {i + 1}: moved from step {same + 1}, otherwise as proposed")
            continue
        near = next((j for j, p in enumerate(proposed) if j not in used and
                     p.sub_question.strip() == step.sub_question.strip()), None)
        if near is None and i < len(proposed) and i not in used:
            near = i
        if near is None:
            lines.append(f"step {i + 1}: added by the analyst")
            continue
        used.add(near)
        moved = f" (was step {near + 1})" if near != i else ""
        lines.append(f"step {i + 1}{moved}: edited: "
                     + ("; ".join(_changes(proposed[near], step, names))
                        or "saved with no visible change"))
    lines += [f"removed: proposed step {j + 1} “{inert(p.sub_question)}”"
              for j, p in enumerate(proposed) if j not in used]
    return lines


ANALYSIS_HEADER = ["#", "Subject", "Period", "Ends", "Figure", "Inputs", "Source"]
KIND_TITLES = {"compare": "Comparison", "rank": "Ranking", "verdict": "Verdict",
               "multi": "Figures", "criterion": "Criterion", "pick": "Largest / smallest"}


def analysis_title(result: Any) -> str:
    """'Comparison · operating margin'."""
    kind = KIND_TITLES.get(result.spec.kind, result.spec.kind.title())
    return f"{kind} · {result.spec.name}" if result.spec.name else kind


def analysis_rows(result: Any, numbers: dict[str, int]) -> list[list[str]]:
    """The peer table of an ``AnalysisResult`` as text cells (``ANALYSIS_HEADER``): rows in
    the verdict's order, a subject without a figure kept ("not found", with the reason);
    sources as the answer's [n] (a chunk outside its evidence by its id)."""
    out = []
    for i, r in enumerate(result.rows, start=1):
        found = r.value is not None
        rank = r.rank if r.rank is not None else (i if found else None)
        sources = ", ".join(f"[{numbers[c]}]" if c in numbers else c
                            for c in dict.fromkeys(r.chunk_ids))
        out.append([str(rank or ""), r.label or r.company, r.period, r.period_end or "",
                    (r.display or str(r.value)) if found else "not found",
                    r.inputs if found else (r.missing or "not found"), sources])
    return out


def _cell(text: str) -> str:
    return " ".join(inert(text).split()).replace("|", "\\|")


def analysis_markdown(analyses: list[Any], numbers: dict[str, int]) -> list[str]:
    """Lines of the report's Analysis section: per analysis its verdict line, what decided
    it, the peer table, what is missing and the notes."""
    lines: list[str] = []
    for result in analyses:
        verdict = f" — verdict: {inert(result.verdict)}" if result.verdict else " — not decided"
        lines += ["", f"### {inert(analysis_title(result))}{verdict}", ""]
        if result.lead:
            lines += [f"**{inert(result.lead)}**", ""]
        if result.basis:
            lines += [f"Decided by: {inert(result.basis)}", ""]
        lines += ["| " + " | ".join(ANALYSIS_HEADER) + " |",
                  "|" + "---|" * len(ANALYSIS_HEADER)]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |"
                  for row in analysis_rows(result, numbers)]
        lines += [""] + [f"- missing: {inert(m)}" for m in result.missing]
        lines += [f"- note: {inert(n)}" for n in result.notes]
    return lines


def grid_markdown(grid: Any, max_rows: int = 15) -> list[str]:
    """A statement table as a Markdown table: its caption in italics, a header row of the
    filing's column headings, its rows (``max_rows`` at most, the rest counted)."""
    header = [_cell(h) or " " for h in grid.header]
    out = [f"*{_cell(c)}*" for c in grid.caption[-2:]]
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in grid.rows[:max_rows]]
    if len(grid.rows) > max_rows:
        out.append(f"*… and {len(grid.rows) - max_rows} more row(s)*")
    return out


def _source_line(n: int, ev: Evidence, provenance: str) -> str:
    if ev.kind != "web":
        return f"{n}. {inert(ev.label)} — {_code(ev.id)}"
    note = {"demo": " — demo article written for this project; URL unverified",
            "saved": " — saved by the analyst"}.get(provenance, "")
    return f"{n}. {inert(ev.label or ev.title or '')} — {_code(ev.url or ev.id)}{note}"


def render_markdown(record: Any, *, names: dict[str, str] | None = None,
                    provenance: Any = lambda url: "", excerpt_chars: int = 400) -> str:
    """The report (not yet scrubbed of keys; ``core.app.runs.export_markdown`` does that).
    ``names`` maps document ids to filing names, ``provenance(url)`` says whether a web
    source is a demo article ("demo") or one the analyst saved ("saved")."""
    u = record.total_usage
    lines = [f"# {inert(record.question)}", "",
             f"- run: {_code(record.id)} ({record.kind}, {record.status}), {record.created}",
             f"- backend: {record.backend}",
             f"- time: {record.wall_s:.1f} s; LLM calls: {u.calls}; tokens: {u.total} "
             f"({u.prompt_tokens} prompt + {u.completion_tokens} completion)"]
    if record.stop_reason:
        lines.append(f"- stopped: {record.stop_reason.code} — {inert(record.stop_reason.message)}")
    edits = plan_edits(record.events, names)
    if record.plan:
        reviewed = any(getattr(e, "type", "") == "plan_approved" for e in record.events)
        lines += ["", "## Plan", ""]
        if edits:
            lines += ["The analyst edited the proposed plan before the run:", ""]
            lines += [f"- {e}" for e in edits] + ["", "The plan as run:", ""]
        elif reviewed:
            lines += ["Approved by the analyst as proposed.", ""]
        for i, s in enumerate(record.plan, start=1):
            where = f", section {s.section}" if s.section else ""
            scope = f", filings: {_scope(s, names or {})}" if s.doc_ids else ""
            lines.append(f"{i}. {inert(s.sub_question)} ({tool_words(s.tool)}{where}{scope})")
    if record.history:
        lines += ["", "## Research", ""]
        for r in record.history:
            tag = f" (retry {r.attempt})" if r.attempt else ""
            lines.append(f"- step {r.step + 1}{tag}: query {_code(r.query)} "
                         f"[{step_method(r)}] -> {r.coverage}: {inert(r.finding)}")
    answer = inert(record.answer.text) if record.answer else (
        f"(no answer{': ' + inert(record.error) if record.error else ''})")
    lines += ["", "## Answer", "", answer]
    analyses = list(getattr(record.answer, "analyses", None) or []) if record.answer else []
    if analyses:
        evidence = list(record.evidence or record.answer.evidence)
        numbers = {e.id: n for n, e in enumerate(evidence, start=1)}
        lines += ["", "## Analysis"] + analysis_markdown(analyses, numbers)
    if record.evidence:
        lines += ["", "## Sources", ""]
        for n, ev in enumerate(record.evidence, start=1):
            lines.append(_source_line(n, ev, provenance(ev.url) if ev.kind == "web" else ""))
            grid = table_grid(ev.text) if ev.kind == "chunk" and excerpt_chars else None
            if grid is not None:
                lines += ["", *(f"   {row}" for row in grid_markdown(grid)), ""]
                continue
            text = " ".join(inert(ev.text).split())
            if text and excerpt_chars:
                cut = text[:excerpt_chars] + ("…" if len(text) > excerpt_chars else "")
                lines.append(f"   > {cut}")
    if record.warnings:
        lines += ["", "## Warnings", ""] + [f"- {inert(w)}" for w in record.warnings]
    return "\n".join(lines) + "\n"
