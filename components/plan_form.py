"""The plan under review as one card per step: sub-question, tool, filings by name, section
(from the chosen filings), keywords, depends-on; for figure steps the metric and periods
(a look-up) or the formula (a compute step), the unit and decimals; move, remove and add
steps.

Every change goes through a widget callback that updates the ``StepDraft`` list and hands
it to ``save`` (the page keeps it with the run, so a refresh finds the edits). Widget
keys carry each step's ``uid``, so values follow a step when it moves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import get_args

import streamlit as st

from components.plan_analysis import analysis_with, render_analysis_fields
from components.text import md_escape, preview
from core.app.cited import document_name
from core.app.plan_draft import (
    StepDraft,
    add,
    justification_text,
    move,
    parse_keywords,
    read_into,
    remove,
    step_doc_ids,
)
from core.figures.model import UnitAsked
from core.foundation.types import DocumentMeta

TOOL_LABELS = {"filing_search": "Search the filings", "web_search": "Search the web (news)",
               "figure_lookup": "Look up a figure (facts)",
               "compute": "Compute (a formula over figures)",
               "analyze": "Combine figures (compare, rank, yes / no)"}

ANY_SECTION = ""
USUAL = "(usual)"
UNITS = [USUAL, *get_args(UnitAsked)]
DECIMALS: list[int | None] = [None, 0, 1, 2, 3, 4]
Save = Callable[[list[StepDraft]], None]


def metric_options(current: str | None = None) -> tuple[list[str], dict[str, str]]:
    """Catalogue metric keys (empty first) shown by their labels ("operating cash flow"; an
    abbreviation key beside its label, "capital expenditure (capex)"; never a snake_case
    key unless two labels are alike); an unknown current value is kept so the analyst sees
    it (the plan check names the fix)."""
    from collections import Counter

    from core.metrics import catalog

    metrics = catalog().metrics
    seen = Counter(m.label.lower() for m in metrics.values())
    def shown(k: str, label: str) -> str:  # "capital expenditure (capex)", no snake_case
        short = "_" not in k and k.lower()[:5] not in label.lower()
        return f"{label} ({k})" if short or seen[label.lower()] > 1 else label

    labels = {"": "(choose a metric, or type the question above)",
              **{k: shown(k, m.label)
                 for k, m in sorted(metrics.items(), key=lambda kv: kv[1].label.lower())}}
    options = list(labels)
    if current and current not in labels:
        options.append(current)
        labels[current] = f"{current} (not in the catalogue)"
    return options, labels


def parse_periods(text: str) -> list[str]:
    """'fy2022, FY2023 ;FY2024-q1' -> ['FY2022', 'FY2023', 'FY2024-Q1']."""
    return [p.upper() for p in parse_keywords(text)]


def section_options(draft: StepDraft, sections: Mapping[str, Sequence[str]],
                    names: Mapping[str, str], documents: Sequence[DocumentMeta] = ()
                    ) -> tuple[list[str], dict[str, str]]:
    """Section choices for a step (titles of its filings: those chosen, else those of the
    companies its question names, else every filing) and labels naming the filings that
    have each title when it is not all of them."""
    scope = [d for d in step_doc_ids(draft, documents) if d in sections] or list(sections)
    owners: dict[str, list[str]] = {}
    for doc_id in scope:
        for title in sections.get(doc_id, []):
            owners.setdefault(title, []).append(names.get(doc_id, doc_id))
    labels = {ANY_SECTION: "(any section)"}
    for title, who in owners.items():
        everywhere = len(scope) == 1 or len(who) == len(scope)
        labels[title] = title if everywhere else f"{title} — {', '.join(dict.fromkeys(who))}"
    options = [ANY_SECTION, *owners]
    if draft.section and draft.section not in owners:
        options.append(draft.section)
        labels[draft.section] = f"{draft.section} (not in the chosen filings)"
    return options, labels


class PlanForm:
    """Draws the step cards; callbacks keep ``drafts`` (a list in session state) current."""

    def __init__(self, drafts: list[StepDraft], *, key: str, documents: Sequence[DocumentMeta],
                 sections: Mapping[str, Sequence[str]], save: Save,
                 dependencies: bool = False, store=None):
        self.drafts = drafts
        self.key = key
        self.docs = {d.doc_id: d for d in documents}
        self.names = {d.doc_id: document_name(d) for d in documents}
        self.sections = sections
        self.save = save
        self.dependencies = dependencies
        self.store = store
        """The fact store: an added look-up's question is read with its segments."""

    # --- state --------------------------------------------------------------
    def _k(self, uid: str, name: str) -> str:
        return f"{self.key}_{uid}_{name}"

    def _find(self, uid: str) -> StepDraft | None:
        return next((d for d in self.drafts if d.uid == uid), None)

    def _set_list(self, new: list[StepDraft]) -> None:
        self.drafts[:] = new
        self.save(self.drafts)

    def _on_change(self, uid: str, name: str) -> None:
        d = self._find(uid)
        if d is None:
            return
        value = st.session_state.get(self._k(uid, name))
        if name == "keywords":
            value = parse_keywords(value or "")
        elif name == "periods":
            value = parse_periods(value or "")
        elif name in ("section", "metric"):
            value = value or None
        elif name == "formula":
            value = " ".join((value or "").split()) or None
        elif name == "unit":
            value = None if value in (None, "", USUAL) else value
        elif name in ("doc_ids", "depends_on"):
            value = list(value or [])
        elif name == "member":
            value = (value or "").strip() or None
        elif name.startswith("an_"):
            name, value = "analysis", analysis_with(d.analysis, name[3:], value)
        setattr(d, name, value)
        if name == "sub_question":
            self._read(d)
        self.save(self.drafts)

    def _read(self, d: StepDraft) -> None:
        """An added step takes its filings, metric, periods, segment or formula from the
        question typed into it (``read_into``); its widgets show them."""
        new = read_into(d, list(self.docs.values()), self.store)
        shown = {"doc_ids": list, "metric": lambda v: v or "", "member": lambda v: v or "",
                 "periods": lambda v: ", ".join(v or []), "formula": lambda v: v or ""}
        for name, show in shown.items():
            if getattr(new, name) != getattr(d, name):
                setattr(d, name, getattr(new, name))
                st.session_state[self._k(d.uid, name)] = show(getattr(new, name))
        d.read = new.read

    def _init(self, uid: str, name: str, value) -> str:
        k = self._k(uid, name)
        if k not in st.session_state:
            st.session_state[k] = value
        return k

    # --- drawing ------------------------------------------------------------
    def render(self, problems: Mapping[int | None, Sequence[str]]) -> None:
        for i, d in enumerate(self.drafts):
            self._card(i, d, problems.get(i, []))
        cols = st.columns([1, 1, 1, 1, 1])
        for col, (tool, label) in zip(cols, (
                ("filing_search", "Add a filing step"), ("web_search", "Add a web step"),
                ("figure_lookup", "Add a figure look-up"), ("compute", "Add a compute step")),
                strict=False):
            col.button(label, key=f"{self.key}_add_{tool}", width="stretch",
                       on_click=lambda t=tool: self._set_list(add(self.drafts, t)))

    def _card(self, i: int, d: StepDraft, problems: Sequence[str]) -> None:
        n = len(self.drafts)
        with st.container(border=True, key=f"{self.key}_card_{d.uid}"):
            head, up, down, drop = st.columns([9, 1, 1, 1], vertical_alignment="center")
            state = ("added by you" if d.origin is None else "edited" if d.edited
                     else "as proposed")
            colour = {"added by you": "blue", "edited": "orange"}.get(state, "gray")
            with head:
                st.markdown(f"**Step {i + 1}**")
                st.badge(state, color=colour)
            up.button("↑", key=self._k(d.uid, "up"), disabled=i == 0, help="Move up",
                      on_click=lambda: self._set_list(move(self.drafts, i, i - 1)),
                      width="stretch")
            down.button("↓", key=self._k(d.uid, "down"), disabled=i == n - 1,
                        help="Move down", width="stretch",
                        on_click=lambda: self._set_list(move(self.drafts, i, i + 1)))
            drop.button("✕", key=self._k(d.uid, "remove"), help="Remove this step",
                        width="stretch", on_click=lambda: self._set_list(remove(self.drafts, i)))
            self._fields(i, d)
            st.caption("Why: " + md_escape(justification_text(d)))
            for p in problems:
                st.error(md_escape(p))

    def _fields(self, i: int, d: StepDraft) -> None:
        uid, cb = d.uid, self._on_change
        st.text_area("Sub-question", key=self._init(uid, "sub_question", d.sub_question),
                     height=68, on_change=cb, args=(uid, "sub_question"),
                     placeholder="What should this step find out?")
        tool_col, scope_col, section_col = st.columns([3, 4, 4])  # the tool names fit
        tool_col.selectbox("Tool", list(TOOL_LABELS), format_func=TOOL_LABELS.get,
                           key=self._init(uid, "tool", d.tool), on_change=cb,
                           args=(uid, "tool"))
        if d.tool in ("figure_lookup", "compute"):
            self._figure_fields(d, scope_col, section_col)
        elif d.tool == "analyze":
            render_analysis_fields(d, scope_col, section_col, init=self._init, on_change=cb)
        elif d.tool == "filing_search":
            known = [x for x in d.doc_ids if x in self.docs]
            scope_col.multiselect(
                "Companies / filings", list(self.docs), key=self._init(uid, "doc_ids", known),
                format_func=lambda x: self.names.get(x, x), on_change=cb,
                args=(uid, "doc_ids"), placeholder="All filings",
                help="Which filings this step searches (empty: those of the companies its "
                     "question names, else all of them).")
            options, labels = section_options(d, self.sections, self.names,
                                              list(self.docs.values()))
            k = self._init(uid, "section", d.section or ANY_SECTION)
            if st.session_state[k] not in options:
                st.session_state[k] = d.section or ANY_SECTION
            section_col.selectbox("Section", options, key=k,
                                  format_func=lambda t: labels.get(t, t),
                                  on_change=cb, args=(uid, "section"),
                                  help="Sections of the chosen filings (of every filing "
                                       "when none is chosen).")
        else:
            scope_col.caption("Web steps search the web provider (news after the filing); "
                              "they take no filing or section.")
        cols = st.columns(3 if self.dependencies else 2)
        kw_col, note_col = cols[0], cols[-1]
        if d.tool in ("figure_lookup", "compute"):
            self._unit_fields(d, kw_col)
        elif d.tool == "analyze":
            kw_col.caption("Combines the figures of the steps it depends on; no search, no "
                           "LLM: the verdict is computed.")
        else:
            kw_col.text_input("Keywords",
                              key=self._init(uid, "keywords", ", ".join(d.keywords)),
                              on_change=cb, args=(uid, "keywords"),
                              help="Comma-separated terms keyword search must match.")
        if self.dependencies:
            earlier = [e.uid for e in self.drafts[:i]]
            dep_labels = {e.uid: f"Step {j + 1}: {preview(e.sub_question, 50)}"
                          for j, e in enumerate(self.drafts)}
            k = self._init(uid, "depends_on", [u for u in d.depends_on if u in earlier])
            st.session_state[k] = [u for u in st.session_state[k] if u in earlier]
            cols[1].multiselect("Depends on", earlier, key=k, on_change=cb,
                                args=(uid, "depends_on"), format_func=dep_labels.get,
                                placeholder="No earlier step",
                                help="Earlier steps whose findings this step uses.")
        note_col.text_input("Your reason (optional)", key=self._init(uid, "note", d.note),
                            on_change=cb, args=(uid, "note"),
                            help="Recorded with the plan instead of the planner's reason.")

    def _figure_fields(self, d: StepDraft, left, right) -> None:
        """A look-up's filings, metric and periods; a compute step's formula."""
        uid, cb = d.uid, self._on_change
        if d.tool == "figure_lookup":
            known = [x for x in d.doc_ids if x in self.docs]
            left.multiselect(
                "Companies / filings", list(self.docs), key=self._init(uid, "doc_ids", known),
                format_func=lambda x: self.names.get(x, x), on_change=cb,
                args=(uid, "doc_ids"), placeholder="All filings",
                help="Whose facts to read (empty: every filing).")
            metric = getattr(d, "metric", None) or ""
            options, labels = metric_options(metric)
            k = self._init(uid, "metric", metric)
            if st.session_state[k] not in options:
                st.session_state[k] = metric
            m_col, p_col, s_col = right.columns([3, 2, 2])
            m_col.selectbox("Metric", options, key=k, format_func=lambda o: labels.get(o, o),
                            on_change=cb, args=(uid, "metric"),
                            help="The catalogue metric to look up in the filings' facts.")
            p_col.text_input("Periods", key=self._init(uid, "periods", ", ".join(
                getattr(d, "periods", None) or [])), on_change=cb, args=(uid, "periods"),
                placeholder="FY2022, FY2023",
                help="Fiscal periods, comma-separated: FY2023, FY2024-Q1.")
            s_col.text_input("Segment", key=self._init(uid, "member", d.member or ""),
                             on_change=cb, args=(uid, "member"), placeholder="(the total)",
                             help="A segment, product line or region as the filing names "
                                  "it (empty: the company's total).")
        else:
            left.text_input("Formula", key=self._init(uid, "formula",
                                                      getattr(d, "formula", None) or ""),
                            on_change=cb, args=(uid, "formula"),
                            placeholder="revenue[FY2023] / revenue[FY2022] - 1",
                            help="Metric keys with periods, numbers, + - * /, parentheses, "
                                 "avg(...), abs(...).")
            right.caption("Computed from the look-up steps it depends on; no search, no LLM.")

    def _unit_fields(self, d: StepDraft, col) -> None:
        """The unit and rounding a figure step states its result in."""
        uid, cb = d.uid, self._on_change
        unit = getattr(d, "unit", None) or USUAL
        k = self._init(uid, "unit", unit)
        if st.session_state[k] not in UNITS:
            st.session_state[k] = USUAL
        u_col, d_col = col.columns(2)
        u_col.selectbox("Unit", UNITS, key=k, on_change=cb, args=(uid, "unit"),
                        help="The unit the figure is stated in (usual: the metric's own).")
        dec = getattr(d, "decimals", None)
        k = self._init(uid, "decimals", dec if dec in DECIMALS else None)
        d_col.selectbox("Decimals", DECIMALS, key=k, on_change=cb, args=(uid, "decimals"),
                        format_func=lambda v: USUAL if v is None else str(v),
                        help="Decimal places to round to.")
