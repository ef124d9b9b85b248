"""Each source file parsed once a session: the layer and architecture tests read every
module of core/ (and the pages, components, scripts) several times over."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


def tree(path: Path) -> ast.Module:
    """``path`` parsed (again only if it changed since)."""
    stat = path.stat()
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed(path: str, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def top_level_imports(path: Path) -> frozenset[str]:
    """The top-level package of every module ``path`` imports, anywhere in it."""
    stat = path.stat()
    return _top_level(str(path), stat.st_mtime_ns, stat.st_size)


@functools.cache
def _top_level(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(_parsed(path, mtime_ns, size)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return frozenset(names)
