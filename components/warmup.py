"""The first page after a server start, drawn without waiting for what could be ready.

A fresh server's first script run used to do everything itself, in the browser's sight:
import the entry's and the default page's modules (LangGraph and the agent, pandas,
Chroma: ~2.5 s on two cores) and open the corpus with its embedding model (~0.6 s), while
the server sat idle as the browser loaded Streamlit's scripts. ``serve.py`` calls
:func:`start` as the server starts: a background thread does that work at once (the
modules are read from the entry's and the default page's own import lines, so the list
never goes stale) and leaves the opened corpus for the first session
(``services.open_warm_corpus``). The first script run calls :func:`wait` before its own
imports: it takes what is ready instead of doing it again, and never imports beside the
warm-up thread (two threads importing one circle of modules can deadlock). A failed
warm-up is logged and changes nothing: the script does the work as before and shows any
error where it always did.
"""

from __future__ import annotations

import ast
import importlib
import logging
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
ENTRY = ROOT / "streamlit_app.py"
WAIT_S = 60.0  # a bound: a warm-up stuck on a broken store never holds a page longer

_done = threading.Event()
_started = False
_lock = threading.Lock()
seconds: dict[str, float] = {}
"""What each part of the last warm-up took (for notes and tests)."""


def imported_modules(script: Path) -> list[str]:
    """The modules ``script`` imports at its top level, in order (``from a import b`` gives
    ``a`` and, when ``b`` is a submodule, ``a.b``; relative and ``__future__`` imports are
    left out)."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and node.module != "__future__":
            out.append(node.module)
            out.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return list(dict.fromkeys(out))


def _import_all(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:  # ``from a import b`` where b is a name, not a module
            continue


def first_page() -> Path:
    from components.navigation import DEFAULT, FOLDER

    return ROOT / FOLDER / DEFAULT


def warm() -> None:
    """Import what the entry and the default page import, then open the corpus."""
    t0 = time.perf_counter()
    _import_all(imported_modules(ENTRY))
    seconds["entry imports"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    from components import services

    services.open_warm_corpus()
    seconds["corpus"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    _import_all(imported_modules(first_page()))
    seconds["first page imports"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    from core.app.runs import all_runs

    all_runs(services.load_settings())  # the Research page lists the plans waiting
    seconds["run records"] = time.perf_counter() - t0


def _run() -> None:
    try:
        warm()
    except Exception:  # noqa: BLE001 - the script does the work itself and shows the error
        log.warning("warming the first page failed; the first run does it itself",
                    exc_info=True)
    finally:
        _done.set()


def start() -> bool:
    """Start the warm-up thread (once per process); False when it had already started."""
    global _started
    with _lock:
        if _started:
            return False
        _started = True
    threading.Thread(target=_run, name="warm-first-page", daemon=True).start()
    return True


def wait(timeout_s: float = WAIT_S) -> bool:
    """Wait for a started warm-up to end (at most ``timeout_s``); True at once when none was
    started (``streamlit run streamlit_app.py``, AppTest)."""
    if not _started:
        return True
    return _done.wait(timeout_s)
