"""A card per executed plan step, filled slot by slot as the step's events arrive.

The card is created on ``step_started`` with one placeholder per stage (query,
strategy, evidence, context, reflection, policy) so events can be drawn the
moment they arrive, live or replayed, without redrawing what is already shown.
"""

from __future__ import annotations

import streamlit as st

from components.analysis_view import as_analyses, render_analysis
from components.evidence import bar_label, render_hits, render_rerank_chart
from components.figure_step import FIGURE_TOOLS, render_facts_found, render_figure_computed
from components.policy_badge import (
    TOOL_LABEL,
    decision_style,
    render_coverage_badge,
    render_policy_badge,
)
from components.sidebar import reranker_words
from components.text import md_escape, readable_refs
from core.agent import events as ev


def quality_line(q: dict) -> str:
    """'Quality: relevance 0.62 · coverage 0.80 · consistency 1.00 (...notes)' (escaped)."""
    agree = q.get("consistency")
    text = (f"Quality: relevance {q.get('relevance', 0):.2f} · coverage "
            f"{q.get('coverage', 0):.2f} · consistency "
            + ("n/a (nothing to compare)" if agree is None else f"{agree:.2f}"))
    notes = q.get("notes") or []
    return md_escape(text + (f" — {'; '.join(notes)}" if notes else ""))


