"""The shared sidebar: what is active right now, in an analyst's words (details on hover),
and the work running in the background (ingest, research)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import streamlit as st

from components import keys
from components.text import md_escape

if TYPE_CHECKING:  # the run module costs seconds to import: only when a run is there to say
    from core.llm.reach import Reach
    from core.llm.usage import LLMAccount

TICK_S = 1.0  # how often the sidebar's activity lines are redrawn while work runs
QUIET_S = 1.5  # ... but never sooner than this after the analyst moved the mouse or typed
ANSWER_S = 10.0  # the longest the clock waits for a run asked for to draw it again

# The activity fragment's clock, in the browser. ``st.fragment(run_every=...)`` reruns on a
# timer even while a run the analyst started is in flight, sending the browser's widget
# values from before that run answered: a value the run had just set (the citation a
# figure's source opened) was set back, and a page link clicked meanwhile could land on the
# page left (streamlit/streamlit#10805 is one of that family). This clock ticks only while
# the app is idle and the analyst has not moved the mouse, scrolled or typed for ``QUIET_S``,
# so a tick carries what the browser shows and seldom meets a click (a click that lands
# while a tick's fragment runs can be lost, as with run_every).
#
# Idle is what the browser knows, and it learns that a run started only when the server
# says so: on a busy machine that came 0.75 s after a click, after the quiet time, and a
# tick sent meanwhile undid the click's run. So a click, a key that may submit, or a tick
# asks for a run, and the clock holds still until the clock is drawn again (every run
# that asked draws it: the page's and this fragment's) or ``ANSWER_S`` passed with no run
# (a click on nothing); it holds still while a mouse button is down, too.
TICKER_JS = """
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  const every = (data && data.every_ms) || 1000;
  const quiet = (data && data.quiet_ms) || 1500;
  const w = window;
  const scriptState = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute('data-test-script-state');
  };
  if (!w.__dfActivityInput) {
    // last: the latest input; pressed: since when a mouse button is down (0: none);
    // asked: since when a run was asked for that has not drawn the clock yet (0: none)
    const input = { last: 0, pressed: 0, asked: 0, answer: 10000 };
    w.__dfActivityInput = input;
    input.ask = () => { input.asked = Date.now(); };
    input.pending = () => input.asked > 0 && Date.now() - input.asked < input.answer;
    input.held = () => input.pressed > 0 && Date.now() - input.pressed < 60000;
    input.busy = () => {  // a run asked for or in flight (the status widget shows late)
      const state = scriptState();
      if (state ? state !== 'notRunning'
                : document.querySelector('[data-testid="stStatusWidget"]')) return true;
      return input.pending() || input.held();
    };
    const mark = () => { input.last = Date.now(); };
    const on = (kinds, handler) => kinds.forEach((kind) =>
      document.addEventListener(kind, handler, { capture: true, passive: true }));
    on(['pointermove', 'wheel'], mark);
    on(['pointerdown'], () => { mark(); input.pressed = Date.now(); });
    on(['pointerup', 'pointercancel'], () => { mark(); input.pressed = 0; input.ask(); });
    on(['keydown'], (e) => { mark(); if (e.key.length !== 1 || e.key === ' ') input.ask(); });
  }
  const input = w.__dfActivityInput;
  input.answer = (data && data.answer_ms) || 10000;
  input.asked = 0;  // drawn again: whatever asked for a run has had it
  if (parentElement.__dfTicker) clearInterval(parentElement.__dfTicker);
  const timer = setInterval(() => {
    if (input.busy() || Date.now() - input.last < quiet) return;
    input.ask();
    setTriggerValue('tick', Date.now());
  }, every);
  parentElement.__dfTicker = timer;
  return () => { clearInterval(timer); input.asked = 0; };  // gone: it asks for nothing
}
"""
_DRAWS = itertools.count(1)  # a new value per draw: the browser runs TICKER_JS again
_ticker = st.components.v2.component("deep_filings_activity_ticker", js=TICKER_JS)

RERANK_WORDS = {
    "cross-encoder": "an AI relevance model re-orders the results",
    "llm": "the LLM re-grades the top results",
    "fallback": "word-match re-ordering (offline stand-in for an AI re-ranker)",
    "none": "results kept in search order (no re-ranking)",
}


@dataclass(frozen=True)
class ActiveStack:
    """What the sidebar shows; built by the entry file from the cached services."""

    documents: int
    chunks: int
    llm: str
    llm_offline: bool
    reranker: str
    reranker_kind: str
    reranker_reason: str
    web: str
    data_dir: str
    activity: Sequence[str] = field(default_factory=tuple)
    llm_model: str = ""
    """The configured model's name (the label's first part)."""
    llm_last_run: tuple[float, LLMAccount] | None = None
    """(when, account) of the latest run of this server that used or tried the LLM."""
    llm_reach: Reach | None = None
    """The latest check of the endpoint (saved in Settings, or 'Test connection')."""


def llm_words(stack: ActiveStack) -> tuple[str, str]:
    """(words, details) of the Answers line: what the LLM really did, never the configured
    model's name alone when the last run or check says it did not answer."""
    if stack.llm_offline:
        return ("built-in rules, no AI model (offline)",
                "Offline engine: every agent role runs a deterministic rule and the answer quotes "
                "the evidence. Configure an LLM in Settings for a written analysis.")
    fallback = "each role falls back to its offline rule when a call fails."
    reach, run = stack.llm_reach, stack.llm_last_run
    if reach is not None and reach.checked and (run is None or reach.at >= run[0]):
        if reach.ok:
            return (f"LLM configured ({stack.llm}), reachable; not used in a run since",
                    f"{reach.message} {fallback}")
        return (f"LLM configured ({stack.llm}), but its endpoint failed when checked: runs are "
                "answered by the offline engine while it does not answer",
                f"{reach.message} {fallback}")
    if run is None:
        return (f"LLM configured ({stack.llm}), not used yet",
                f"Not checked yet: Settings → Test connection sends a tiny request. {fallback}")
    from core.app.runs import answered_by

    account = run[1]
    label = answered_by(f"llm:{stack.llm_model or stack.llm}", account)
    if label.startswith("offline engine"):
        why = label[label.find("(") + 1:label.rfind(")")] if "(" in label else ""
        return (f"LLM configured ({stack.llm}), but the last run was answered by the offline "
                f"engine{f' ({why})' if why else ''}",
                f"LLM: {stack.llm}. Its last run: {account.replies} request(s) answered, "
                f"{account.failed} failed, {account.skipped} not sent. {fallback}")
    if account.failed or account.unusable or account.skipped:
        return (f"written by the LLM {stack.llm}, partly: in the last run the offline rules "
                f"stood in for {account.failed + account.skipped + account.unusable} call(s)"
                + (f" ({account.reason})" if account.reason else ""),
                f"LLM: {stack.llm}. Its last run: {account.replies} request(s) answered, "
                f"{account.failed} failed, {account.skipped} not sent, {account.unusable} "
                f"unusable. {fallback}")
    return (f"written by the LLM {stack.llm}",
            f"LLM: {stack.llm}; it answered every request of the last run. {fallback}")


