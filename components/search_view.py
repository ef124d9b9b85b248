"""The Search page's renderers: the query box and filters, the scope the query named (and
a way to search everything), and the hits: company, form, period, section, page, score,
the text with the query's words marked (escaped first), each one opening in the Library.

The search itself is ``core.app.search_page.run_search`` (the CLI's search); session keys
are prefixed ``search_``.
"""

from __future__ import annotations

import streamlit as st

from components import keys
from components.text import md_escape
from core.app.search_page import (
    SearchAsk,
    SearchOutcome,
    filter_options,
    run_search,
    term_spans,
)
from core.foundation.pages import page_ref
from core.foundation.strategies import DEFAULT_STRATEGY, STRATEGIES
from core.foundation.types import Chunk, Hit

SEARCH_QUERY = "search_query"
SEARCH_STRATEGY = "search_strategy"
SEARCH_K = "search_k"
SEARCH_COMPANIES = "search_companies"
SEARCH_FORMS = "search_forms"
SEARCH_SECTIONS = "search_sections"
SEARCH_ALL = "search_everything"
SEARCH_DONE = "search_done"  # (ask, the corpus's doc ids, outcome) of the search on screen
MARK = "yellow-background"
TEXT_LIMIT = 1500  # characters of a hit shown (the whole chunk is one click away)


def marked(text: str, spans: list[tuple[int, int]], limit: int = TEXT_LIMIT) -> str:
    """``text`` (cut at ``limit``) as escaped Markdown with ``spans`` marked: every piece
    of the filing is escaped before it is wrapped, so the text can never become markup."""
    cut = text[:limit]
    out, at = [], 0
    for start, end in spans:
        if start >= len(cut) or start < at:
            continue
        end = min(end, len(cut))
        out.append(md_escape(cut[at:start]))
        out.append(f":{MARK}[{md_escape(cut[start:end])}]")
        at = end
    out.append(md_escape(cut[at:]))
    tail = "…" if len(text) > limit else ""
    return ("".join(out) + tail).replace("\n", "  \n")


def hit_heading(hit: Hit) -> str:
    """'NVIDIA CORP · 10-K · FY2023 · Item 1A. Risk Factors · p. 18' (escaped; the page
    as the filing prints it, else 'PDF p. 19', as every citation says it)."""
    c, d = hit.chunk, hit.document
    name = (d.company if d and d.company != "unknown" else d.file_name if d else c.doc_id)
    parts = [name, *((d.form_type, d.period) if d else ()), c.section,
             page_ref(c.page, c.page_label, short=True)]
    return " · ".join(md_escape(p) for p in parts if p and p != "unknown")


def hit_scores(hit: Hit) -> str:
    """'score 0.0328 · vector #2 (0.612) · keyword #1 (14.2)'."""
    stages = " · ".join(f"{name} #{s.rank} ({s.score:.3g})" for name, s in hit.stages.items())
    return f"score {hit.score:.4g}" + (f" · {stages}" if stages else "")


def open_chunk(chunk: Chunk) -> None:
    """Switch to the Library with ``chunk`` open in its filing (``?chunk=<id>``)."""
    st.session_state[keys.LIB_BROWSE_DOC] = chunk.doc_id
    st.session_state[keys.LIB_BROWSE_SECTION] = chunk.section
    st.session_state[keys.LIB_FOCUS_CHUNK] = chunk.chunk_id
    st.session_state[keys.LIB_FOCUS_SPAN] = None
    st.session_state[keys.LIB_LINK_SEEN] = chunk.chunk_id
    st.switch_page("app_pages/library.py", query_params={"chunk": chunk.chunk_id})


def _search_all() -> None:
    st.session_state[SEARCH_ALL] = True


