"""A run as one self-contained HTML research note, printable to PDF from the browser:
question, the answer with numbered sources, its analyses (verdict line, peer table), the
figures' computation tables, the plan, each step's evidence, and the sources with excerpts.

Self-contained: inline CSS, no script, no image, font or stylesheet fetched, no link
that leaves the page (a [n] marker jumps to its source below; source addresses are
printed as text). Every text that came from a filing, a web page, a model or the analyst
goes through ``html.escape`` after ``report.inert`` has dropped its active Markdown.
"""

from __future__ import annotations

import html
import re
from typing import Any

from core.app.report import (
    ANALYSIS_HEADER,
    analysis_rows,
    analysis_title,
    inert,
    plan_edits,
    step_method,
    tool_words,
)
from core.app.table_grid import table_grid
from core.foundation.pages import page_ref

_MARK = re.compile(r"\[(\d+)\]")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")

CSS = """
body { font: 15px/1.55 Georgia, 'Times New Roman', serif; color: #1d1d1d; margin: 2rem auto;
       max-width: 52rem; padding: 0 1.2rem; }
h1 { font-size: 1.5rem; line-height: 1.3; } h2 { font-size: 1.15rem; margin-top: 2rem;
  border-bottom: 1px solid #ccd; padding-bottom: .2rem; } h3 { font-size: 1rem; }
.meta { color: #555; font-size: .85rem; } .meta span + span::before { content: " · "; }
a.cite { color: #1f4e79; text-decoration: none; font-weight: 600; font-size: .85em; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .88rem; width: 100%; }
th, td { border: 1px solid #ccd; padding: .25rem .45rem; text-align: left; vertical-align: top; }
th { background: #f0f3f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
blockquote { margin: .3rem 0 .8rem 1rem; padding-left: .7rem; border-left: 3px solid #ccd;
  color: #333; font-size: .9rem; } li { margin-bottom: .3rem; } code { font-size: .85em; }
.note { color: #6b4e00; background: #fff7e0; padding: .3rem .5rem; }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; }
  a.cite { color: inherit; } }
"""


def _t(text: Any) -> str:
    """Untrusted text as inert, escaped HTML (``inert`` drops active Markdown and tags and
    writes what is left of ``<``/``>`` as entities: undone here, then escaped once)."""
    plain = inert(str(text or "")).replace("&lt;", "<").replace("&gt;", ">")
    return html.escape(plain, quote=True)


def _inline(text: str, n_sources: int) -> str:
    """One escaped line of the answer: **bold** kept, [n] a jump to source n."""
    out = _t(text)
    out = _BOLD.sub(lambda m: f"<strong>{m.group(1)}</strong>", out)
    return _MARK.sub(lambda m: (f'<a class="cite" href="#src-{m.group(1)}">[{m.group(1)}]</a>'
                                if 1 <= int(m.group(1)) <= n_sources else m.group(0)), out)


def _answer(text: str, n_sources: int) -> list[str]:
    out, bullets = [], []
    for line in (text or "").split("\n"):
        if not line.strip():
            continue
        bullet = re.match(r"^\s*(?:[-*•]|\d+[.)])\s+(.*)", line)
        if bullet:
            bullets.append(f"<li>{_inline(bullet.group(1), n_sources)}</li>")
            continue
        if bullets:
            out.append("<ul>" + "".join(bullets) + "</ul>")
            bullets = []
        heading = re.match(r"^\s*#{1,6}\s+(.*)", line)
        if not _t(line).strip():
            continue
        out.append(f"<h3>{_inline(heading.group(1), n_sources)}</h3>" if heading
                   else f"<p>{_inline(line.strip(), n_sources)}</p>")
    if bullets:
        out.append("<ul>" + "".join(bullets) + "</ul>")
    return out