def reranker_words(kind: str) -> str:
    """How re-ranking works, in an analyst's words."""
    return RERANK_WORDS.get(kind, "results re-ordered by a local method")


def web_words(name: str) -> tuple[str, str]:
    """(words, details) for the web provider's technical name."""
    low = name.lower()
    if low.startswith("web snapshot"):
        count = name[name.find("(") + 1:name.find(" article")] if "(" in name else ""
        return (f"saved demo articles ({count}), offline" if count else "saved demo articles",
                f"{name}: a local folder of dated articles written for demos, searched like a "
                "corpus; set a Tavily key in Settings for live web search.")
    if low.startswith("tavily"):
        return "live web search (Tavily)", name
    if low == "none":
        return "off", "No web search: web steps cannot run."
    return name, name


def render_sidebar(stack: ActiveStack) -> None:
    """Draw the 'Active' panel in the sidebar."""
    with st.sidebar:
        st.markdown("#### Active")
        c1, c2 = st.columns(2)
        c1.metric("Documents", f"{stack.documents:,}")
        c2.metric("Chunks", f"{stack.chunks:,}",
                  help="Passages the filings were split into for searching.")
        words, details = llm_words(stack)
        st.markdown(f"**Answers** · {md_escape(words)}", help=details)
        st.markdown(f"**Ranking** · {reranker_words(stack.reranker_kind)}",
                    help=f"Reranker: {stack.reranker} ({stack.reranker_kind}). "
                         f"{stack.reranker_reason}")
        words, details = web_words(stack.web)
        st.markdown(f"**Web** · {md_escape(words)}", help=details)
        st.caption(f"Corpus: {stack.data_dir}")
        for line in stack.activity:
            st.info(md_escape(line))


def _draw_activity(slot, lines: Sequence[str]) -> None:
    with slot.container():
        for line in lines:
            st.info(md_escape(line))


def tick_every(active: bool) -> float | None:
    """How often the activity lines redraw: every ``TICK_S`` while work runs, else never."""
    return TICK_S if active else None


def draw_ticker(every: float, *, key: str, quiet: float = QUIET_S) -> None:
    """The browser clock (``TICKER_JS``): drawn inside a fragment, it reruns that fragment
    every ``every`` seconds while the app is idle, no run asked for is still unanswered and
    the analyst has not clicked or typed for ``quiet`` seconds. Each draw is new data
    (``drawn``), so the browser sees every run that drew it."""
    _ticker(data={"every_ms": int(every * 1000), "quiet_ms": int(quiet * 1000),
                  "answer_ms": int(ANSWER_S * 1000), "drawn": next(_DRAWS)}, key=key,
            on_tick_change=lambda: None)


def render_activity(lines_of: Callable[[], list[str]]) -> None:
    """The background work of this server in the sidebar, one line each, redrawn every
    ``TICK_S`` while any runs (a fragment ticked by ``TICKER_JS``, so the page itself is not
    rerun); when the last job ends the page reruns once to show what it produced. A page
    busy following a job redraws the lines itself with ``tick_activity`` (a fragment cannot
    run meanwhile)."""
    active = bool(lines_of())
    every = tick_every(active)

    @st.fragment
    def _activity() -> None:
        lines = lines_of()
        if active and not lines:
            st.rerun()
        slot = st.empty()
        st.session_state[keys.APP_ACTIVITY] = (slot, lines_of)
        _draw_activity(slot, lines)
        if every is not None:
            draw_ticker(every, key="sidebar_activity_ticker")

    with st.sidebar:
        _activity()


def tick_activity() -> None:
    """Redraw the sidebar's activity lines now (called by loops that follow a job)."""
    held = st.session_state.get(keys.APP_ACTIVITY)
    if held is None:
        return
    slot, lines_of = held
    try:
        _draw_activity(slot, lines_of())
    except Exception:  # noqa: BLE001 - a slot from an earlier run: the next run redraws it
        st.session_state[keys.APP_ACTIVITY] = None