class StepCard:
    """Placeholders of one step attempt; ``update(event)`` fills the matching slot."""

    def __init__(self, started: ev.StepStarted, *, key: str):
        self.key = key
        self.drawn: dict[str, int] = {}  # element name -> times drawn in this card
        self.started = started
        self.number = (started.step or 0) + 1
        self.labels: dict[str, str] = {}  # evidence id -> short label, for the distilled context
        self.figure_step = started.tool in (*FIGURE_TOOLS, "analyze")  # no search tabs
        self.box = st.status(self._label("running…"), expanded=True, state="running")
        with self.box:
            self.head = st.empty()
            self.facts = st.empty()  # figure steps: facts looked up, arithmetic
            self.computed = st.empty()
            self.query = st.empty()
            self.strategy = st.empty()
            if self.figure_step:  # text search only for the nearest lines, if at all
                self.reranked, self.retrieved = st.empty(), st.empty()
            else:
                reranked_tab, retrieved_tab = st.tabs(["Evidence, best first",
                                                       "Retrieved candidates"])
                with reranked_tab:
                    self.reranked = st.empty()
                with retrieved_tab:
                    self.retrieved = st.empty()
            self.context = st.empty()
            self.reflection = st.empty()
            self.policy = st.empty()
            self.notes = st.container()
        self._draw_head()

    def _label(self, state: str) -> str:
        s = self.started
        retry = f" (retry {s.attempt})" if s.attempt else ""
        tool = TOOL_LABEL.get(s.tool, s.tool)
        return f"Step {self.number}{retry} · {tool} · {md_escape(s.sub_question)} — {state}"

    def _draw_head(self) -> None:
        s = self.started
        with self.head.container():
            scope = []
            if s.section:
                scope.append(f"section **{md_escape(s.section)}**")
            if s.doc_ids:
                names = getattr(s, "companies", None) or []
                scope.append(", ".join(f"**{md_escape(n)}**" for n in names)
                             if names else f"{len(s.doc_ids)} document(s)")
            if getattr(s, "depends_on", None):
                scope.append("uses step(s) " + ", ".join(str(d + 1) for d in s.depends_on))
            st.markdown(f"**Sub-question:** {md_escape(s.sub_question)}")
            if scope:
                st.caption("Filters: " + ", ".join(scope))

    def update(self, event: ev.EventBase) -> None:
        """Draw ``event`` into its slot; an event the card has no widgets for (a role
        registered later) as the text it gives (``EventBase.card``) in order."""
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:
            handler(event)
            return
        text = event.card()
        if text:
            with self.notes:
                st.markdown(md_escape(text.strip()).replace("\n", "  \n"))

    def _key(self, name: str) -> str:
        """A key for an element of this card, unique in the page run: a step resumed after
        a restart draws its evidence again into the same card (a repeated key is an error)."""
        n = self.drawn[name] = self.drawn.get(name, 0) + 1
        return f"{self.key}_{name}" if n == 1 else f"{self.key}_{name}{n}"

    def _on_facts_found(self, e) -> None:
        with self.facts.container():
            render_facts_found(e, key=self._key("facts"))

    def _on_figure_computed(self, e) -> None:
        with self.computed.container():
            render_figure_computed(e, key=self._key("computed"))

    def _on_analysis_done(self, e) -> None:
        """An analyze step's result: its verdict line, peer table and chart."""
        with self.computed.container():
            for result in as_analyses([e.result]):
                render_analysis(result, {}, {}, key=self._key("analysis"))

    def _on_query_rewritten(self, e: ev.QueryRewritten) -> None:
        with self.query.container():
            st.markdown(f"**Rewritten query** ({e.source}): {md_escape(e.query)}")
            if e.original and e.original != e.query:
                st.caption(f"from: {md_escape(e.original)}")

    def _on_strategy_chosen(self, e: ev.StrategyChosen) -> None:
        with self.strategy.container():
            st.badge(f"strategy: {e.strategy}", color="violet")
            st.markdown(f"**Supervisor** ({e.source}): {md_escape(e.justification)}")

    def _on_hits_retrieved(self, e: ev.HitsRetrieved) -> None:
        with self.retrieved.container():
            timings = ", ".join(f"{k} {v:.0f} ms" for k, v in e.timings_ms.items())
            filters = "; ".join(f"{k}: {', '.join(v)}" for k, v in e.filters.items() if v)
            st.caption(f"{len(e.hits)} candidates · {e.strategy} · query “{md_escape(e.query)}”"
                       + (f" · filters {md_escape(filters)}" if filters else "")
                       + (f" · {timings}" if timings else ""))
            render_hits(e.hits, key=self._key("retrieved"))

    def _on_hits_reranked(self, e: ev.HitsReranked) -> None:
        self.labels.update({h.id: bar_label(h) for h in e.hits})
        with self.reranked.container():
            how = reranker_words(e.reranker.kind) if e.reranker else "re-ranking"
            who = f"{e.reranker.name} ({e.reranker.kind}): {e.reranker.reason}" if e.reranker \
                else None
            against = "" if e.reranker and e.reranker.kind == "none" else \
                f", scored against “{md_escape(e.rerank_query)}”"
            st.caption(f"Top {len(e.hits)}, {md_escape(how)}{against}", help=who)
            render_rerank_chart(e.hits, key=self._key("chart"))
            render_hits(e.hits, key=self._key("reranked"))

    def _on_context_distilled(self, e: ev.ContextDistilled) -> None:
        with self.context.container():
            st.markdown(f"**Distilled context** ({e.source}, {len(e.evidence_ids)} sources)")
            with st.container(border=True):
                context = readable_refs(e.context, self.labels)
                st.markdown(md_escape(context).replace("\n", "  \n") or "_(empty)_")

    def _on_step_reflected(self, e: ev.StepReflected) -> None:
        with self.reflection.container():
            st.markdown(f"**Reflection:** {md_escape(readable_refs(e.finding, self.labels))}")
            render_coverage_badge(e.coverage)
            if e.quality:
                st.caption(quality_line(e.quality))

    def _on_policy_decided(self, e: ev.PolicyDecided) -> None:
        with self.policy.container():
            render_policy_badge(e.decision, e.reason)
        _, icon = decision_style(e.decision)
        self.box.update(label=self._label(f"{icon} {e.decision}"), state="complete",
                        expanded=True)

    def _on_plan_revised(self, e: ev.PlanRevised) -> None:
        with self.notes:
            st.info(f"↻ Revision {e.revisions_used}: {md_escape(e.change)} — next try: "
                    f"“{md_escape(e.after.sub_question)}” ({e.after.tool}"
                    + (f", {md_escape(e.after.section)}" if e.after.section else "") + ")")

    def _on_warning(self, e: ev.Warning) -> None:
        with self.notes:
            st.warning(md_escape(e.message))

    def _on_error(self, e: ev.Error) -> None:
        with self.notes:
            st.error(md_escape(e.message))
        self.box.update(label=self._label("error"), state="error", expanded=True)

    def finish(self) -> None:
        """Mark the card complete (a run stopped before the policy spoke)."""
        self.box.update(state="complete", expanded=True)
