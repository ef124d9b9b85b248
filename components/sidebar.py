"""The shared sidebar: what is active right now (corpus, LLM, reranker, web provider)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from components.text import md_escape


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


def render_sidebar(stack: ActiveStack) -> None:
    """Draw the 'Active' panel in the sidebar."""
    with st.sidebar:
        st.markdown("#### Active")
        c1, c2 = st.columns(2)
        c1.metric("Documents", f"{stack.documents:,}")
        c2.metric("Chunks", f"{stack.chunks:,}")
        llm_note = " (deterministic rules, no key)" if stack.llm_offline else ""
        st.markdown(f"**LLM** · {md_escape(stack.llm)}{llm_note}")
        kind = "search order kept" if stack.reranker_kind == "none" else stack.reranker_kind
        st.markdown(
            f"**Reranker** · {md_escape(stack.reranker)} ({kind})",
            help=stack.reranker_reason or None,
        )
        st.markdown(f"**Web** · {md_escape(stack.web)}")
        st.caption(f"Corpus folder: {stack.data_dir}")
