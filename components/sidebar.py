"""The shared sidebar: what is active right now, in an analyst's words (details on hover),
and the work running in the background (ingest, research)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import streamlit as st

from components import keys
from components.text import md_escape

TICK_S = 1.0  # how often the sidebar's activity lines are redrawn while work runs
QUIET_S = 1.5  # ... but never sooner than this after the analyst moved the mouse or typed

# The activity fragment's clock, in the browser. ``st.fragment(run_every=...)`` reruns on a
# timer even while a run the analyst started is in flight, sending the browser's widget
# values from before that run answered: a value the run had just set (the citation a
# figure's source opened) was set back, and a page link clicked meanwhile could land on the
# page left (streamlit/streamlit#10805 is one of that family). This clock ticks only while
# the app is idle and the analyst has not moved the mouse, scrolled or typed for ``QUIET_S``,
# so a tick carries what the browser shows and seldom meets a click (a click that lands
# while a tick's fragment runs can be lost, as with run_every).
TICKER_JS = """
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  const every = (data && data.every_ms) || 1000;
  const quiet = (data && data.quiet_ms) || 1500;
  const w = window;
  if (!w.__dfActivityInput) {
    w.__dfActivityInput = { last: 0 };
    const mark = () => { w.__dfActivityInput.last = Date.now(); };
    for (const kind of ['pointermove', 'pointerdown', 'keydown', 'wheel']) {
      document.addEventListener(kind, mark, { capture: true, passive: true });
    }
  }
  const busy = () => {  // a run asked for or in flight (the status widget shows late)
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app && app.getAttribute('data-test-script-state');
    if (state) return state !== 'notRunning';
    return !!document.querySelector('[data-testid="stStatusWidget"]');
  };
  if (parentElement.__dfTicker) clearInterval(parentElement.__dfTicker);
  const timer = setInterval(() => {
    if (busy() || Date.now() - w.__dfActivityInput.last < quiet) return;
    setTriggerValue('tick', Date.now());
  }, every);
  parentElement.__dfTicker = timer;
  return () => clearInterval(timer);
}
"""
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
        if stack.llm_offline:
            st.markdown("**Answers** · built-in rules, no AI model (offline)",
                        help="Offline engine: every agent role runs a deterministic rule and the "
                             "answer quotes the evidence. Configure an LLM in Settings for a "
                             "written analysis.")
        else:
            st.markdown(f"**Answers** · written by the LLM {md_escape(stack.llm)}",
                        help=f"LLM: {stack.llm}; each role falls back to its offline rule when "
                             "a call fails.")
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
    every ``every`` seconds while the app is idle and the analyst has not clicked or typed
    for ``quiet`` seconds."""
    _ticker(data={"every_ms": int(every * 1000), "quiet_ms": int(quiet * 1000)}, key=key,
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
