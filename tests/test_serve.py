"""``serve.py``, what ``make run`` starts: each page's URL answers Streamlit's own
``index.html`` with one line in front pointing the client at the app's root, so a page
opened by its URL never probes ``/<page>/_stcore/...`` first (streamlit/streamlit#7074).
Those paths still answer 404 (no stand-in replies). The browser check is
``test_browser_dashboard.py::test_no_404_on_a_walk_through_every_page``.

The app is asked in a child process: ``st.App`` starts Streamlit's runtime, a process-wide
singleton the AppTests in this process must not meet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from components.navigation import url_paths

ROOT = Path(__file__).resolve().parent.parent
ASK = """
import json, sys
from pathlib import Path
from starlette.testclient import TestClient
from streamlit import file_util
import serve
out = {"index": (Path(file_util.get_static_dir()) / "index.html").read_text(encoding="utf-8")}
with TestClient(serve.app) as client:
    for url in sys.argv[1:]:
        r = client.get(url, follow_redirects=False)
        out[url] = [r.status_code, r.headers.get("content-type", ""), r.text]
        out["location " + url] = r.headers.get("location")
print(json.dumps(out))
"""


def _ask(tmp_path: Path, *urls: str) -> dict:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("DTR_", "STREAMLIT_"))}
    clean.update(DTR_DATA_DIR=str(tmp_path / "store"), HF_HUB_OFFLINE="1",
                 PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", ASK, *urls], cwd=tmp_path, env=clean,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _declared(index: str, root: str) -> str:
    line = (f'<script>window.__streamlit = {{BACKEND_BASE_URL: location.origin + "{root}", '
            f'MAIN_PAGE_BASE_URL: location.origin + "{root}"}};</script>')
    return index.replace("<head>", "<head>" + line, 1)


def test_every_page_url_is_streamlits_page_pointing_the_client_at_the_root(tmp_path):
    pages = [f"/{name}" for name in url_paths() if name != "research"]  # the root's: below
    assert {"/compare", "/library", "/settings"} <= set(pages)
    got = _ask(tmp_path, "/", *pages, "/runs?run=abc")
    index = got["index"]
    assert got["/"] == [200, "text/html; charset=utf-8", index]  # the root: Streamlit's own
    for url in [*pages, "/runs?run=abc"]:
        status, kind, text = got[url]
        assert (status, kind) == (200, "text/html; charset=utf-8"), url
        assert text == _declared(index, "/"), url  # Streamlit's page, one line added


def test_research_by_name_redirects_to_the_root_where_streamlit_serves_it(tmp_path):
    got = _ask(tmp_path, "/research", "/research?thread=abc")
    assert got["/research"][0] == 307
    assert got["/research?thread=abc"][0] == 307
    assert got["location /research"] == "/"
    assert got["location /research?thread=abc"] == "/?thread=abc"


def test_streamlits_routes_under_a_page_are_still_missing_and_the_roots_answer(tmp_path):
    got = _ask(tmp_path, "/library/_stcore/health", "/library/_stcore/host-config",
               "/_stcore/health", "/_stcore/host-config")
    assert got["/library/_stcore/health"][0] == 404
    assert got["/library/_stcore/host-config"][0] == 404
    assert got["/_stcore/health"][:1] == [200] and got["/_stcore/health"][2] == "ok"
    assert got["/_stcore/host-config"][0] == 200


def test_under_a_base_url_path_the_pages_point_at_that_path(tmp_path):
    (tmp_path / ".streamlit").mkdir()  # the working folder's config, as a deployment sets it
    (tmp_path / ".streamlit" / "config.toml").write_text('[server]\nbaseUrlPath = "team"\n')
    got = _ask(tmp_path, "/team/library")
    assert got["/team/library"][0] == 200
    assert got["/team/library"][2] == _declared(got["index"], "/team/")


def test_make_run_starts_serve_py():
    """The README's ``make run`` starts the app through serve.py (as the browser tests do)."""
    out = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60).stdout
    run = [line for line in out.splitlines() if " run " in line and "streamlit" in line]
    assert run and "streamlit run serve.py" in run[-1], out