def _table(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{_t(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(
        f'<td class="num">{_t(c)}</td>' if re.fullmatch(r"[\s$€£(–-]*[\d,.]+\)?%?\s*\w*", str(c))
        else f"<td>{_t(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figures(figures: list[Any], numbers: dict[str, int]) -> list[str]:
    out = []
    for f in figures:
        name = getattr(f.request, "name", "") or getattr(f.request, "metric", "") or "Figure"
        out.append(f"<h3>{_t(name)}: {_t(f.display or 'not computed')}</h3>")
        if f.rows:
            out.append(_table(["Input", "Period", "Value", "Source"], [
                [r.input, r.period, r.value,
                 (f"[{numbers[r.chunk_id]}] " if r.chunk_id in numbers else "") + r.source]
                for r in f.rows]))
        if f.work:
            out.append(f"<p>Work: {_t(f.work)}</p>")
        out += [f'<p class="note">{_t(m)}</p>' for m in f.missing]
        out += [f"<p>{_t(n)}</p>" for n in f.notes]
    return out


def _cite_cell(cell: str, n_sources: int) -> str:
    """A source cell: each [n] a jump to source n, the rest escaped text."""
    return _MARK.sub(lambda m: (f'<a class="cite" href="#src-{m.group(1)}">[{m.group(1)}]</a>'
                                if 1 <= int(m.group(1)) <= n_sources else m.group(0)), _t(cell))


def _analyses(analyses: list[Any], numbers: dict[str, int], n_sources: int) -> list[str]:
    out = []
    for a in analyses:
        verdict = f" — verdict: {a.verdict}" if a.verdict else " — not decided"
        out.append(f"<h3>{_t(analysis_title(a) + verdict)}</h3>")
        if a.lead:
            out.append(f"<p><strong>{_t(a.lead)}</strong></p>")
        if a.basis:
            out.append(f"<p>Decided by: {_t(a.basis)}</p>")
        rows = analysis_rows(a, numbers)
        head = "".join(f"<th>{_t(h)}</th>" for h in ANALYSIS_HEADER)
        body = "".join("<tr>" + "".join(f"<td>{_t(c)}</td>" for c in row[:-1])
                       + f"<td>{_cite_cell(row[-1], n_sources)}</td></tr>" for row in rows)
        out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        out += [f'<p class="note">Missing: {_t(m)}</p>' for m in a.missing]
        out += [f"<p>{_t(n)}</p>" for n in a.notes]
    return out


def _grid_html(grid: Any, max_rows: int = 25) -> str:
    """A statement table as an HTML table headed by the filing's column headings."""
    num = re.compile(r"^[\s$€£(—–-]*[\d.,]+\)?\s*%?$|^[—–-]+%?$")
    cap = "".join(f'<p class="meta">{_t(c)}</p>' for c in grid.caption[-2:])
    head = "".join(f"<th>{_t(h)}</th>" for h in grid.header)
    rows = "".join("<tr>" + "".join(
        f'<td class="num">{_t(c)}</td>' if j and num.match(c or "") else f"<td>{_t(c)}</td>"
        for j, c in enumerate(row)) + "</tr>" for row in grid.rows[:max_rows])
    more = (f'<p class="meta">… and {len(grid.rows) - max_rows} more row(s)</p>'
            if len(grid.rows) > max_rows else "")
    return f"{cap}<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{more}"


def _plan_step(s: Any, names: dict[str, str]) -> str:
    where = f", section {s.section}" if s.section else ""
    scope = f", filings: {', '.join(names.get(d, d) for d in s.doc_ids)}" if s.doc_ids else ""
    how = f"({tool_words(s.tool)}{where}{scope})"
    return f'<li>{_t(s.sub_question)} <span class="meta">{_t(how)}</span></li>'


def render_html(record: Any, *, names: dict[str, str] | None = None,
                provenance: Any = lambda url: "", excerpt_chars: int = 600) -> str:
    """The note (keys not yet scrubbed: ``core.app.runs.export_html`` does that)."""
    names = names or {}
    answer = record.answer
    evidence = list(record.evidence or (answer.evidence if answer else []))
    numbers = {e.id: n for n, e in enumerate(evidence, start=1)}
    u = record.total_usage
    meta = [f"run {record.id}", f"{record.kind}, {record.status}",
            str(record.created)[:19].replace("T", " "), f"backend: {record.backend}",
            f"run time {record.wall_s:.1f} s", f"{u.calls} LLM call(s), {u.total} tokens"]
    parts = [f"<h1>{_t(record.question)}</h1>",
             '<p class="meta">' + "".join(f"<span>{_t(m)}</span>" for m in meta) + "</p>"]
    if record.stop_reason and record.stop_reason.code not in ("completed", ""):
        parts.append(f'<p class="note">Stopped: {_t(record.stop_reason.message)}</p>')
    parts.append("<h2>Answer</h2>")
    parts += _answer(answer.text, len(evidence)) if answer else [
        f"<p>No answer{': ' + _t(record.error) if record.error else '.'}</p>"]
    analyses = list(getattr(answer, "analyses", None) or []) if answer else []
    if analyses:
        parts.append("<h2>Analysis</h2>")
        parts += _analyses(analyses, numbers, len(evidence))
    figures = list(getattr(answer, "figures", None) or []) if answer else []
    if figures:
        parts.append("<h2>Figures</h2>")
        parts += _figures(figures, numbers)
    if record.plan:
        parts.append("<h2>Plan</h2>")
        edits = plan_edits(record.events, names)
        if edits:
            parts.append("<p>The analyst edited the proposed plan before the run:</p><ul>"
                         + "".join(f"<li>{_t(e)}</li>" for e in edits) + "</ul>")
        parts.append("<ol>" + "".join(_plan_step(s, names) for s in record.plan) + "</ol>")
    if record.history:
        parts.append("<h2>Research, step by step</h2>")
        for r in record.history:
            retry = f" (retry {r.attempt})" if r.attempt else ""
            cited = [f'<a class="cite" href="#src-{numbers[i]}">[{numbers[i]}]</a>'
                     for i in r.evidence_ids if i in numbers]
            parts.append(f"<h3>Step {r.step + 1}{retry}: {_t(r.sub_question)}</h3>")
            parts.append(f"<p class=\"meta\"><span>query: {_t(r.query)}</span>"
                         f"<span>{_t(step_method(r))}</span>"
                         f"<span>coverage: {_t(r.coverage)}</span></p>")
            if r.finding:
                parts.append(f"<p>{_t(r.finding)}</p>")
            if cited:
                parts.append(f"<p>Evidence kept: {' '.join(cited)}</p>")
    if evidence:
        parts.append("<h2>Sources</h2><ol>")
        for n, e in enumerate(evidence, start=1):
            where = (e.url or e.id) if e.kind == "web" else \
                ", ".join(x for x in (e.section or "", page_ref(e.page, e.page_label)) if x)
            note = {"demo": " (demo article written for this project; URL unverified)",
                    "saved": " (saved by the analyst)"}.get(
                provenance(e.url) if e.kind == "web" else "", "")
            text = " ".join(str(e.text or "").split())
            cut = text[:excerpt_chars] + ("…" if len(text) > excerpt_chars else "")
            grid = table_grid(e.text) if e.kind == "chunk" else None
            body = _grid_html(grid) if grid is not None else \
                f"<blockquote>{_t(cut)}</blockquote>" if cut else ""
            parts.append(f'<li id="src-{n}"><strong>{_t(e.label or e.title)}</strong>'
                         f'{" — " + _t(where) if where else ""}{_t(note)}' + body + "</li>")
        parts.append("</ol>")
    if record.warnings:
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{_t(w)}</li>"
                                                    for w in record.warnings) + "</ul>")
    title = html.escape(inert(record.question)[:120])
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">"
            f"<title>{title}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(parts) + "\n<p class=\"meta\">Exported from Deep Filings.</p>"
            "</body></html>\n")


def export_html(record: Any, settings: Any, names: dict[str, str] | None = None) -> str:
    """The HTML note of ``record``: demo web articles labelled, keys scrubbed."""
    from core.app.runs import scrub
    from core.retrieval.web_saved import provenance_of

    return scrub(render_html(record, names=names,
                             provenance=lambda url: provenance_of(url, settings)), settings)
