"""The agent graph as Graphviz DOT, current node highlighted (st.graphviz_chart works offline).

The structure is the compiled LangGraph's (``core.agent.graph.picture``, from
``get_graph(xray=True)``): a plan step's stages are drawn inside the step's box as
``research_step:<stage>``. An event names its node without the prefix (``rerank``);
``drawn_node`` finds the node it lights.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import streamlit as st

CURRENT = "#f39c12"
VISITED = "#cfe2f3"
IDLE = "#ffffff"
SEP = ":"
"""LangGraph's separator between a subgraph node and its inner nodes."""


def structure_from_langgraph(drawable) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """(nodes, edges) from ``compiled.get_graph(xray=True)`` (edges carry their conditional
    flag)."""
    nodes = [str(n) for n in drawable.nodes]
    edges = [(str(e.source), str(e.target), bool(e.conditional)) for e in drawable.edges]
    return nodes, edges


def drawn_node(name: str | None, nodes: Sequence[str]) -> str | None:
    """The drawn node an event's ``node`` names: itself at the top level, else the stage of
    that name inside a subgraph (``rerank`` -> ``research_step:rerank``); None if not drawn."""
    if not name:
        return None
    if name in nodes:
        return name
    inner = [n for n in nodes if n.rsplit(SEP, 1)[-1] == name and SEP in n]
    return inner[0] if inner else None


def _q(name: str) -> str:
    return '"' + re.sub(r'["\\]', "", name) + '"'


def _node_line(n: str, current: str | None, seen: set[str]) -> str:
    short = n.rsplit(SEP, 1)[-1]
    if short in ("__start__", "__end__"):
        if SEP in n:  # a subgraph's entry and exit: small dots
            return f'  {_q(n)} [label="", shape=point, width=0.08];'
        label = "start" if short == "__start__" else "end"
        return (f'  {_q(n)} [label="{label}", shape=circle, fillcolor="#eeeeee", '
                'fontsize=9, width=0.4, fixedsize=true];')
    fill = CURRENT if n == current else VISITED if n in seen else IDLE
    pen = ", penwidth=2.5" if n == current else ""
    label = f', label="{_q(short)[1:-1]}"' if short != n else ""
    return f'  {_q(n)} [fillcolor="{fill}"{pen}{label}];'


def graph_dot(
    nodes: Sequence[str],
    edges: Iterable[tuple[str, str, bool]],
    *,
    current: str | None = None,
    visited: Iterable[str] = (),
) -> str:
    """DOT text of the graph: the node ``current`` names filled orange, the ``visited``
    ones light blue; a subgraph's nodes drawn in a box labelled with its name."""
    node = drawn_node(current, nodes)
    seen = {d for d in (drawn_node(v, nodes) for v in visited) if d}
    lines = [
        "digraph agent {",
        '  graph [rankdir=LR, bgcolor="transparent", nodesep=0.2, ranksep=0.25];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11, '
        'color="#1f4e79", height=0.3];',
        '  edge [color="#7f8c8d", arrowsize=0.6];',
    ]
    groups: dict[str, list[str]] = {}
    for n in nodes:
        if SEP in n:
            groups.setdefault(n.rsplit(SEP, 1)[0], []).append(n)
        else:
            lines.append(_node_line(n, node, seen))
    for k, (name, inner) in enumerate(groups.items()):
        lines.append(f"  subgraph cluster_{k} {{")
        lines.append(f'    label={_q(name + " (one plan step)")}; fontname="Helvetica"; '
                     'fontsize=10; style="rounded,dashed"; color="#1f4e79";')
        lines += ["  " + _node_line(n, node, seen) for n in inner]
        lines.append("  }")
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
    """Draw the graph with the node ``current`` names highlighted."""
    st.graphviz_chart(graph_dot(nodes, edges, current=current, visited=visited),
                      width="stretch")
    if current:
        where = drawn_node(current, nodes)
        inside = f" (inside {where.rsplit(SEP, 1)[0]})" if where and SEP in where else ""
        st.caption(f"Current node: **{current}**{inside} · dashed edges are conditional "
                   "(the router's, the dispatcher's and the policy's choices)")