def _ask(corpus) -> SearchAsk:
    """The filters, drawn from the corpus; returns what they ask."""
    docs = corpus.documents()
    options = filter_options(docs, {})
    query = st.text_input("Search the filings", key=SEARCH_QUERY,
                          placeholder="e.g. NVIDIA export controls, data center revenue, "
                                      "goodwill impairment")
    c1, c2, c3, c4 = st.columns([2, 2, 1, 1])
    companies = c1.multiselect("Companies", list(options.companies), key=SEARCH_COMPANIES,
                               format_func=lambda k: options.companies.get(k, (k,))[0],
                               placeholder="All companies")
    forms = c2.multiselect("Forms", options.forms, key=SEARCH_FORMS, placeholder="All forms")
    strategy = c3.selectbox("Strategy", list(STRATEGIES), key=SEARCH_STRATEGY,
                            index=list(STRATEGIES).index(DEFAULT_STRATEGY),
                            format_func=lambda s: STRATEGIES[s].label,
                            help=" · ".join(f"{s.label}: {s.help}" for s in STRATEGIES.values()))
    k = c4.number_input("Results (k)", 1, 50, 10, key=SEARCH_K)
    ids = [i for key in companies for i in options.companies.get(key, ("", []))[1]] or None
    sections = filter_options(docs, corpus.store.sections(), ids).sections
    if st.session_state.get(SEARCH_SECTIONS):  # sections the companies picked do not have
        st.session_state[SEARCH_SECTIONS] = [s for s in st.session_state[SEARCH_SECTIONS]
                                             if s in sections]
    s1, s2 = st.columns([4, 2], vertical_alignment="bottom")
    chosen = s1.multiselect("Sections", list(sections), key=SEARCH_SECTIONS,
                            format_func=lambda s: sections.get(s, s), placeholder="All sections")
    everything = s2.checkbox("Search every filing", key=SEARCH_ALL,
                             help="Ignore the companies and years the query names (a query "
                                  "naming NVIDIA searches NVIDIA's filings otherwise).")
    return SearchAsk(query=query or "", strategy=strategy, k=int(k), companies=companies,
                     forms=forms, sections=chosen, everything=everything)


def _render_outcome(outcome: SearchOutcome, *, key: str) -> None:
    if outcome.error:
        st.warning(md_escape(outcome.error))
        return
    result = outcome.result
    if result.scope is not None:
        left, right = st.columns([5, 2], vertical_alignment="center")
        left.info("Searched only the filings the query names: "
                  + md_escape(result.scope.reason) + ".")
        right.button("Search every filing instead", key=f"{key}_all", on_click=_search_all)
    notes = list(outcome.filtered)
    if result.reranker is not None:
        info = result.reranker
        notes.append("no re-ranking" if info.kind == "none" else f"re-ranked by {info.name}")
    if result.expansions:
        notes.append("also searched for: " + "; ".join(result.expansions))
    st.caption(" · ".join(md_escape(n) for n in [
        f"{len(result.hits)} result(s), {STRATEGIES[result.strategy].label.lower()} search, "
        f"{result.timings_ms.get('total', 0):.0f} ms", *notes]))
    for warning in result.warnings:
        st.warning(md_escape(warning))
    if not result.hits:
        st.info("No passage matches. Try other words, the keyword strategy for exact terms, "
                "fewer filters, or **Search every filing**.")
    for hit in result.hits:
        with st.container(border=True, key=f"{key}_hit_{hit.rank}"):
            top, button = st.columns([5, 1.3], vertical_alignment="center")
            top.markdown(f"**{hit.rank}.** {hit_heading(hit)}  \n"
                         f":gray[{md_escape(hit_scores(hit))}]")
            if button.button("Open in the Library", key=f"{key}_open_{hit.chunk.chunk_id}"):
                open_chunk(hit.chunk)
            if hit.chunk.context:
                st.caption(md_escape(hit.chunk.context[:300]))
            st.markdown(marked(hit.chunk.text, term_spans(hit.chunk.text, outcome.terms)))


def render_search(corpus, *, key: str = "search") -> None:
    """The page's body: filters, then the hits of the search they ask (run again only when
    the ask changes)."""
    if not corpus.documents():
        st.info("The corpus is empty: add filings in the **Library** (upload a 10-K or fetch "
                "one from EDGAR), then search them here.")
        st.page_link("app_pages/library.py", label="Go to the Library")
        return
    ask = _ask(corpus)
    pressed = st.button("Search", type="primary", key=f"{key}_go")
    version = tuple(d.doc_id for d in corpus.documents())
    done = st.session_state.get(SEARCH_DONE)
    if pressed or (ask.query.strip() and (done is None or done[:2] != (ask, version))):
        st.session_state[SEARCH_DONE] = done = (ask, version, run_search(corpus, ask))
    if done is not None:
        _render_outcome(done[2], key=key)
