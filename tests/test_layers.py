"""core/ is layered: a module imports its own layer or a lower one, never a higher one, and
no two modules import each other, directly or around a loop.

Every import counts, module-level and function-local (a lazy import is still a dependency),
and so do imports under ``if TYPE_CHECKING:``: they never run, but a module that names
another's types for its signatures still depends on it, so a type-only import back closes a
loop as surely as a lazy one (core.agent.agent_cache named ``AgentDeps`` while deps imported
it inside ``ask_llm``; the cache now names the protocol it reads, ``CacheUser``).
The layers, lowest first, are README's "Architecture" section.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.source_trees import tree as parsed

ROOT = Path(__file__).resolve().parent.parent

LAYERS: list[tuple[str, ...]] = [
    ("foundation",),            # settings, errors, records, safety, cache, model loading
    ("metrics", "llm"),         # the metric catalogue; the LLM client and its guards
    ("ingest",),                # files -> chunks, sections, tables, facts
    ("store",),                 # registry, vectors, keyword index, run records, checkpoints
    ("retrieval",),             # strategies, scope, fusion, reranking, web search
    ("figures",),               # a question's figure: look-up and computation
    ("analysis",),              # figures combined: compare, rank, verdicts, criteria
    ("reading",),               # the analyst's words read once into one typed reading
    ("agent",),                 # the LangGraph research agent
    ("baseline", "app"),        # the walk-through's RAG; what pages and the CLI call
    ("evaluation",),            # scoring runs of both systems
    ("bench",),                 # measuring code: benchmarks, retrieval measurement
    ("mcp",),                   # the corpus served to MCP clients (python -m core mcp)
    ("cli", "__main__"),        # python -m core
]
RANK = {pkg: rank for rank, group in enumerate(LAYERS) for pkg in group}

# Upward edges and cycles whose seam is being moved on a branch (issue 19, helper A); each
# entry goes when its branch lands. Nothing may be added here.
PENDING_UP: set[tuple[str, str]] = set()
PENDING_CYCLES: list[set[str]] = []


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in (root / "core").rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports(root: Path) -> dict[str, dict[str, bool]]:
    """module -> {imported core module: whether the import runs (not TYPE_CHECKING-only)}."""
    mods = _modules(root)

    def known(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, dict[str, bool]] = {m: {} for m in mods}
    for mod, path in mods.items():
        tree = parsed(path)
        typing_only = _type_checking_lines(tree)
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            for target in targets:
                if not target.startswith("core"):
                    continue
                hit = known(target)
                if hit and hit != mod:
                    runs = node.lineno not in typing_only
                    graph[mod][hit] = graph[mod].get(hit, False) or runs
    return graph


@functools.cache
def _core_imports() -> dict[str, dict[str, bool]]:
    """``imports(ROOT)``, read once a session (three tests ask)."""
    return imports(ROOT)


def layer(mod: str) -> int:
    parts = mod.split(".")
    if len(parts) < 2 or parts[1] not in RANK:
        raise AssertionError(f"{mod} is in no layer: add its package to LAYERS (and README)")
    return RANK[parts[1]]


def upward(graph: dict[str, dict[str, bool]]) -> set[tuple[str, str]]:
    return {(a, b) for a, targets in graph.items() for b in targets if layer(b) > layer(a)}


def cycles(graph: dict[str, dict[str, bool]], *, type_only: bool = True) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan), over every import
    (``type_only=False``: over imports that run)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, runs in graph.get(v, {}).items():
            if not (runs or type_only):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_core_package_is_in_a_layer():
    for mod in _modules(ROOT):
        if mod != "core":
            layer(mod)


def test_no_lower_layer_imports_a_higher_one():
    assert upward(_core_imports()) - PENDING_UP == set()


def test_no_import_cycles():
    assert [c for c in cycles(_core_imports()) if c not in PENDING_CYCLES] == []


def test_nothing_at_the_root_of_core_but_the_entry_point():
    loose = sorted(p.name for p in (ROOT / "core").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


def test_the_check_sees_lazy_imports_type_only_imports_and_cycles(tmp_path):
    pkg = tmp_path / "core"
    for sub in ("foundation", "agent", "app"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "foundation" / "config.py").write_text(
        "def f():\n    from core.agent.graph import build\n")
    (pkg / "agent" / "graph.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.app.jobs import Job\n"
        "from . import roles\n")
    (pkg / "agent" / "roles.py").write_text("import core.agent.graph\n")
    (pkg / "app" / "jobs.py").write_text("from core.foundation import config\n")
    graph = imports(tmp_path)
    assert upward(graph) == {("core.foundation.config", "core.agent.graph"),
                             ("core.agent.graph", "core.app.jobs")}
    assert graph["core.agent.graph"]["core.app.jobs"] is False  # type-only: never runs ...
    assert cycles(graph, type_only=False) == [{"core.agent.graph", "core.agent.roles"}]
    assert cycles(graph) == [{"core.agent.graph", "core.agent.roles", "core.app.jobs",
                              "core.foundation.config"}]  # ... but closes a loop
