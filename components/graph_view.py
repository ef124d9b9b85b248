"""The agent graph as Graphviz DOT, current node highlighted (st.graphviz_chart works offline).

The structure comes from the compiled LangGraph (``graph.get_graph()``) when the
service provides it; ``DEFAULT_NODES``/``DEFAULT_EDGES`` describe the design's
graph otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import streamlit as st

DEFAULT_NODES = ["__start__", "plan", "review", "start_step", "rewrite", "search_filings",
                 "search_web", "rerank", "distill", "reflect", "policy", "revise", "synthesize",
                 "__end__"]
DEFAULT_EDGES: list[tuple[str, str, bool]] = [
    ("__start__", "plan", False), ("plan", "review", False), ("review", "start_step", False),
    ("start_step", "rewrite", True), ("start_step", "synthesize", True),
    ("rewrite", "search_filings", True), ("rewrite", "search_web", True),
    ("search_filings", "rerank", False), ("search_web", "rerank", False),
    ("rerank", "distill", False), ("distill", "reflect", False), ("reflect", "policy", False),
    ("policy", "start_step", True), ("policy", "revise", True), ("policy", "synthesize", True),
    ("revise", "start_step", False), ("synthesize", "__end__", False),
]
CURRENT = "#f39c12"
VISITED = "#cfe2f3"
IDLE = "#ffffff"


def structure_from_langgraph(drawable) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """(nodes, edges) from ``compiled.get_graph()`` (edges carry their conditional flag)."""
    nodes = [str(n) for n in drawable.nodes]
    edges = [(str(e.source), str(e.target), bool(e.conditional)) for e in drawable.edges]
    return nodes, edges


def _q(name: str) -> str:
    return '"' + re.sub(r'["\\]', "", name) + '"'


def graph_dot(
    nodes: Sequence[str],
    edges: Iterable[tuple[str, str, bool]],
    *,
    current: str | None = None,
    visited: Iterable[str] = (),
) -> str:
    """DOT text of the graph: ``current`` filled orange, ``visited`` nodes light blue."""
    seen = set(visited)
    lines = [
        "digraph agent {",
        '  graph [rankdir=LR, bgcolor="transparent", nodesep=0.2, ranksep=0.25];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, '
        'color="#1f4e79", height=0.3];',
        '  edge [color="#7f8c8d", arrowsize=0.6];',
    ]
    for n in nodes:
        if n in ("__start__", "__end__"):
            label = "start" if n == "__start__" else "end"
            lines.append(f'  {_q(n)} [label="{label}", shape=circle, fillcolor="#eeeeee", '
                         'fontsize=9, width=0.4, fixedsize=true];')
            continue
        fill = CURRENT if n == current else VISITED if n in seen else IDLE
        pen = ", penwidth=2.5" if n == current else ""
        lines.append(f'  {_q(n)} [fillcolor="{fill}"{pen}];')
    for src, dst, conditional in edges:
        style = ' [style=dashed]' if conditional else ""
        lines.append(f"  {_q(src)} -> {_q(dst)}{style};")
    lines.append("}")
    return "\n".join(lines)


def render_graph(
    nodes: Sequence[str],
    edges: Iterable[tuple[str, str, bool]],
    *,
    current: str | None = None,
    visited: Iterable[str] = (),
) -> None:
    """Draw the graph with the current node highlighted."""
    st.graphviz_chart(graph_dot(nodes, edges, current=current, visited=visited),
                      width="stretch")
    if current:
        st.caption(f"Current node: **{current}** · dashed edges are the policy's choices")
