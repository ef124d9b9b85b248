"""The first page after a server start: ``serve.py`` warms it (``components.warmup``) and
the first script run takes the corpus opened meanwhile instead of opening its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from components import warmup

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package,names", [("core.app", ["runs", "jobs"]),
                                           ("components", ["keys"]),
                                           ("json", [])])
def test_imported_modules_are_read_from_the_scripts_own_import_lines(tmp_path, package, names):
    lines = ["from __future__ import annotations", "import os, sys as system",
             "from . import sibling"]
    lines.append(f"from {package} import {', '.join(names)}" if names else f"import {package}")
    lines += ["def later():", "    import inside_a_function", "if True:", "    import nested"]
    script = tmp_path / "page.py"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = warmup.imported_modules(script)
    want = ["os", "sys", package, *(f"{package}.{n}" for n in names)]
    assert got == want  # top level only, in order; no __future__, relative or nested ones


def test_the_entry_and_the_first_page_import_lists_name_real_modules():
    import importlib.util

    for script in (warmup.ENTRY, warmup.first_page()):
        mods = warmup.imported_modules(script)
        assert "streamlit" in mods
        tops = {m for m in mods if importlib.util.find_spec(m.split(".")[0]) is None}
        assert not tops, f"{script.name} imports unknown packages {tops}"


def test_wait_returns_at_once_when_no_server_started_a_warm_up(monkeypatch):
    monkeypatch.setattr(warmup, "_started", False)
    assert warmup.wait(timeout_s=0)


def test_wait_holds_the_first_run_until_the_warm_up_ends_and_a_failure_releases_it(
        monkeypatch):
    monkeypatch.setattr(warmup, "_started", False)
    monkeypatch.setattr(warmup, "_done", threading.Event())
    gate, ran = threading.Event(), []

    def warm():  # stands in for the imports and the corpus: blocks until the test says
        gate.wait()
        ran.append(True)
        raise RuntimeError("a broken store")

    monkeypatch.setattr(warmup, "warm", warm)
    assert warmup.start()
    assert not warmup.start()  # once per process
    assert not warmup.wait(timeout_s=0)  # still warming: the run would wait
    gate.set()
    assert warmup.wait(timeout_s=30)  # ended (by failing): the run goes on and does it itself
    assert ran == [True]


def test_the_corpus_opened_at_start_is_the_first_runs_corpus_and_only_once(tmp_path,
                                                                          monkeypatch):
    from components import services

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    services.base_settings.clear()
    services.corpus.clear()
    try:
        services.open_warm_corpus()
        (warm,) = services._warm.values()
        first = services.corpus()
        assert first is warm
        assert first.settings.data_dir == tmp_path / "store"
        assert not services._warm  # handed over: a cleared cache opens a corpus of its own
        services.corpus.clear()
        assert services.corpus() is not warm
    finally:
        services._warm.clear()
        services.base_settings.clear()
        services.corpus.clear()


ASK = """
import json
from starlette.testclient import TestClient
import serve
from components import services, warmup
with TestClient(serve.app) as client:
    assert client.get("/_stcore/health").status_code == 200
    done = warmup.wait(120)
    print(json.dumps({"done": done, "parts": sorted(warmup.seconds),
                      "warm": [c.settings.data_dir.as_posix() for c in services._warm.values()],
                      "runs_imported": "core.app.runs" in __import__("sys").modules}))
"""


def test_serving_the_app_warms_the_first_page_as_the_server_starts(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DTR_", "STREAMLIT_"))}
    env.update(DTR_DATA_DIR=str(tmp_path / "store"), HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT),
               LANGSMITH_TRACING="false", OMP_WAIT_POLICY="PASSIVE")
    proc = subprocess.run([sys.executable, "-c", ASK], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["done"]
    assert out["parts"] == ["corpus", "entry imports", "first page imports", "run records"]
    assert out["warm"] == [(tmp_path / "store").as_posix()]
    assert out["runs_imported"]  # the Research page's own imports (core.app.runs) are in
