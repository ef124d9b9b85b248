"""The server: the dashboard (``streamlit_app.py``) as Streamlit's ASGI app (``st.App``).

``make run`` starts it with ``streamlit run serve.py``: Streamlit finds the ``st.App`` below
and serves it with uvicorn; ``--server.*`` flags and ``.streamlit/config.toml`` apply as
before, and ``streamlit_app.py`` is still the script every session runs.

What it adds to a plain ``streamlit run streamlit_app.py``: each page's URL (``/library``,
``/runs``, ...) answers Streamlit's own ``index.html`` with one line in front that tells
the client where the app's server is (``window.__streamlit.BACKEND_BASE_URL``, the app's
root). Without it, a page opened by its URL makes the client look for the server under
that page first (``/library/_stcore/health``, ``/library/_stcore/host-config``: two 404s
in the console on every direct visit, streamlit/streamlit#7074) before it falls back to
the root. Those paths still answer 404, as Streamlit means them to; the client no longer
asks for them. ``/research`` redirects to the root, where Streamlit serves the default page
(opened as ``/research``, the client would log "The page that you have requested does not
seem to exist" and go there itself). As it starts, the server warms the first page
(``components.warmup``: the entry's and the default page's modules imported, the corpus
opened) while the browser loads.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import Route
from streamlit import config, file_util

from components import warmup
from components.navigation import DEFAULT, url_paths


def base_path() -> str:
    """The app's path on its host: ``/<server.baseUrlPath>``, or '' at the host's root."""
    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


def page_html(base: str) -> str:
    """Streamlit's ``index.html`` declaring, before any of Streamlit's scripts run, that
    the app's server and main page are at ``<origin><base>/``."""
    index = (Path(file_util.get_static_dir()) / "index.html").read_text(encoding="utf-8")
    root = json.dumps(base + "/").replace("<", "\\u003c")
    declare = (f"<script>window.__streamlit = {{BACKEND_BASE_URL: location.origin + {root}, "
               f"MAIN_PAGE_BASE_URL: location.origin + {root}}};</script>")
    head = index.index("<head>") + len("<head>")
    return index[:head] + declare + index[head:]


def page_routes() -> list[Route]:
    """One route per page URL (user routes come before Streamlit's own, so these answer
    where Streamlit's static files would have sent the same ``index.html``); the default
    page's name redirects to the root, its query kept."""
    base = base_path()
    html = page_html(base)
    default = Path(DEFAULT).stem

    async def page(_request: Request) -> HTMLResponse:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})  # as Streamlit's

    async def to_root(request: Request) -> RedirectResponse:
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{base}/{query}", status_code=307,
                                headers={"Cache-Control": "no-cache"})

    return [Route(f"{base}/{name}", to_root if name == default else page,
                  methods=["GET", "HEAD"]) for name in url_paths()]


@asynccontextmanager
async def lifespan(_app):
    """As the server starts: warm the first page (``components.warmup``) while the first
    browser loads Streamlit's scripts."""
    warmup.start()
    yield None


# absolute, so ``uvicorn serve:app`` from any folder finds the script too
app = st.App(Path(__file__).with_name("streamlit_app.py"), routes=page_routes(),
             lifespan=lifespan)
