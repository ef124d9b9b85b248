"""Answer text whose [n] markers can be hovered (a preview of the cited passage) and clicked.

The answer is split in Python into blocks of plain runs (text, bold, italic, citation
marker); a small ``st.components.v2`` component builds the DOM from them with
``textContent`` only, so model and document text never becomes markup. Clicking a
marker sends its number back (``cite`` trigger); hovering or focusing one shows its
source, place and cited sentence. Images, links and HTML in the answer are dropped
first (their visible text is kept).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from components.text import strip_active

_INLINE = re.compile(r"\[(\d+)\]|\*\*([^*\n]+)\*\*|(?<![\w*])\*([^*\n]+)\*(?![\w*])|"
                     "\u2063(\\d+)\u2063")
_TAG = "\u2063{}\u2063"  # an invisible separator around a self-check verdict's index
VERDICT_MARK = {"supported": "✓", "unsupported": "✗", "uncited": "?"}
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")

CSS = """
.df-answer { position: relative; line-height: 1.6; font-size: 1rem; }
.df-answer p { margin: 0 0 0.7rem 0; }
.df-answer h4 { margin: 0.9rem 0 0.4rem 0; font-size: 1.05rem; }
.df-answer .li { margin: 0 0 0.35rem 1.2rem; text-indent: -0.9rem; }
.df-answer button.cite {
  font: inherit; font-size: 0.85em; font-weight: 600; padding: 0 0.2rem; margin: 0 0.05rem;
  border: 1px solid transparent; border-radius: 0.3rem; background: rgba(31, 78, 121, 0.08);
  color: var(--st-primary-color, #1f4e79); cursor: pointer; vertical-align: baseline;
}
.df-answer button.cite:hover, .df-answer button.cite:focus-visible {
  border-color: var(--st-primary-color, #1f4e79); outline: none;
}
.df-answer button.cite.active { background: var(--st-primary-color, #1f4e79); color: #fff; }
.df-answer .tip {
  position: absolute; z-index: 20; max-width: 28rem; padding: 0.5rem 0.7rem;
  background: #fff; color: #222; border: 1px solid #c9d3de; border-radius: 0.4rem;
  box-shadow: 0 4px 14px rgba(0, 0, 0, 0.15); font-size: 0.85rem; line-height: 1.4;
  pointer-events: none;
}
.df-answer .tip .src { font-weight: 600; }
.df-answer .tip .where { color: #555; margin-bottom: 0.25rem; }
.df-answer .tip .quote { border-left: 3px solid #ff9600; padding-left: 0.4rem; }
.df-answer .tip .hint { color: #777; margin-top: 0.3rem; font-size: 0.78rem; }
.df-answer .check { font-size: 0.75em; margin-left: 0.15rem; cursor: help; }
.df-answer .check.ok { color: #2e7d32; }
.df-answer .check.bad { color: #c62828; }
"""

JS = """
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector('.df-answer');
  if (!root) {
    root = document.createElement('div');
    root.className = 'df-answer';
    parentElement.appendChild(root);
  }
  root.replaceChildren();
  const info = (data && data.cites) || {};
  const tip = document.createElement('div');
  tip.className = 'tip';
  tip.setAttribute('role', 'tooltip');
  tip.hidden = true;
  const add = (parent, cls, text) => {
    const el = document.createElement('div');
    el.className = cls;
    el.textContent = text;
    parent.appendChild(el);
  };
  const show = (button, n) => {
    const c = info[String(n)] || {};
    tip.replaceChildren();
    add(tip, 'src', '[' + n + '] ' + (c.source || ''));
    if (c.where) add(tip, 'where', c.where);
    if (c.quote) add(tip, 'quote', c.quote);
    add(tip, 'hint', 'Click to open the passage');
    tip.style.left = Math.max(0, button.offsetLeft - 40) + 'px';
    tip.style.top = (button.offsetTop + button.offsetHeight + 6) + 'px';
    tip.hidden = false;
  };
  const hide = () => { tip.hidden = true; };
  for (const block of (data && data.blocks) || []) {
    const tag = block.kind === 'h' ? 'h4' : block.kind === 'li' ? 'div' : 'p';
    const el = document.createElement(tag);
    if (block.kind === 'li') { el.className = 'li'; el.appendChild(document.createTextNode('• ')); }
    for (const run of block.runs) {
      if (run.v !== undefined) {
        const m = document.createElement('span');
        m.className = 'check ' + (run.v === 'supported' ? 'ok' : 'bad');
        m.textContent = run.mark || '';
        m.title = 'Self-check: ' + run.v + (run.why ? ' (' + run.why + ')' : '');
        m.setAttribute('aria-label', m.title);
        el.appendChild(m);
      } else if (run.n !== undefined) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'cite' + (data.selected === run.n ? ' active' : '');
        b.textContent = '[' + run.n + ']';
        b.dataset.n = String(run.n);
        const c = info[String(run.n)] || {};
        b.setAttribute('aria-label', 'Citation ' + run.n + ': ' + (c.source || ''));
        b.onmouseenter = () => show(b, run.n);
        b.onfocus = () => show(b, run.n);
        b.onmouseleave = hide;
        b.onblur = hide;
        b.onclick = () => { hide(); setTriggerValue('cite', run.n); };
        el.appendChild(b);
      } else {
        const s = document.createElement(run.b ? 'strong' : run.i ? 'em' : 'span');
        s.textContent = run.t;
        el.appendChild(s);
      }
    }
    root.appendChild(el);
  }
  root.appendChild(tip);
}
"""

_component = st.components.v2.component("deep_filings_cited_answer", css=CSS, js=JS)


def inline_runs(text: str, checks: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """Runs of one line: ``{"t": text}`` (``"b"``/``"i"`` for bold/italic), ``{"n": 3}``, or a
    self-check verdict ``{"v": verdict, "mark": "✓", "why": reason}`` (see ``mark_checks``)."""
    runs: list[dict[str, Any]] = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            runs.append({"t": text[pos:m.start()]})
        if m.group(4):
            c = checks[int(m.group(4))] if int(m.group(4)) < len(checks) else {}
            verdict = str(c.get("verdict", ""))
            runs.append({"v": verdict, "mark": VERDICT_MARK.get(verdict, "?"),
                         "why": str(c.get("reason", ""))})
        elif m.group(1):
            runs.append({"n": int(m.group(1))})
        elif m.group(2):
            runs.append({"t": m.group(2), "b": True})
        else:
            runs.append({"t": m.group(3), "i": True})
        pos = m.end()
    if pos < len(text):
        runs.append({"t": text[pos:]})
    return runs


def mark_checks(answer: str, checks: Sequence[Mapping[str, Any]]) -> str:
    """``answer`` with a verdict tag after each kept checked sentence (found verbatim)."""
    for k, c in enumerate(checks):
        sentence = str(c.get("sentence") or "")
        if c.get("kept", True) and sentence and sentence in answer:
            at = answer.index(sentence) + len(sentence)
            answer = answer[:at] + _TAG.format(k) + answer[at:]
    return answer


def answer_blocks(answer: str, checks: Sequence[Mapping[str, Any]] = ()
                  ) -> list[dict[str, Any]]:
    """The answer as blocks (``kind`` p, h or li) of inline runs; active content removed;
    each self-checked sentence followed by its verdict mark."""
    blocks = []
    for line in mark_checks(strip_active(answer), checks).split("\n"):
        if not line.strip():
            continue
        kind = "p"
        if _HEADING.match(line):
            kind, line = "h", _HEADING.sub("", line)
        elif _BULLET.match(line):
            kind, line = "li", _BULLET.sub("", line)
        blocks.append({"kind": kind, "runs": inline_runs(line.strip(), checks)})
    return blocks


def render_cited_text(answer: str, cites: Mapping[int, Mapping[str, str]], *, key: str,
                      selected: int | None = None,
                      checks: Sequence[Mapping[str, Any]] = ()) -> int | None:
    """Draw the answer; returns the number of the marker clicked in this run, if any.

    ``cites`` maps n to ``{"source", "where", "quote"}`` shown when a marker is hovered;
    ``checks`` (SentenceCheck dicts) put a verdict mark after each sentence, its reason on
    hover."""
    data = {"blocks": answer_blocks(answer, checks), "selected": selected,
            "cites": {str(n): dict(v) for n, v in cites.items()}}
    result = _component(data=data, key=key, on_cite_change=lambda: None)
    picked = getattr(result, "cite", None) if result is not None else None
    return int(picked) if picked is not None else None


def blocks_text(blocks: list[dict[str, Any]]) -> str:
    """The text the blocks show, markers as [n], one line per block (tests, exports)."""
    return "\n".join("".join(r["t"] if "t" in r else r["mark"] if "v" in r else f"[{r['n']}]"
                             for r in b["runs"]) for b in blocks)
